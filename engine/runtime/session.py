"""Playing whole games with agents, and the game log that replays one exactly.

A log is the setup (pack, players, seed) plus every answer in order, chance included, and the
final state's hash; replaying it must reach the same hash.
"""
from __future__ import annotations

from pathlib import Path

from .game import CHANCE, Game, GameError

LOG_FORMAT = "knap-log/1"


def play(rules, players: int, seed: int, agents: list, *, max_rounds: int = 500, on_step=None,
         oracle=None, watcher=None) -> Game:
    """Play one game to its end. `agents[i]` plays seat i+1; chance uses the game's own random stream,
    except oracles when an `oracle` agent (the person at the table) is given."""
    return play_out(Game.new(rules, players, seed, max_rounds=max_rounds), agents, on_step=on_step,
                    oracle=oracle, watcher=watcher)


def play_out(game: Game, agents: list, *, on_step=None, oracle=None, watcher=None) -> Game:
    """Play an existing game to its end (the caller keeps the game, even when a rule fails half-way).
    `oracle` answers the physical outcomes (`oracle` decisions), seeing the table as `watcher` does."""
    seats = {p: agents[i] for i, p in enumerate(game.state["players"])}
    while not game.over:
        decision = game.decision
        if decision is None:
            raise GameError("the game stopped without a decision")
        if decision.is_chance:
            if oracle is not None and decision.kind == "oracle":
                game.apply(oracle.act(oracle_view(game, watcher), decision.legal), CHANCE)
                if on_step is not None:
                    on_step(game)
            else:
                game.apply_chance()
            continue
        player = decision.players[0]
        agent = seats[player]
        legal = game.legal(player)
        view = game.view(player) if getattr(agent, "needs_view", True) else {"you": player}
        model_seed = len(game.state["history"])
        option = agent.act(view, legal, lambda p=player, s=model_seed: game.determinized(p, s))
        game.apply(option, player)
        if on_step is not None:
            on_step(game)
    return game


def oracle_view(game: Game, watcher=None) -> dict:
    """What the person answering an oracle sees: the table as `watcher` (or the first seat) sees it, and
    the question with every outcome."""
    from .views import option_label
    view = game.view(watcher or game.state["players"][0])
    pending = game.state["pending"]
    view["decision"] = {"prompt": f"At the table: {pending.get('prompt', '')}", "kind": "oracle",
                        "options": [{"key": k, "label": option_label(game, pending, pending["options"][k], None)}
                                    for k in game.decision.legal]}
    return view


def play_randomly(game: Game, rnd, *, after=None, limit: int | None = None) -> int:
    """Answer uniformly at random with `rnd` (chance from the game's own stream) until the game is over or
    `limit` answers were given; `after(game)` runs after each step. Returns the answers given. Tests, the
    soak and the benchmark all play this way, so their games are the same games."""
    made = 0
    while not game.over and (limit is None or made < limit):
        decision = game.decision
        if decision.is_chance:
            game.apply_chance()
        else:
            player = decision.players[0]
            legal = game.legal(player)
            game.apply(legal[rnd.randrange(len(legal))], player)
            made += 1
        if after is not None:
            after(game)
    return made


def game_log(game: Game, *, agents=()) -> dict:
    state = game.state
    return {"format": LOG_FORMAT, "pack": game.rules.pack_id, "pack_path": str(game.rules.root),
            "players": len(state["players"]), "seed": state["seed"],
            "max_rounds": state["max_turns"] // (1 if game.rules.in_rounds else len(state["players"])),
            "agents": list(agents),
            "decisions": state["history"], "result": state["result"], "final_hash": game.state_hash()}


def write_log(game: Game, path: Path, *, agents=()):
    """Write the game's log whole or not at all; raises `atomic.WriteError` naming the path."""
    write_log_data(game_log(game, agents=agents), path)


def write_log_data(log: dict, path: Path):
    from . import persist
    persist.write_json(path, log, indent=1)


def write_logs(logs_dir, outcomes) -> None:
    """Write the logs that simulated games kept (`outcome["log"]`) as `logs_dir/seed-N.json`, each whole or
    not at all. A file that cannot be written does not stop the others: its outcome gets `log_error`,
    the sentence saying which path failed and why."""
    from ..atomic import WriteError
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
    from .persist import LogError, check_log, pointer
    check_log(log)
    if log["pack"] != rules.pack_id:
        raise LogError(f"the log is of the pack `{log['pack']}`, not `{rules.pack_id}`", "/pack")
    low, high = rules.players
    if not low <= log["players"] <= high:
        raise LogError(f"this pack is for {low} to {high} players, not {log['players']}", "/players")
    game = Game.new(rules, log["players"], log["seed"], max_rounds=log.get("max_rounds", 500))
    for number, (player, option) in enumerate(log["decisions"]):
        try:
            game.apply(option, player if player != CHANCE else CHANCE)
        except GameError as exc:
            raise LogError(f"the log does not replay: decision {number + 1} ({player} answers {option}): {exc}",
                           pointer(["decisions", number])) from None
    return game
