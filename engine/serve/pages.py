"""The HTML of `knap serve`'s pages, drawn on the server. A seat's page is made from that seat's view alone
(`Game.view`): what the view leaves out never reaches the browser. Every text of a pack, a log or a player is
escaped (`esc`), so no markup of a pack reaches a page."""

from __future__ import annotations

from html import escape
from urllib.parse import quote

CARD_FIELDS = ("cost", "requires")
PROVENANCE_BADGES = {"placeholder": "placeholder", "assumption": "assumption", "reference": "reference"}


def esc(value) -> str:
    return escape(str(value), quote=True)


def page(title: str, body: str, *, script: str = "", data: str = "", host: bool = True) -> str:
    """A whole page. `host=False` (a seat's page) links to nothing of the host's: not to the tables, whose
    host pages download saves with every hidden card."""
    scripts = f'<script src="/static/{script}"></script>' if script else ""
    nav = "<a href='/'>Tables</a> · <a href='/packs'>Packs</a>" if host else "Knapper"
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        f"<title>{esc(title)}</title><link rel='stylesheet' href='/static/knap.css'></head>"
        f"<body {data}><nav>{nav}</nav>{body}{scripts}</body></html>"
    )


# ---------------------------------------------------------------------------------------------- cards
def card(details: dict, provenance: dict | None = None, *, count: int = 1, extra: dict | None = None) -> str:
    """A card drawn as a card: name, kind, cost, prerequisites, stats, text, and a badge for a value that is
    a placeholder or an assumption (or taken from a reference)."""
    provenance = provenance or {}
    kind = provenance.get("provenance")
    badge = ""
    if kind in PROVENANCE_BADGES:
        badge = f"<span class='badge {esc(kind)}' title='{esc(provenance.get('reason', ''))}'>{esc(kind)}</span>"
    rows = []
    if details.get("type"):
        rows.append(f"<div class='kind'>{esc(details['type'])}</div>")
    if details.get("tags"):
        rows.append(f"<div class='tags'>{esc(', '.join(details['tags']))}</div>")
    for name in CARD_FIELDS:
        if details.get(name):
            label = "needs" if name == "requires" else name
            rows.append(f"<div class='{name}'><b>{label}</b> {esc(', '.join(map(str, details[name])))}</div>")
    if details.get("stats"):
        stats = ", ".join(f"{esc(k)} {esc(v)}" for k, v in details["stats"].items())
        rows.append(f"<div class='stats'>{stats}</div>")
    for name, value in (details.get("refs") or {}).items():
        rows.append(f"<div class='refs'><b>{esc(name)}</b> {esc(value)}</div>")
    for name, value in (extra or {}).items():
        rows.append(f"<div class='extra'><b>{esc(name)}</b> {esc(value)}</div>")
    if details.get("text"):
        rows.append(f"<div class='text'>{esc(details['text'])}</div>")
    many = f"<span class='count'>× {count}</span>" if count > 1 else ""
    return (
        f"<div class='card' data-name='{esc(details.get('name', ''))}'><div class='name'>{esc(details.get('name', ''))}"
        f"{many}</div>{''.join(rows)}{badge}</div>"
    )


def face_down(text: str = "face down") -> str:
    return f"<div class='card down'><div class='name'>{esc(text)}</div></div>"


# ---------------------------------------------------------------------------------------------- a seat
def seat_page(table, seat: str, view: dict, provenance: dict, *, notice: str = "") -> str:
    """Seat `seat`'s page: the table as `view` (this seat's) shows it, the question, the log."""
    token = table.tokens[seat]
    turn = view["turn"]
    when = f"Round {turn['round']}" if turn.get("rounds") else f"Turn {turn['number']}"
    goal = "; ".join(view.get("about", {}).get("goal", []))
    head = (
        f"<header><h1>{esc(table.rules.manifest.get('name') or table.rules.pack_id)} — you are {esc(seat)}</h1>"
        f"<p>{esc(when)} · {esc(turn['player'])}'s turn · <span class='goal'>goal: {esc(goal)}</span></p></header>"
    )
    parts = [head]
    if notice:
        parts.append(f"<p class='notice'>{esc(notice)}</p>")
    if table.error:
        parts.append(f"<p class='error'>The game cannot go on: {esc(table.error)}</p>")
    parts.append(_decision(table, seat, token, view))
    parts.append(_shared_zones(view, provenance))
    parts.append(_players(view, provenance))
    parts.append(_log(view))
    data = f"data-version='{table.version}' data-poll='/s/{quote(token)}/version'"
    body = "<main class='seat'>" + "".join(parts) + "</main>"
    return page(f"{seat} — Knapper table", body, script="knap.js", data=data, host=False)


def _decision(table, seat, token, view) -> str:
    decision = view.get("decision")
    result = view.get("result")
    undo = ""
    if table.can_undo(seat):
        undo = (
            f"<form method='post' action='/s/{quote(token)}/undo' class='undo'>"
            "<button id='undo'>Undo back to my last decision</button></form>"
        )
    if result:
        winners = ", ".join(result.get("winners") or []) or "nobody"
        scores = ", ".join(f"{esc(p)} {esc(s)}" for p, s in (result.get("scores") or {}).items())
        return (
            f"<section id='decision' class='over'><h2>Game over: {esc(winners)} won</h2><p>{scores}</p>{undo}</section>"
        )
    if not decision or "options" not in decision:
        waiting = ", ".join(table.waiting_for()) or "the bots"
        prompt = (decision or {}).get("prompt", "")
        return (
            f"<section id='decision' class='waiting'><h2>Waiting for {esc(waiting)}</h2>"
            f"<p>{esc(prompt)}</p>{undo}</section>"
        )
    buttons = "".join(
        f"<button name='key' value='{int(o['key'])}' class='option'>{esc(o['label'])}</button>"
        for o in decision["options"]
    )
    form = (
        f"<form method='post' action='/s/{quote(token)}/answer' class='options'>"
        f"<input type='hidden' name='d' value='{esc(table.mark(seat, view))}'>{buttons}</form>"
    )
    left_out = ""
    if decision.get("unavailable"):
        items = "".join(f"<li><b>{esc(u['label'])}</b>: {esc(u['why'])}</li>" for u in decision["unavailable"])
        left_out = f"<details class='why' open><summary>Left out, and why</summary><ul>{items}</ul></details>"
    return (
        f"<section id='decision' class='yours'><h2>{esc(decision.get('prompt') or 'Your choice')}</h2>"
        f"{form}{left_out}{undo}</section>"
    )


def owner_of(key: str, players) -> str | None:
    owner = key.rsplit(":", 1)[-1] if ":" in key else None
    return owner if owner in players else None


def _zone(key: str, entry: dict, view: dict, provenance: dict) -> str:
    about = view.get("about", {})
    cards_about = about.get("cards", {})
    facts = about.get("zones", {}).get(key, {})
    text, kind = facts.get("text"), facts.get("type")
    body = []
    shown = entry.get("cards")
    if entry.get("top"):
        body.append("<div class='label'>on top</div>" + _drawn(entry["top"], cards_about, provenance))
    elif shown is not None and (kind == "row" or any(c is None or isinstance(c, str) for c in shown)):  # in order
        for place in shown:
            if place is None:
                body.append("<div class='card empty'>·</div>")
            elif place == "hidden":
                body.append(face_down())
            else:
                body.append(_drawn(place, cards_about, provenance))
    elif shown:
        groups: dict[str, list] = {}
        for item in shown:
            groups.setdefault(repr(sorted(item.items())), []).append(item)
        body.extend(_drawn(items[0], cards_about, provenance, len(items)) for items in groups.values())
    hidden = entry["count"] - sum(1 for c in (shown or []) if isinstance(c, dict)) - (1 if entry.get("top") else 0)
    if hidden > 0 and not entry.get("top"):
        body.append(face_down(f"{hidden} face down"))
    title = f" title='{esc(text)}'" if text else ""
    return (
        f"<div class='zone' data-zone='{esc(key)}'{title}><h3>{esc(entry['name'])} <small>({entry['count']})</small>"
        f"</h3><div class='cards'>{''.join(body)}</div></div>"
    )


def _drawn(item: dict, cards_about: dict, provenance: dict, count: int = 1) -> str:
    details = dict(cards_about.get(item["id"]) or {"name": item.get("name", "")})
    details["name"] = item.get("name") or details.get("name", "")
    extra = {}
    if item.get("orientation"):
        extra["turned"] = item["orientation"]
    for counter, number in (item.get("counters") or {}).items():
        extra[counter] = number
    return card(details, provenance.get(item["id"]), count=count, extra=extra)


def _shared_zones(view: dict, provenance: dict) -> str:
    players = view["players"]
    zones = [
        _zone(k, e, view, provenance)
        for k, e in view["zones"].items()
        if owner_of(k, players) is None and (e["count"] or e.get("cards"))
    ]
    table_counters = view["counters"].get("table", {})
    counters = _counters(view, table_counters, "table")
    return f"<section id='shared'><h2>The table</h2>{counters}<div class='zones'>{''.join(zones)}</div></section>"


def _counters(view: dict, values: dict, owner: str) -> str:
    if not values:
        return ""
    words = view.get("counter_words", {})
    cells = []
    for counter, value in values.items():
        shown = words.get(counter, {}).get(str(value), value)
        name = view["counter_names"].get(counter, counter)
        cells.append(
            f"<span class='counter' data-owner='{esc(owner)}' data-counter='{esc(counter)}'>"
            f"{esc(name)} <b>{esc(shown)}</b></span>"
        )
    return f"<div class='counters'>{''.join(cells)}</div>"


def _players(view: dict, provenance: dict) -> str:
    blocks = []
    for player in view["players"]:
        you = " (you)" if player == view["you"] else ""
        out = " — out" if player in view.get("out", {}) else ""
        zones = [
            _zone(k, e, view, provenance)
            for k, e in view["zones"].items()
            if owner_of(k, view["players"]) == player and e["count"]
        ]
        counters = _counters(view, view["counters"].get(player, {}), player)
        mark = " turn" if view["turn"]["player"] == player else ""
        blocks.append(
            f"<div class='player{mark}' data-player='{esc(player)}'><h3>{esc(player)}{you}{out}</h3>{counters}"
            f"<div class='zones'>{''.join(zones)}</div></div>"
        )
    return f"<section id='players'><h2>Players</h2>{''.join(blocks)}</section>"


def _log(view: dict) -> str:
    lines = view.get("log") or []
    items = "".join(f"<li>{esc(line)}</li>" for line in lines[-300:])
    return f"<section id='log'><h2>Log</h2><ol start='{max(1, len(lines) - 299)}'>{items}</ol></section>"


# ---------------------------------------------------------------------------------------------- the host
def host_page(table) -> str:
    """The table as a whole, for whoever runs the server: each seat's page, the downloads, no secrets."""
    game = table.game
    rows = []
    for player, kind in zip(game.players, table.seats, strict=True):
        if kind == "human":
            link = f"<a class='seat-link' target='_blank' href='/s/{quote(table.tokens[player])}'>open {esc(player)}'s page</a>"
        else:
            link = f"bot: {esc(kind)}"
        rows.append(f"<li>{esc(player)} — {link}</li>")
    if game.over and game.result:
        status = f"Game over: {esc(', '.join(game.result['winners']) or 'nobody')} won"
    else:
        waiting = ", ".join(table.waiting_for()) or "the bots"
        status = f"Turn {game.turn_number}, waiting for {esc(waiting)}"
    error = f"<p class='error'>{esc(table.error)}</p>" if table.error else ""
    branches = f"<p>{len(table.branches)} branch(es) left behind by undo.</p>" if table.branches else ""
    body = (
        f"<main class='host'><h1>{esc(table.rules.pack_id)} — table {esc(table.id)}</h1><p id='status'>{status}</p>"
        f"{error}<ul class='seats'>{''.join(rows)}</ul>{branches}<p>"
        f"<a id='save' href='/t/{esc(table.id)}/save' download>Save the game</a> · "
        f"<a id='log-download' href='/t/{esc(table.id)}/log' download>Download the replay log</a></p>"
        "<p class='note'>The save and the log hold the whole game, hidden cards included: they are for the host, "
        "not for a player's tab.</p></main>"
    )
    data = f"data-version='{table.version}' data-poll='/t/{esc(table.id)}/version'"
    return page(f"Table {table.id}", body, script="knap.js", data=data)


def start_page(packs: list[dict], tables, agent_names: str, *, notice: str = "") -> str:
    options = "".join(
        f"<option value='{esc(p['id'])}'>{esc(p['id'])} — {esc(p.get('name') or '')} ({esc(p['players'])})</option>"
        for p in packs
    )
    listed = "".join(
        f"<li><a href='/t/{esc(t.id)}'>{esc(t.rules.pack_id)} · table {esc(t.id)}</a>"
        f"{' (over)' if t.game.over else ''}</li>"
        for t in tables.by_id.values()
    )
    notice_html = f"<p class='notice'>{esc(notice)}</p>" if notice else ""
    body = (
        f"<main class='start'><h1>Knapper — playtest table</h1>{notice_html}"
        "<form method='post' action='/new' id='new-game'><h2>Start a game</h2>"
        f"<label>Pack <select name='pack'>{options}</select></label>"
        "<label>Seats, one per player <input name='seats' value='human,random' size='40'></label>"
        f"<p class='hint'>Each seat is <code>human</code> or a bot: {esc(agent_names)}.</p>"
        "<label>Seed <input name='seed' placeholder='random' size='8'></label>"
        "<label>Rounds at most <input name='max_rounds' value='500' size='5'></label>"
        "<label>Physical outcomes <select name='oracle'><option value='model'>the pack's model decides</option>"
        "<option value='ask'>the people at the table say</option></select></label>"
        "<button id='start'>Start</button></form>"
        "<form id='load-game'><h2>Load a saved game</h2><input type='file' id='load-file' accept='.json'>"
        "<button id='load'>Load</button></form>"
        f"<h2>Tables</h2><ul>{listed or '<li>none yet</li>'}</ul></main>"
    )
    return page("Knapper — playtest table", body, script="knap.js")
