"""Playing whole games with agents, the game log that replays one exactly, and the saved session that
`knap play` leaves behind when a person quits half-way.

A log is the setup (pack, players, seed) plus every answer in order, chance included, and the
final state's hash; replaying it must reach the same hash. A saved session is the game's state
(`Game.save`) plus who plays each seat, so `knap play --resume` goes on with the same table; the
state keeps every answer since the first, so the resumed game's log is the whole game's.
"""

from __future__ import annotations

import json
import random
import secrets
import signal
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from engine.files.atomic import WriteError

from . import agents, persist
from .errors import ContentError
from .game import CHANCE, Game, GameError
from .persist import LogError, check_log, pointer
from .views import option_label

LOG_FORMAT = "knap-log/1"
SESSION_FORMAT = "knap-play/1"
SESSION_SCHEMA = "session.schema.json"
SEED_LIMIT = 1_000_000  # fresh seeds have at most six digits: easy to read out and type again
HUMAN = "human"  # a seat played by the person at the terminal, in a saved session


def play(
    rules, players: int, seed: int, agents: list, *, max_rounds: int = 500, on_step=None, oracle=None, watcher=None
) -> Game:
    """Play one game to its end. `agents[i]` plays seat i+1; chance uses the game's own random stream,
    except oracles when an `oracle` agent (the person at the table) is given."""
    return play_out(
        Game.new(rules, players, seed, max_rounds=max_rounds), agents, on_step=on_step, oracle=oracle, watcher=watcher
    )


def play_out(game: Game, agents: list, *, on_step=None, oracle=None, watcher=None, interruptible=False) -> Game:
    """Play an existing game to its end (the caller keeps the game, even when a rule fails half-way).
    `oracle` answers the physical outcomes (`oracle` decisions), seeing the table as `watcher` does.
    `interruptible`: Ctrl-C (KeyboardInterrupt) may stop the game to save it, so an interrupt that
    arrives while an answer is applied waits until it is applied: the game is whole when it propagates."""
    seats = {p: agents[i] for i, p in enumerate(game.players)}
    whole = held_interrupts if interruptible else _unguarded
    while not game.over:
        decision = game.decision
        if decision is None:
            raise GameError("the game stopped without a decision", code="X303")
        if decision.is_chance:
            if oracle is not None and decision.kind == "oracle":
                option = oracle.act(oracle_view(game, watcher), decision.legal)
                with whole():
                    game.apply(option, CHANCE)
                if on_step is not None:
                    on_step(game)
            else:
                with whole():
                    game.apply_chance()
            continue
        player = decision.players[0]
        agent = seats[player]
        legal = game.legal(player)
        view = game.view(player) if getattr(agent, "needs_view", True) else {"you": player}
        model_seed = len(game.history)
        try:
            # `model(k)`: the k-th imagined deal of this decision (an agent that imagines several), each seeded
            option = agent.act(view, legal, lambda k=0, p=player, s=model_seed: game.determinized(p, s + k * 7919))
        except (ContentError, GameError) as exc:
            # a rule that fails in a game the bot imagines: the real game has not reached it, so its log
            # replays up to this decision only; say so where the error is reported (imagined_in)
            exc.imagined_by = f"{player}'s {getattr(agent, 'name', 'bot')} bot"
            raise
        with whole():
            game.apply(option, player)
        if on_step is not None:
            on_step(game)
    return game


def imagined_in(exc) -> str:
    """For an error met by a bot in a game it imagined (`play_out`), the words that say so, to put before
    the error; "" for an error of the game itself."""
    who = getattr(exc, "imagined_by", None)
    return f"{who}, trying out its options in an imagined game, met: " if who else ""


@contextmanager
def _unguarded():
    yield


@contextmanager
def held_interrupts():
    """Hold Ctrl-C (SIGINT) while the block runs and raise KeyboardInterrupt after it, if one came: a
    game is never saved half-way through an answer. Outside the main thread signals cannot be handled,
    and nothing is held."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    previous = signal.signal(signal.SIGINT, lambda _signum, _frame: caught.append(True))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def oracle_view(game: Game, watcher=None) -> dict:
    """What the person answering an oracle sees: the table as `watcher` (or the first seat) sees it, and
    the question with every outcome."""
    view = game.view(watcher or game.players[0])
    pending, decision = game.pending, game.decision
    assert pending is not None and decision is not None  # asked at an oracle's question only
    view["decision"] = {
        "prompt": f"At the table: {pending.get('prompt', '')}",
        "kind": "oracle",
        "options": [
            {"key": k, "label": option_label(game, pending, pending["options"][k], None, k)} for k in decision.legal
        ],
    }
    return view


def play_randomly(game: Game, rnd, *, after=None, limit: int | None = None) -> int:
    """Answer uniformly at random with `rnd` (chance from the game's own stream) until the game is over or
    `limit` answers were given; `after(game)` runs after each step. Returns the answers given. Tests, the
    soak and the benchmark all play this way, so their games are the same games."""
    made = 0
    # `rnd.randrange(n)` drawn here when `rnd` is a plain random.Random, the way random.py draws it (its
    # `_randbelow_with_getrandbits`): the very same numbers for every n, without its two frames of interpreted Python
    getrandbits = rnd.getrandbits if type(rnd) is random.Random else None
    # read once for the game, not at each answer: its state is one dict all game long (undo.fail refills it in place),
    # `_take` is bound once, and the answer limit is read again only after `after`, the one code that could set it
    state = game.state
    take = game._take
    unlimited = game.max_answers_per_turn is None
    while state["stage"] != "over" and (limit is None or made < limit):  # `Game.over`, read without its call
        pending = state["pending"]  # who answers, read from the pending decision: no Decision built for it
        assert pending is not None  # a game not over waits for a decision
        by = pending["by"]
        player = by[0]
        if player == CHANCE and len(by) == 1:  # (`by == [CHANCE]` without a list made for it)
            game.apply_chance()
        else:
            # `Game.legal`, without its copy (only read here); its commonest answer, the player's legal answers
            # already worked out for this decision with no dead end known, read as `Game._legal_now` reads it
            known = game._answerable
            legal = None
            if known[0] is pending and known[2] is None and not state["dead"] and known[1] == len(pending["options"]):
                legal = known[5][1].get(player)
            if legal is None:
                legal = game._legal_now(pending, player)
            n = len(legal)
            if getrandbits is not None and n > 0:
                bits = _BIT_LENGTHS[n] if n < len(_BIT_LENGTHS) else n.bit_length()
                drawn = getrandbits(bits)  # 0 <= drawn < 2**bits: drawn again until below n
                while drawn >= n:
                    drawn = getrandbits(bits)
            else:  # another kind of generator (or no option: randrange raises as it always has)
                drawn = rnd.randrange(n)
            option = legal[drawn]
            if unlimited:  # legal by its making and not counted: what `apply` checks holds
                take(player, option)
            else:
                game.apply(option, player)
            made += 1
        if after is not None:
            after(game)
            unlimited = game.max_answers_per_turn is None
    return made


_BIT_LENGTHS = tuple(n.bit_length() for n in range(256))  # (`n.bit_length()` of the few options a decision has)


def game_log(game: Game, *, agents=()) -> dict:
    players = len(game.players)
    return {
        "format": LOG_FORMAT,
        "pack": game.rules.pack_id,
        "pack_path": str(game.rules.root),
        "players": players,
        "seed": game.seed,
        "max_rounds": game.state["max_turns"] // (1 if game.rules.in_rounds else players),
        "agents": list(agents),
        "decisions": game.history,
        "result": game.result,
        "final_hash": game.state_hash(),
    }


def write_log(game: Game, path: Path, *, agents=()):
    """Write the game's log whole or not at all; raises `atomic.WriteError` naming the path."""
    write_log_data(game_log(game, agents=agents), path)


def write_log_data(log: dict, path: Path):
    persist.write_json(path, log, indent=1)


def write_logs(logs_dir, outcomes) -> None:
    """Write the logs that simulated games kept (`outcome["log"]`) as `logs_dir/seed-N.json`, each whole or
    not at all. A file that cannot be written does not stop the others: its outcome gets `log_error`,
    the sentence saying which path failed and why."""
    folder = Path(logs_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = "it is a file, not a folder" if folder.exists() else exc.strerror or str(exc)
        problem = str(WriteError(folder, reason))
        for outcome in outcomes:
            if outcome.pop("log", None) is not None:
                outcome["log_error"] = problem
        return
    for outcome in outcomes:
        log = outcome.pop("log", None)
        if log is None:
            continue
        try:
            write_log_data(log, folder / f"seed-{outcome['seed']}.json")
        except WriteError as exc:
            outcome["log_error"] = str(exc)


def replay(rules, log: dict) -> Game:
    """Rebuild a game from its log, which anyone may have written: it is checked against its schema
    first (persist.check_log). Raises LogError (a GameError) saying what is wrong and where in the log,
    ContentError when the pack fails on the way."""
    replayed = replay_until_failure(rules, log)
    if replayed.failure is not None:
        raise replayed.failure
    assert replayed.game is not None  # only a setup that failed has no game
    return replayed.game


class Replayed(NamedTuple):
    """A log replayed as far as it goes: the game (None when setup itself failed), what stopped the
    replay (None when every answer was applied), and how many answers the last turn had taken."""

    game: Game | None
    failure: Exception | None
    answers_in_turn: int


def replay_until_failure(rules, log: dict) -> Replayed:
    """Like `replay`, but an answer the game refuses (LogError) or a rule that fails (ContentError,
    GameError) is returned with the game as it stood then, so a failed game's log can show what
    happened up to the failure. A log that does not fit the pack (its schema, pack, seats) still raises."""
    check_log(log)
    if log["pack"] != rules.pack_id:
        raise LogError(f"the log is of the pack `{log['pack']}`, not `{rules.pack_id}`", "/pack", code="X404")
    low, high = rules.players
    if not low <= log["players"] <= high:
        raise LogError(f"this pack is for {low} to {high} players, not {log['players']}", "/players", code="X404")
    try:
        game = Game.new(rules, log["players"], log["seed"], max_rounds=log.get("max_rounds", 500))
    except (ContentError, GameError) as exc:
        return Replayed(None, exc, 0)
    turn, answers = game.turn_number, 0
    for number, (player, option) in enumerate(log["decisions"]):
        if game.turn_number != turn:
            turn, answers = game.turn_number, 0
        answers += 1
        try:
            game.apply(option, player if player != CHANCE else CHANCE)
        except ContentError as exc:
            return Replayed(game, exc, answers)
        except GameError as exc:
            if len(game.history) > number:  # applied, then a rule failed: the game's own failure
                return Replayed(game, exc, answers)
            return Replayed(
                game,
                LogError(
                    f"the log does not replay: decision {number + 1} ({player} answers {option}): {exc}",
                    pointer(["decisions", number]),
                    code="X405",
                ),
                answers,
            )
    return Replayed(game, None, answers)


# ------------------------------------------------------------------------------------ saved sessions
def fresh_seed() -> int:
    """A seed for a game nobody gave one: random, and short enough to read out."""
    return secrets.randbelow(SEED_LIMIT)


def save_path_for(log_path) -> Path:
    """Where a game in progress is saved: beside its log, `NAME.save.json` for the log `NAME.json`."""
    path = Path(log_path)
    stem = path.name.removesuffix(".json")
    return path.with_name(f"{stem}.save.json")


def log_path_for(save_path) -> Path:
    """The log of a resumed game: beside its save, `NAME.json` for the save `NAME.save.json`."""
    path = Path(save_path)
    name = path.name
    if name.endswith(".save.json") and len(name) > len(".save.json"):
        return path.with_name(name[: -len(".save.json")] + ".json")
    stem = name.removesuffix(".json")
    return path.with_name(f"{stem}.log.json")  # never the save itself


def session_data(game: Game, seats: list[str], *, oracle: str = "model", max_answers_per_turn=None) -> dict:
    """What `knap play` saves when a person leaves a game: the game's state (`Game.save`) and who plays
    each seat (`human` or an agent's name), so that `knap play --resume` goes on with the same table."""
    return {
        "format": SESSION_FORMAT,
        "pack": game.rules.pack_id,
        "pack_path": str(game.rules.root),
        "seats": list(seats),
        "oracle": oracle,
        "max_answers_per_turn": max_answers_per_turn,
        "game": json.loads(game.save()),
    }


def write_session(path, data: dict) -> None:
    """Write a saved session whole or not at all; raises `atomic.WriteError` naming the path."""
    persist.write_json(path, data)


def is_session(data) -> bool:
    return (
        isinstance(data, dict)
        and isinstance(data.get("format"), str)
        and data["format"].startswith(SESSION_FORMAT.split("/")[0] + "/")
    )


def check_session(data) -> None:
    """A saved session (parsed JSON from anyone) has the shape of `schemas/runtime/session.schema.json`
    and names only known agents; its game is checked when the pack is known (`load_session_game`).
    Raises persist.SaveError with a JSON pointer."""
    if not is_session(data):
        raise persist.SaveError(
            f'this is not a saved `knap play` session (it has no `"format": "{SESSION_FORMAT}"`)',
            "/format" if isinstance(data, dict) else "",
            code="X411",
        )
    persist.check_schema(data, SESSION_SCHEMA, persist.SaveError, "X412")
    for number, name in enumerate(data["seats"]):
        if name != HUMAN and not agents.known(name):
            raise persist.SaveError(
                f"`{name}` is not an agent; agents: {HUMAN}, {agents.names()}",
                persist.pointer(["seats", number]),
                code="X416",
            )


def load_session_game(rules, data: dict) -> Game:
    """The game of a checked session, checked against the pack and itself (Game.from_save); errors
    point into the session file (`/game/...`)."""
    try:
        game = Game.from_save(rules, data["game"])
    except persist.SaveError as exc:
        raise persist.SaveError(exc.message, "/game" + exc.pointer, exc.line, exc.col, code=exc.code) from None
    if len(data["seats"]) != len(game.players):
        raise persist.SaveError(
            f"{len(data['seats'])} seats for a game of {len(game.players)} players", "/seats", code="X415"
        )
    return game
