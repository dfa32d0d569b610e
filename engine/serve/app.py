"""The Starlette app of `knap serve`: routes, and the checks every request passes before it reaches a table.

Addresses: `/` starts and loads games; `/t/ID` is a table as its host sees it (its seats' links, save, log);
`/s/TOKEN` is one seat's page, the token being the secret the host's page links to; `/packs` and
`/pack/ID` browse packs. A form posted from another origin is refused.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from engine.runtime import agents, persist, session
from engine.runtime.errors import ContentError
from engine.runtime.game import Game, GameError
from engine.runtime.rules import PackError

from . import pages
from .packs import Pack, browser_page, list_page, pack_of, provenance_of
from .tables import ORACLES, Refused, Tables, seats_from

STATIC = Path(__file__).parent / "static"
ANSWERS_PER_TURN = 1000  # a turn longer than this stalls (as in `knap play`): bots never loop for ever
MAX_BODY = 8 * 1024 * 1024  # a saved game larger than this is refused
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # no-referrer would make a form's Origin `null`
    "Cache-Control": "no-store",
}


def html(text: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(text, status, headers=SECURITY_HEADERS)


def create_app(pack_roots: list[Path]) -> Starlette:
    """The app for these packs (folders); games live in memory as long as the app does."""
    packs: dict[str, Pack] = {}
    for root in pack_roots:
        pack = pack_of(root)
        packs.setdefault(pack.id, pack)
    tables = Tables()

    def not_found(what: str) -> HTMLResponse:
        return html(pages.page("Not found", f"<main><p class='error'>{pages.esc(what)}</p></main>"), 404)

    async def form(request: Request) -> dict[str, str]:
        body = await request.body()
        if len(body) > 64 * 1024:
            raise Refused("the form is too large")
        fields = parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)
        return {k: v[-1] for k, v in fields.items()}

    def same_origin(request: Request) -> bool:
        origin = request.headers.get("origin")
        if not origin or origin == "null":
            return origin is None
        return urlsplit(origin).netloc == request.headers.get("host")

    def start(request: Request, notice: str = "", status: int = 200) -> HTMLResponse:
        listed = [{"id": p.id, "name": p.name, "players": f"{p.players[0]}–{p.players[1]}"} for p in packs.values()]
        return html(pages.start_page(listed, tables, agents.names(), notice=notice), status)

    async def index(request: Request) -> Response:
        return start(request)

    async def new_game(request: Request) -> Response:
        if not same_origin(request):
            return PlainTextResponse("refused: a form from another site", 403)
        try:
            fields = await form(request)
            pack = packs.get(fields.get("pack", ""))
            if pack is None:
                raise Refused("no such pack on this server")
            seed_text = fields.get("seed", "").strip()
            if seed_text and not (seed_text.isdigit() and len(seed_text) <= 12):
                raise Refused("the seed is a whole number")
            seed = int(seed_text) if seed_text else session.fresh_seed()
            rounds_text = fields.get("max_rounds", "500").strip() or "500"
            if not rounds_text.isdigit() or not 1 <= int(rounds_text) <= 10_000:
                raise Refused("rounds at most: a number from 1 to 10000")
            oracle = fields.get("oracle", "model")
            if oracle not in ORACLES:
                raise Refused("physical outcomes: model or ask")
            try:
                rules = await run_in_threadpool(pack.rules)  # the first game of a pack loads it
            except PackError as exc:  # the pack does not lint clean
                raise Refused(f"the pack `{pack.id}` has errors; see its page ({exc})") from None
            low, high = rules.players
            seats = seats_from(fields.get("seats", ""), low, high)
            game = Game.new(rules, len(seats), seed, max_rounds=int(rounds_text), max_answers_per_turn=ANSWERS_PER_TURN)
            table = tables.add(rules, game, seats, oracle)
        except Refused as exc:
            return start(request, str(exc), 400)
        except (ContentError, GameError) as exc:
            return start(request, f"the game cannot start: {exc}", 400)
        return RedirectResponse(f"/t/{table.id}", 303)

    async def load_game(request: Request) -> Response:
        if not same_origin(request):
            return PlainTextResponse("refused: a request from another site", 403)
        body = await request.body()
        if len(body) > MAX_BODY:
            return JSONResponse({"error": "the file is too large"}, 413)
        try:
            data = persist.parse(body, persist.SaveError)
            session.check_session(data)
            pack = packs.get(str(data["pack"]).replace("_", "-")) or packs.get(str(data["pack"]))
            if pack is None:
                raise persist.SaveError(f"the pack `{data['pack']}` is not served here", "/pack", code="X413")
            rules = await run_in_threadpool(pack.rules)  # the first game of a pack loads it
            game = session.load_session_game(rules, data)
            game.max_answers_per_turn = data.get("max_answers_per_turn") or ANSWERS_PER_TURN
            oracle = data.get("oracle") if data.get("oracle") in ORACLES else "model"
            table = tables.add(rules, game, list(data["seats"]), oracle)
        except (GameError, Refused, PackError) as exc:
            return JSONResponse({"error": str(exc)}, 400)
        return JSONResponse({"table": f"/t/{table.id}"})

    def table_of(request: Request):
        return tables.get(request.path_params["table"])

    async def host(request: Request) -> Response:
        table = table_of(request)
        if table is None:
            return not_found("no such table")
        with table.lock:
            return html(pages.host_page(table))

    async def table_version(request: Request) -> Response:
        table = table_of(request)
        if table is None:
            return JSONResponse({"error": "no such table"}, 404)
        return JSONResponse({"version": table.version}, headers={"Cache-Control": "no-store"})

    async def download(request: Request) -> Response:
        table = table_of(request)
        if table is None:
            return not_found("no such table")
        what = request.path_params["what"]
        if what not in ("save", "log"):
            return not_found("no such page")
        if what == "save":
            text, name = table.saved(), f"knap-game-{table.game.seed}.save.json"
        else:
            text, name = table.replay_log(), f"knap-game-{table.game.seed}.json"
        headers = {"Content-Disposition": f'attachment; filename="{name}"', "Cache-Control": "no-store"}
        return Response(text, media_type="application/json", headers=headers)

    def seat_of(request: Request):
        return tables.seat(request.path_params["token"])

    def render_seat(table, seat: str, notice: str = "", status: int = 200) -> HTMLResponse:
        with table.lock:
            view = table.seat_view(seat)
            provenance = provenance_of({i: table.rules.cards[i] for i in view["about"]["cards"]})
            return html(pages.seat_page(table, seat, view, provenance, notice=notice), status)

    async def seat_page(request: Request) -> Response:
        found = seat_of(request)
        if found is None:
            return not_found("no such seat")
        table, seat = found
        if not table.is_human(seat):
            return not_found("a bot plays this seat")
        return render_seat(table, seat, request.query_params.get("notice", "")[:200])

    async def seat_version(request: Request) -> Response:
        found = seat_of(request)
        if found is None:
            return JSONResponse({"error": "no such seat"}, 404)
        return JSONResponse({"version": found[0].version}, headers={"Cache-Control": "no-store"})

    def posted_to_seat(request: Request):
        """The table and seat a form is posted to, or the refusal: a form from another site, an unknown seat."""
        if not same_origin(request):
            return PlainTextResponse("refused: a form from another site", 403)
        found = seat_of(request)
        return not_found("no such seat") if found is None else found

    async def answer(request: Request) -> Response:
        found = posted_to_seat(request)
        if isinstance(found, Response):
            return found
        table, seat = found
        try:
            fields = await form(request)
            key, mark = fields.get("key", ""), fields.get("d")
            if not key.isdigit() or len(key) > 9:
                raise Refused("an answer is the number of an option")
            if not table.is_human(seat):
                raise Refused("a bot plays this seat")
            table.answer(seat, int(key), mark)
        except Refused as exc:
            return render_seat(table, seat, str(exc), 409)
        return RedirectResponse(f"/s/{request.path_params['token']}", 303)

    async def undo(request: Request) -> Response:
        found = posted_to_seat(request)
        if isinstance(found, Response):
            return found
        table, seat = found
        try:
            table.undo(seat)
        except Refused as exc:
            return render_seat(table, seat, str(exc), 409)
        except GameError as exc:
            return render_seat(table, seat, f"the undo failed: {exc}", 500)
        return RedirectResponse(f"/s/{request.path_params['token']}", 303)

    async def pack_list(request: Request) -> Response:
        return html(list_page(list(packs.values())))

    def pack_page(request: Request) -> Response:  # linting takes a while: Starlette runs it in a thread
        pack = packs.get(request.path_params["pack"])
        if pack is None:
            return not_found("no such pack on this server")
        return html(browser_page(pack))

    def pack_stamp(request: Request) -> Response:
        pack = packs.get(request.path_params["pack"])
        if pack is None:
            return JSONResponse({"error": "no such pack"}, 404)
        return JSONResponse({"version": pack.stamp()}, headers={"Cache-Control": "no-store"})

    routes = [
        Route("/", index),
        Route("/new", new_game, methods=["POST"]),
        Route("/load", load_game, methods=["POST"]),
        Route("/t/{table:str}", host),
        Route("/t/{table:str}/version", table_version),
        Route("/t/{table:str}/{what:str}", download),
        Route("/s/{token:str}", seat_page),
        Route("/s/{token:str}/version", seat_version),
        Route("/s/{token:str}/answer", answer, methods=["POST"]),
        Route("/s/{token:str}/undo", undo, methods=["POST"]),
        Route("/favicon.ico", lambda request: Response(status_code=204)),
        Route("/packs", pack_list),
        Route("/pack/{pack:str}", pack_page),
        Route("/pack/{pack:str}/stamp", pack_stamp),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.tables = tables
    app.state.packs = packs
    return app
