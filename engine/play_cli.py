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
    play.add_argument("--oracle", choices=["model", "ask"], default="model",
                      help="who decides physical outcomes (did the tower stand?): the pack's probability model, "
                      "or the person at the table, asked at the terminal (`ask`)")
    _add_answer_limit(play)

    sim = sub.add_parser("sim", help="simulate many games for balance", description=(
        "Play N seeded games with bots and summarise: win rate per seat and agent with 95 % confidence "
        "intervals, the score distribution, game length and how games ended. With --compare, play two "
        "packs (two variants of a game) with the same seeds and show their differences."))
    sim.add_argument("pack", nargs="?", help="a pack folder or built-in pack id")
    sim.add_argument("--compare", nargs=2, metavar=("PACK_A", "PACK_B"),
                     help="instead of PACK: play both packs with the same seeds, agents and player count "
                     "(default: the smallest both allow) and show B − A with 95 %% intervals")
    sim.add_argument("-n", "--games", type=int, default=100)
    sim.add_argument("--players", type=int, default=None)
    sim.add_argument("--agents", default="random", help="agents by seat, comma-separated, repeated as needed")
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--jobs", "-j", type=int, default=None, help="worker processes (default: cores)")
    sim.add_argument("--max-rounds", type=int, default=500,
                     help="stop a game after this many rounds; it is reported as stalled, with its seed")
    _add_answer_limit(sim)
    sim.add_argument("--logs", metavar="DIR", help="write the logs of stalled games and of games that ended in an "
                     "error here, to replay them with `knap replay`")
    sim.add_argument("--json", metavar="FILE", help="also write the summary as JSON (with --compare: "
                     "{\"a\": summary, \"b\": summary, \"differences\": ...})")

    replay = sub.add_parser("replay", help="replay a game log and check its final state", description=(
        "Replay a game log and check that it reaches the final state it records, or check that a saved game "
        "(`Game.save`) loads. Either file may come from anyone: a bad one is reported in one line (the file, "
        "where in it, what is wrong) with exit 1."))
    replay.add_argument("log", metavar="FILE", help="a game log written by `knap play` or `knap sim --logs`, "
                        "or a saved game")
    replay.add_argument("--pack", help="the pack folder or id (a log's own pack folder is used only when it lies inside the working folder or the log's folder)")
    replay.add_argument("--show", action="store_true", help="print the log of the replayed game")


def _add_answer_limit(parser):
    from .runtime.budget import MAX_ANSWERS_PER_TURN
    parser.add_argument("--max-answers-per-turn", type=int, default=MAX_ANSWERS_PER_TURN, metavar="N",
                        help="stop a game whose turn (or round) goes on for more than N answers without ending; "
                        f"it is reported as stalled, with its seed (default: {MAX_ANSWERS_PER_TURN})")


def _load_pack(name: str):
    from .cli import pack_target
    from .runtime.rules import PackError, load

    target = pack_target(name)
    if target is None:
        return None
    try:
        return load(target)
    except PackError as exc:
        from . import report
        lines = exc.positions.source_lines if exc.positions is not None else (lambda _p: [])
        print(report.text(exc.diagnostics, lines), file=sys.stderr)
        print(f"knap: the pack `{name}` has errors; fix them (see `knap lint {name}`) before playing",
              file=sys.stderr)
        raise SystemExit(1)     # a content error, not a usage error (cli.main turns this into the exit code)


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
    from .runtime import agents, session
    from .runtime.errors import ContentError
    from .runtime.game import Game, GameError, Stalled
    from .runtime.terminal import HumanAgent, render
    from .safe_text import console as safe_console, markup, plain

    loaded = _pack_and_players(args)
    if loaded is None:
        return EXIT_USAGE
    rules, players = loaded
    bad = [s for s in args.human if not 1 <= s <= players]
    if bad:
        print(f"knap: --human takes a seat from 1 to {players}", file=sys.stderr)
        return EXIT_USAGE
    console = safe_console()
    seats = []
    for seat in range(1, players + 1):
        seats.append(HumanAgent(console) if seat in args.human else agents.make(args.bots, args.seed * 31 + seat))
    shown = [0]
    watcher = f"P{args.human[0]}" if args.human else None

    def narrate(game):   # bots' moves, as the person (or a spectator of seat 1 with bots only) may read them
        lines = game.log_for(watcher or "P1")
        for line in lines[shown[0]:]:
            if not args.human:
                console.print(f"[dim]{markup(line)}[/dim]")
        shown[0] = len(lines)

    try:
        oracle = None
        if args.oracle == "ask":     # the person at the table; the same one who plays a seat, if any
            oracle = next((s for s in seats if isinstance(s, HumanAgent)), None) or HumanAgent(console)
        game = Game.new(rules, players, args.seed, max_answers_per_turn=args.max_answers_per_turn)
        session.play_out(game, seats, on_step=narrate, oracle=oracle, watcher=watcher)
    except KeyboardInterrupt:
        console.print("\nGame abandoned.")
        return EXIT_CLEAN
    except Stalled as exc:          # the log replays the game up to the stall
        log_path = Path(args.log or f"knap-game-{args.seed}.json")
        if not _write_game_log(game, log_path, seats):
            return EXIT_FINDINGS
        print(f"knap: the game stalled (seed {args.seed}): {plain(str(exc))}; its log is in {plain(str(log_path))} "
              f"(`knap replay {plain(str(log_path))} --show`)", file=sys.stderr)
        return EXIT_FINDINGS
    except (ContentError, GameError) as exc:
        print(f"knap: the game cannot go on: {plain(rules.describe(exc))}", file=sys.stderr)
        return EXIT_FINDINGS
    render(game.view(watcher or "P1"), console, log_lines=6)
    result = game.state["result"]
    scores = ", ".join(f"{p}: {v}" for p, v in result["scores"].items())
    console.print(f"[bold]Winner(s): {markup(', '.join(result['winners']) or 'none')}[/bold] "
                  f"({markup(result['reason'])})" + (f" — {markup(scores)}" if scores else ""))
    log_path = Path(args.log or f"knap-game-{args.seed}.json")
    if not _write_game_log(game, log_path, seats):
        return EXIT_FINDINGS
    console.print(markup(f"Log written to {log_path} (check it with `knap replay {log_path}`)."))
    return EXIT_CLEAN


def _agent_names(args):
    """The agents by seat, or None once the reason has been printed (so is a bad -n)."""
    from .runtime import agents

    names = [n.strip() for n in args.agents.split(",") if n.strip()]
    unknown = [n for n in names if n not in agents.AGENTS]
    if unknown or not names:
        print(f"knap: unknown agent `{(unknown or [''])[0]}`; agents: {', '.join(agents.AGENTS)}", file=sys.stderr)
        return None
    if args.games < 1:
        print("knap: -n needs at least 1 game", file=sys.stderr)
        return None
    return names


def sim(args) -> int:
    from rich.progress import Progress

    from .runtime import sim as simulation
    from .safe_text import console as safe_console, markup

    if args.compare and args.pack:
        print(f"knap: give either a PACK or --compare PACK_A PACK_B, not both (`{args.pack}` and --compare)",
              file=sys.stderr)
        return EXIT_USAGE
    if not args.compare and not args.pack:
        print("knap: sim needs a PACK, or --compare PACK_A PACK_B", file=sys.stderr)
        return EXIT_USAGE
    if args.compare:
        return sim_compare(args)
    loaded = _pack_and_players(args)
    if loaded is None:
        return EXIT_USAGE
    rules, players = loaded
    names = _agent_names(args)
    if names is None:
        return EXIT_USAGE
    console = safe_console(stderr=True)
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task(f"{markup(rules.pack_id)}, {players} players", total=args.games)
        summary = simulation.run(rules, args.games, players, names, args.seed, args.jobs, args.max_rounds,
                                 progress=lambda: progress.advance(task), logs_dir=args.logs,
                                 max_answers_per_turn=args.max_answers_per_turn)
    print_summary(summary, safe_console())
    written = _logs_written(summary) & (not args.json or _write_json(args.json, summary))
    return EXIT_FINDINGS if summary["errors"] or not written else EXIT_CLEAN


def sim_compare(args) -> int:
    """`knap sim --compare PACK_A PACK_B`: the same seeds, agents and player count for both packs."""
    from rich.progress import Progress

    from .runtime import sim as simulation
    from .safe_text import console as safe_console, markup

    labels = list(args.compare)
    packs = []
    for name in labels:
        rules = _load_pack(name)
        if rules is None:
            return EXIT_USAGE
        packs.append(rules)
    (low_a, high_a), (low_b, high_b) = packs[0].players, packs[1].players
    low, high = max(low_a, low_b), min(high_a, high_b)
    if low > high:
        print(f"knap: `{labels[0]}` is for {low_a} to {high_a} players and `{labels[1]}` for {low_b} to {high_b}: "
              "no player count in common", file=sys.stderr)
        return EXIT_USAGE
    players = args.players if args.players is not None else low
    for name, (first, last) in zip(labels, (packs[0].players, packs[1].players), strict=True):
        if not first <= players <= last:
            print(f"knap: `{name}` is for {first} to {last} players, not {players}", file=sys.stderr)
            return EXIT_USAGE
    names = _agent_names(args)
    if names is None:
        return EXIT_USAGE
    with Progress(console=safe_console(stderr=True), transient=True) as progress:
        tasks = {side: progress.add_task(f"{side.upper()}: {markup(label)}, {players} players", total=args.games)
                 for side, label in zip("ab", labels, strict=True)}
        comparison = simulation.compare(packs[0], packs[1], args.games, players, names, args.seed, args.jobs,
                                        args.max_rounds, progress=lambda side: progress.advance(tasks[side]),
                                        logs_dir=args.logs, max_answers_per_turn=args.max_answers_per_turn)
    print_comparison(comparison, labels, safe_console())
    written = _logs_written(comparison["a"]) & _logs_written(comparison["b"]) & \
        (not args.json or _write_json(args.json, comparison))
    return EXIT_FINDINGS if comparison["a"]["errors"] or comparison["b"]["errors"] or not written else EXIT_CLEAN


def _write_game_log(game, path, seats) -> bool:
    """Write a played game's log; False once a failed write has been reported (the path and why)."""
    from .atomic import WriteError
    from .runtime import session
    from .safe_text import plain
    try:
        session.write_log(game, path, agents=[getattr(s, "name", "?") for s in seats])
    except WriteError as exc:
        print(f"knap: {plain(exc)}; the game's log is lost", file=sys.stderr)
        return False
    return True


def _write_json(path, data) -> bool:
    """`--json FILE`, whole or not at all; False once a failed write has been reported."""
    from .atomic import WriteError, write_text
    from .safe_text import plain
    try:
        write_text(path, json.dumps(data, indent=2) + "\n")
    except WriteError as exc:
        print(f"knap: {plain(exc)}", file=sys.stderr)
        return False
    return True


def _logs_written(summary) -> bool:
    """Report each `--logs` file that could not be written (the others are kept); False if any."""
    from .safe_text import plain
    for problem in dict.fromkeys(summary.get("log_errors", [])):     # a folder that cannot be made: once
        print(f"knap: {plain(problem)}", file=sys.stderr)
    return not summary.get("log_errors")


def _signed(value, digits: int) -> str:
    return "—" if value is None else f"{value:+.{digits}f}"


def _interval(ci95, scale: float, digits: int) -> str:
    return "—" if ci95 is None else f"{ci95[0] * scale:+.{digits}f}, {ci95[1] * scale:+.{digits}f}"


def print_comparison(comparison, labels, console):
    """A table of B − A: win rates in %, with 95 % Wilson intervals per pack and Newcombe's interval of
    the difference (in percentage points); means with the normal interval of their difference; counts."""
    from rich import box
    from rich.table import Table

    from .safe_text import markup

    diff = comparison["differences"]
    for side, label in zip("ab", labels, strict=True):
        summary = comparison[side]
        shown = label if label.replace("-", "_") == summary["pack"] else f"{label} ({summary['pack']})"
        console.print(f"[bold]{side.upper()}[/bold] = {markup(shown)}: {summary['played']} of {summary['games']} games "
                      f"played, {summary['errors']} ended in an error", soft_wrap=True)
    first, last = diff["seeds"]
    console.print(f"{diff['players']} players ({', '.join(diff['agents'])}), seeds {first}–{last} for both")
    table = Table(title="B against A: B − A and its 95 % interval (win % in percentage points)",
                  box=box.SIMPLE_HEAD,
                  show_edge=False, pad_edge=False, collapse_padding=True, title_justify="left")
    for column in ("", "A", "B", "B − A", "95 % CI", "*"):
        table.add_column(column, justify="left" if column in ("", "*") else "right", no_wrap=bool(column))

    def rate_cell(rate):
        if rate["rate"] is None:
            return "—"
        return f"{rate['rate'] * 100:.1f}\n[dim]{rate['ci95'][0] * 100:.1f}–{rate['ci95'][1] * 100:.1f}[/dim]"

    def rate_row(title, row, end_section=False):
        difference = None if row["difference"] is None else row["difference"] * 100
        table.add_row(title, rate_cell(row["a"]), rate_cell(row["b"]), _signed(difference, 1),
                      _interval(row["ci95"], 100, 1), "*" if row["significant"] else "", end_section=end_section)

    def mean_row(title, row, end_section=False):
        def cell(sample):
            return "—" if sample["mean"] is None else f"{sample['mean']:.2f}"
        table.add_row(title, cell(row["a"]), cell(row["b"]), _signed(row["difference"], 2),
                      _interval(row["ci95"], 1, 2), "*" if row["significant"] else "", end_section=end_section)

    def count_row(title, row, end_section=False):
        table.add_row(title, str(row["a"]), str(row["b"]), f"{row['difference']:+d}", "", "",
                      end_section=end_section)

    mixed = len(set(diff["agents"])) > 1
    for i, seat in enumerate(diff["seats"]):
        title = f"{seat['seat']} win %" + (f" ({seat['agent']})" if mixed else "")
        rate_row(title, seat, end_section=i == len(diff["seats"]) - 1)
    mean_row("turns (mean)", diff["turns"])
    final = diff["final"]
    if final["measure"] == "mean_score":
        counters = {final["counter"]["a"], final["counter"]["b"]}
        mean_row(f"final {' / '.join(sorted(counters))} (mean/player)", final, end_section=True)
    else:
        rate_row("games with a winner %", final, end_section=True)
    for reason, row in diff["endings"].items():
        count_row(f"ended: {markup(reason)}", row)
    count_row("stalled", diff["stalled"])
    count_row("errors", diff["errors"])
    console.print(table)
    console.print("* the 95 % interval of B − A excludes 0: unlikely to be chance alone", soft_wrap=True)
    for side in "ab":
        summary = comparison[side]
        for sample in summary["error_samples"]:
            console.print(f"[red]{side.upper()}, seed {sample['seed']}: {markup(sample['error'])}[/red]",
                          soft_wrap=True)
        if summary["stalled"]["count"]:
            console.print(f"[yellow]{side.upper()}: {summary['stalled']['count']} game(s) stalled (at the round "
                          f"limit, or in a turn that never ended); seeds: "
                          f"{', '.join(map(str, summary['stalled']['seeds']))}[/yellow]")
        for sample in summary.get("stall_samples", []):
            console.print(f"[yellow]{side.upper()}, seed {sample['seed']}: {markup(sample['why'])}[/yellow]",
                          soft_wrap=True)


def _figure(value) -> str:
    """A number of the summary as printed: a huge one (a content bug) shortened, none as a dash."""
    if value is None:
        return "—"
    text = str(value)
    return text if len(text) <= 15 else f"{text[:6]}… ({len(text.lstrip('-'))} digits)"


def print_summary(summary, console):
    from rich.table import Table

    from .safe_text import markup

    console.print(f"[bold]{markup(summary['pack'])}[/bold]: {summary['played']} of {summary['games']} games played, "
                  f"{summary['errors']} ended in an error; {summary['players']} player{'s' if summary['players'] != 1 else ''}, seed {summary['seed']}")
    counter = summary["score_counter"]      # None: a game won or lost, with no score (a solo game)
    score_columns = ("mean", "sd", "min", "median", "max") if counter else ()
    table = Table(title="Win rate by seat (shared wins split; 95 % Wilson interval)"
                  + (f" and final {counter}" if counter else ""))
    for column in ("seat", "agent", "wins", "win %", "95 % CI", *score_columns):
        table.add_column(column, justify="right")
    for row in summary["seats"]:
        score = row["score"] or {}
        table.add_row(row["seat"], row["agent"], f"{row['wins']:g}", f"{row['win_rate']:.1%}",
                      f"{row['ci95'][0] * 100:.1f}–{row['ci95'][1] * 100:.1f}",
                      *[_figure(score.get(k, "")) for k in score_columns])
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
    console.print("How games ended: " + (", ".join(f"{markup(k)} {v}" for k, v in summary["endings"].items()) or "—"))
    distribution = summary["score_distribution"]
    if distribution:
        console.print("Final scores (value: how often): " + ", ".join(f"{_figure(k)}: {v}"
                                                                     for k, v in distribution.items()))
    stalled = summary["stalled"]
    if stalled["count"]:
        console.print(f"[yellow]{stalled['count']} game(s) stalled at the round limit or in a turn that never "
                      f"ended (a content bug: see docs/playing.md); seeds: {', '.join(map(str, stalled['seeds']))}"
                      "[/yellow]")
    for sample in summary.get("stall_samples", []):
        console.print(f"[yellow]seed {sample['seed']}: {markup(sample['why'])}[/yellow]", soft_wrap=True)
    for sample in summary["error_samples"]:
        console.print(f"[red]seed {sample['seed']}: {markup(sample['error'])}[/red]", soft_wrap=True)  # one line


def replay(args) -> int:
    """`knap replay FILE`: a game log is replayed and its final state checked; a saved game is loaded and
    checked. Either may come from a stranger: a bad file is one line (the file, where in it, what is
    wrong) and exit 1; a missing file is a usage error (exit 2)."""
    from .runtime import persist, session
    from .runtime.errors import ContentError
    from .runtime.game import GameError
    from .safe_text import plain

    name = plain(args.log)
    try:
        data = persist.read(args.log)
    except FileNotFoundError:
        print(f"knap: {name}: no such file", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"knap: cannot read {name}: {plain(exc.strerror or exc)}", file=sys.stderr)
        return EXIT_FINDINGS
    except persist.RecordError as exc:
        return _bad_record(name, exc)
    kind = persist.kind_of(data)
    if kind is None:
        print(f"knap: {name}: this is not a Knapper game log (nor a saved game): it has no "
              f"`\"format\": \"{session.LOG_FORMAT}\"`", file=sys.stderr)
        return EXIT_FINDINGS
    try:
        (persist.check_log if kind == "log" else persist.check_save_schema)(data)
    except persist.RecordError as exc:
        return _bad_record(name, exc)
    pack = args.pack or (_recorded_pack(data.get("pack_path"), name) if kind == "log" else None) or data["pack"]
    rules = _load_pack(str(pack))
    if rules is None:
        return EXIT_USAGE
    if kind == "save":
        return _check_save(name, rules, data)
    try:
        game = session.replay(rules, data)
    except persist.RecordError as exc:
        return _bad_record(name, exc)
    except (GameError, ContentError) as exc:
        print(f"knap: {name}: the log does not replay: {plain(rules.describe(exc))}", file=sys.stderr)
        return EXIT_FINDINGS
    if args.show:
        for line in game.log_for(None):
            print(plain(line))
    actual = game.state_hash()
    if actual != data["final_hash"]:
        print(f"knap: {name}: the replayed game differs from the log: final state {actual[:16]}…, "
              f"the log says {data['final_hash'][:16]}…", file=sys.stderr)
        return EXIT_FINDINGS
    print(f"{name}: {len(data['decisions'])} decisions replayed; final state matches ({actual[:16]}…)")
    return EXIT_CLEAN


def _recorded_pack(pack_path, log_name: str) -> str | None:
    """The pack folder a log names, trusted only inside the roots knap was given: the working folder or
    the log's own folder (a log from a stranger must not make knap read a folder elsewhere). Otherwise
    None, and the pack is looked up by the log's pack id (`--pack` names another)."""
    if not isinstance(pack_path, str) or not pack_path:
        return None
    roots = [Path.cwd().resolve(), Path(log_name).resolve().parent]
    folder = Path(pack_path) if Path(pack_path).is_absolute() else Path.cwd() / pack_path
    folder = folder.resolve()
    if folder.is_dir() and any(folder.is_relative_to(root) for root in roots):
        return str(folder)
    print("knap: the log's pack folder lies outside the working folder and the log's folder, so it is not read; "
          "the pack is looked up by its id (name its folder with --pack)", file=sys.stderr)
    return None


def _bad_record(name: str, exc) -> int:
    """One line for a log or save that cannot be used: `FILE:LINE:COL: ...` or `FILE: /pointer: ...`."""
    from .safe_text import plain
    where = f"{name}:{exc.where}" if exc.line else f"{name}: {exc.where}" if exc.where else name
    print(f"knap: {where}: {plain(exc.message)}", file=sys.stderr)
    return EXIT_FINDINGS


def _check_save(name: str, rules, state) -> int:
    from .runtime import persist
    from .runtime.errors import ContentError
    from .safe_text import plain
    try:
        game = persist.load_game(rules, state, schema_checked=True)
    except persist.RecordError as exc:
        return _bad_record(name, exc)
    except ContentError as exc:
        print(f"knap: {name}: the saved game cannot go on: {plain(rules.describe(exc))}", file=sys.stderr)
        return EXIT_FINDINGS
    turn = game.state["turn"]
    if game.over:
        what = "the game is over"
    else:
        decision = game.decision
        what = f"{', '.join(decision.players)} to answer ({decision.kind})"
    print(f"{name}: a saved game of `{rules.pack_id}`, {len(game.state['players'])} players, turn {turn['number']}, "
          f"{len(game.state['history'])} answers in; it loads: {what} ({game.state_hash()[:16]}…)")
    return EXIT_CLEAN
