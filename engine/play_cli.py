"""`knap play`, `knap sim` and `knap replay`: the runtime from the command line."""
from __future__ import annotations

import json
import sys
from pathlib import Path

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def add_commands(sub):
    play = sub.add_parser("play", help="play a game in the terminal against bots", description=(
        "Play a pack at the terminal. Seats without a person are played by bots. The game's log is saved "
        "so that `knap replay` can check it."))
    play.add_argument("pack", help="a pack folder or built-in pack id")
    play.add_argument("--players", type=int, default=None, help="how many players (default: the pack's minimum)")
    play.add_argument("--human", type=int, action="append", default=[], metavar="SEAT",
                      help="a seat played by a person at this terminal (repeatable; default: none)")
    play.add_argument("--bots", default="greedy", help="agent for the other seats: random or greedy")
    play.add_argument("--seed", type=int, default=0)
    play.add_argument("--log", metavar="FILE", help="write the game log here (default: knap-game-SEED.json)")

    sim = sub.add_parser("sim", help="simulate many games for balance", description=(
        "Play N seeded games with bots and summarise: win rate per seat and agent with 95 % confidence "
        "intervals, the score distribution, game length and how games ended."))
    sim.add_argument("pack", help="a pack folder or built-in pack id")
    sim.add_argument("-n", "--games", type=int, default=100)
    sim.add_argument("--players", type=int, default=None)
    sim.add_argument("--agents", default="random", help="agents by seat, comma-separated, repeated as needed")
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--jobs", "-j", type=int, default=None, help="worker processes (default: cores)")
    sim.add_argument("--max-rounds", type=int, default=500,
                     help="stop a game after this many rounds; it is reported as stalled, with its seed")
    sim.add_argument("--logs", metavar="DIR", help="write the logs of stalled games and of games that ended in an "
                     "error here, to replay them with `knap replay`")
    sim.add_argument("--json", metavar="FILE", help="also write the summary as JSON")

    replay = sub.add_parser("replay", help="replay a game log and check its final state")
    replay.add_argument("log", help="a game log written by `knap play` (or a simulation)")
    replay.add_argument("--pack", help="the pack folder, when it has moved since the game was played")
    replay.add_argument("--show", action="store_true", help="print the log of the replayed game")


def _load_pack(name: str):
    from .packs import resolve_target
    from .runtime.rules import PackError, load

    target = resolve_target(name)
    if target is None or not (target / "pack.yaml").is_file():
        print(f"knap: `{name}` is not a pack folder or a built-in pack id", file=sys.stderr)
        return None
    try:
        return load(target)
    except PackError as exc:
        from . import report
        lines = exc.positions.source_lines if exc.positions is not None else (lambda _p: [])
        print(report.text(exc.diagnostics, lines), file=sys.stderr)
        print(f"knap: the pack `{name}` has errors; fix them (see `knap lint {name}`) before playing",
              file=sys.stderr)
        return None


def _pack_and_players(args):
    """The pack to play and how many play it, or None once the reason has been printed."""
    rules = _load_pack(args.pack)
    if rules is None:
        return None
    low, high = rules.players
    players = args.players or low
    if not low <= players <= high:
        print(f"knap: `{rules.pack_id}` is for {low} to {high} players, not {players}", file=sys.stderr)
        return None
    return rules, players


def play(args) -> int:
    from rich.console import Console

    from .runtime import agents, session
    from .runtime.errors import ContentError
    from .runtime.game import GameError
    from .runtime.terminal import HumanAgent, render

    loaded = _pack_and_players(args)
    if loaded is None:
        return EXIT_USAGE
    rules, players = loaded
    bad = [s for s in args.human if not 1 <= s <= players]
    if bad:
        print(f"knap: --human takes a seat from 1 to {players}", file=sys.stderr)
        return EXIT_USAGE
    console = Console()
    seats = []
    for seat in range(1, players + 1):
        seats.append(HumanAgent(console) if seat in args.human else agents.make(args.bots, args.seed * 31 + seat))
    shown = [0]
    watcher = f"P{args.human[0]}" if args.human else None

    def narrate(game):   # bots' moves, as the person (or a spectator of seat 1 with bots only) may read them
        lines = game.log_for(watcher or "P1")
        for line in lines[shown[0]:]:
            if not args.human:
                console.print(f"[dim]{line}[/dim]")
        shown[0] = len(lines)

    try:
        game = session.play(rules, players, args.seed, seats, on_step=narrate)
    except KeyboardInterrupt:
        console.print("\nGame abandoned.")
        return EXIT_CLEAN
    except (ContentError, GameError) as exc:
        print(f"knap: the game cannot go on: {rules.describe(exc)}", file=sys.stderr)
        return EXIT_FINDINGS
    render(game.view(watcher or "P1"), console, log_lines=6)
    result = game.state["result"]
    console.print(f"[bold]Winner(s): {', '.join(result['winners']) or 'none'}[/bold] — "
                  + ", ".join(f"{p}: {v}" for p, v in result["scores"].items()))
    log_path = Path(args.log or f"knap-game-{args.seed}.json")
    session.write_log(game, log_path, agents=[getattr(s, "name", "?") for s in seats])
    console.print(f"Log written to {log_path} (check it with `knap replay {log_path}`).")
    return EXIT_CLEAN


def sim(args) -> int:
    from rich.console import Console
    from rich.progress import Progress

    from .runtime import agents, sim as simulation

    loaded = _pack_and_players(args)
    if loaded is None:
        return EXIT_USAGE
    rules, players = loaded
    names = [n.strip() for n in args.agents.split(",") if n.strip()]
    unknown = [n for n in names if n not in agents.AGENTS]
    if unknown or not names:
        print(f"knap: unknown agent `{(unknown or [''])[0]}`; agents: {', '.join(agents.AGENTS)}", file=sys.stderr)
        return EXIT_USAGE
    if args.games < 1:
        print("knap: -n needs at least 1 game", file=sys.stderr)
        return EXIT_USAGE
    console = Console(stderr=True)
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task(f"{rules.pack_id}, {players} players", total=args.games)
        summary = simulation.run(rules, args.games, players, names, args.seed, args.jobs, args.max_rounds,
                                 progress=lambda: progress.advance(task), logs_dir=args.logs)
    print_summary(summary, Console())
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return EXIT_FINDINGS if summary["errors"] else EXIT_CLEAN


def print_summary(summary, console):
    from rich.table import Table

    console.print(f"[bold]{summary['pack']}[/bold]: {summary['played']} of {summary['games']} games played, "
                  f"{summary['errors']} ended in an error; {summary['players']} players, seed {summary['seed']}")
    counter = summary["score_counter"] or "score"
    table = Table(title=f"Win rate by seat (shared wins split; 95 % Wilson interval) and final {counter}")
    for column in ("seat", "agent", "wins", "win %", "95 % CI", "mean", "sd", "min", "median", "max"):
        table.add_column(column, justify="right")
    for row in summary["seats"]:
        score = row["score"] or {}
        table.add_row(row["seat"], row["agent"], f"{row['wins']:g}", f"{row['win_rate']:.1%}",
                      f"{row['ci95'][0] * 100:.1f}–{row['ci95'][1] * 100:.1f}",
                      *[str(score.get(k, "")) for k in ("mean", "sd", "min", "median", "max")])
    console.print(table)
    if len(summary["per_agent"]) > 1:
        agents_table = Table(title="Win rate by agent")
        for column in ("agent", "seat-games", "wins", "win %", "95 % CI"):
            agents_table.add_column(column, justify="right")
        for name, row in summary["per_agent"].items():
            agents_table.add_row(name, str(row["seat_games"]), f"{row['wins']:g}", f"{row['win_rate']:.1%}",
                                 f"{row['ci95'][0] * 100:.1f}–{row['ci95'][1] * 100:.1f}")
        console.print(agents_table)
    turns, decisions = summary["turns"], summary["decisions"]
    if turns:
        console.print(f"Game length: {turns['mean']} turns on average (sd {turns['sd']}, {turns['min']}–"
                      f"{turns['max']}); {decisions['mean']} decisions on average")
    console.print("How games ended: " + (", ".join(f"{k} {v}" for k, v in summary["endings"].items()) or "—"))
    distribution = summary["score_distribution"]
    if distribution:
        console.print("Final scores (value: how often): " + ", ".join(f"{k}: {v}" for k, v in distribution.items()))
    stalled = summary["stalled"]
    if stalled["count"]:
        console.print(f"[yellow]{stalled['count']} game(s) stalled at the round limit (a content bug: see "
                      f"docs/playing.md); seeds: {', '.join(map(str, stalled['seeds']))}[/yellow]")
    for sample in summary["error_samples"]:
        console.print(f"[red]seed {sample['seed']}: {sample['error']}[/red]")


def replay(args) -> int:
    from .runtime import session
    from .runtime.errors import ContentError
    from .runtime.game import GameError

    try:
        log = json.loads(Path(args.log).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        print(f"knap: cannot read the log {args.log}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if not isinstance(log, dict) or log.get("format") != session.LOG_FORMAT:
        print(f"knap: {args.log} is not a Knapper game log", file=sys.stderr)
        return EXIT_USAGE
    pack = args.pack or log.get("pack_path") or log.get("pack")
    if not Path(str(pack)).is_dir():
        pack = log.get("pack")
    rules = _load_pack(str(pack))
    if rules is None:
        return EXIT_USAGE
    try:
        game = session.replay(rules, log)
    except (GameError, ContentError) as exc:
        print(f"knap: the log does not replay: {rules.describe(exc)}", file=sys.stderr)
        return EXIT_FINDINGS
    if args.show:
        for line in game.log_for(None):
            print(line)
    actual = game.state_hash()
    if actual != log.get("final_hash"):
        print(f"knap: the replayed game differs from the log: final state {actual[:16]}…, "
              f"the log says {str(log.get('final_hash'))[:16]}…", file=sys.stderr)
        return EXIT_FINDINGS
    print(f"{args.log}: {len(log['decisions'])} decisions replayed; final state matches ({actual[:16]}…)")
    return EXIT_CLEAN
