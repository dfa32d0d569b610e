"""`knap play`, `knap sim` and `knap replay`: the runtime from the command line."""

from __future__ import annotations

import json
import math
import shlex
import sys
from contextlib import contextmanager
from pathlib import Path

from rich import box
from rich.progress import Progress
from rich.table import Table

from engine import report
from engine.balance import runs
from engine.content.packs import resolve_target
from engine.files.atomic import WriteError, write_text
from engine.report import quoted
from engine.runtime import agents, persist, session
from engine.runtime import rules as pack_rules
from engine.runtime import sim as simulation
from engine.runtime.error_codes import coded, hint_for
from engine.runtime.errors import ContentError
from engine.runtime.game import Game, GameError, Stalled
from engine.runtime.terminal import HandOver, HumanAgent, render
from engine.safe_text import console as safe_console
from engine.safe_text import markup, plain

from .options import text_console
from .targets import pack_target

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports it


def _load_pack(name: str):
    target = pack_target(name)
    if target is None:
        return None
    try:
        return pack_rules.load(target)
    except pack_rules.PackError as exc:
        lines = exc.positions.source_lines if exc.positions is not None else (lambda _p: [])
        print(report.text(exc.diagnostics, lines), file=sys.stderr)
        print(
            f"knap: {exc.code} the pack `{name}` has errors; fix them (see `knap lint {name}`) before playing",
            file=sys.stderr,
        )
        raise SystemExit(1) from None  # a content error, not a usage error (cli.main turns this into the exit code)


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
    """`knap play`: a new game, or (`--resume FILE`) a game saved when a person left it. Leaving (`q`,
    Ctrl-C, the end of input) saves the game beside its log and prints the command that resumes it."""
    console = safe_console()
    try:
        table = _resumed_table(args, console) if args.resume else _new_table(args, console)
    except KeyboardInterrupt:
        console.print("\nGame abandoned before it began.")
        return EXIT_CLEAN
    if isinstance(table, int):
        return table
    rules, game = table.rules, table.game
    seed, answered = game.seed, len(game.history)
    humans = [seat for seat, name in enumerate(table.seats, 1) if name == session.HUMAN]
    hand_over = HandOver() if len(humans) > 1 else None  # several people at one terminal: screens cleared between
    seats = [
        HumanAgent(console, hand_over=hand_over)
        if name == session.HUMAN
        else agents.make(name, _bot_seed(seed, seat, answered))
        for seat, name in enumerate(table.seats, 1)
    ]
    watcher = f"P{humans[0]}" if humans else None
    shown = [len(game.log_for(watcher or "P1")) if answered else 0]

    def narrate(game):  # bots' moves, as the person (or a spectator of seat 1 with bots only) may read them
        lines = game.log_for(watcher or "P1")
        for line in lines[shown[0] :]:
            if not humans:
                console.print(f"[dim]{markup(line)}[/dim]")
        shown[0] = len(lines)

    oracle = None
    if table.oracle == "ask":  # the person at the table; the same one who plays a seat, if any
        oracle = next((s for s in seats if isinstance(s, HumanAgent)), None) or HumanAgent(console, spectator=True)
    try:
        session.play_out(game, seats, on_step=narrate, oracle=oracle, watcher=watcher, interruptible=True)
    except KeyboardInterrupt:
        return _save_and_leave(game, table, console)
    except Stalled as exc:  # the log replays the game up to the stall
        if not _write_game_log(game, table.log_path, table.seats):
            return EXIT_FINDINGS
        log_name = plain(str(table.log_path))
        print(
            f"knap: the game stalled (seed {seed}): {exc.code} {plain(str(exc))}; its log is in {log_name} "
            f"(`knap replay {log_name} --show`)",
            file=sys.stderr,
        )
        _hint(exc)
        return EXIT_FINDINGS
    except (ContentError, GameError) as exc:  # the log replays the game up to the failure, and fails there
        imagined = session.imagined_in(exc)
        _game_error("knap: the game cannot go on: " + imagined, rules, exc)
        if _write_game_log(game, table.log_path, table.seats):
            log_name = plain(str(table.log_path))
            shows = (
                (
                    "replays the game up to the decision the bot was making: the error is in a game it "
                    "imagined, not yet in this one"
                )
                if imagined
                else "shows what happened"
            )
            print(f"knap: its log is in {log_name} (`knap replay {log_name} --show` {shows})", file=sys.stderr)
        return EXIT_FINDINGS
    render(game.view(watcher or "P1"), console, log_lines=6, spectator=watcher is None)
    result = game.result
    scores = ", ".join(f"{p}: {v}" for p, v in result["scores"].items())
    console.print(
        f"[bold]Winner(s): {markup(', '.join(result['winners']) or 'none')}[/bold] "
        f"({markup(result['reason'])})" + (f" — {markup(scores)}" if scores else "")
    )
    if not _write_game_log(game, table.log_path, table.seats):
        return EXIT_FINDINGS
    console.print(markup(f"Log written to {table.log_path} (check it with `knap replay {table.log_path}`)."))
    return EXIT_CLEAN


class _Table:
    """A game ready to play at the terminal: who plays each seat (`human` or an agent's name), who decides
    physical outcomes, and where its log (and its save, if the person leaves) go."""

    def __init__(self, rules, game, seats, oracle, log_path, save_path):
        self.rules, self.game, self.seats, self.oracle = rules, game, seats, oracle
        self.log_path, self.save_path = Path(log_path), Path(save_path)


def _bot_seed(seed: int, seat: int, answered: int) -> int:
    """A bot's own random seed: from the game's seed and its seat, and, in a resumed game, how far the
    game had gone (a new game's bots are seeded as they always were)."""
    return seed * 31 + seat + answered * 1_000_003


def _new_table(args, console):
    """A new game from the command line, or the exit code once the reason has been printed."""
    if not args.pack:
        print("knap: play needs a PACK (or --resume FILE, to go on with a saved game)", file=sys.stderr)
        return EXIT_USAGE
    loaded = _pack_and_players(args)
    if loaded is None:
        return EXIT_USAGE
    rules, players = loaded
    bad = [s for s in args.human if not 1 <= s <= players]
    if bad:
        print(f"knap: --human takes a seat from 1 to {players}", file=sys.stderr)
        return EXIT_USAGE
    names = _agent_list(args.agents)
    if names is None:
        return EXIT_USAGE
    seed = args.seed if args.seed is not None else session.fresh_seed()
    seats = [session.HUMAN if seat in args.human else names[(seat - 1) % len(names)] for seat in range(1, players + 1)]
    log_path = Path(args.log or f"knap-game-{seed}.json")
    console.print(f"Seed {seed} — replay with --seed {seed}")
    try:
        game = Game.new(rules, players, seed, max_answers_per_turn=args.max_answers_per_turn)
    except (ContentError, GameError) as exc:
        _game_error("knap: the game cannot go on: ", rules, exc)
        return EXIT_FINDINGS
    return _Table(rules, game, seats, args.oracle, log_path, session.save_path_for(log_path))


def _resumed_table(args, console):
    """The game saved in `--resume FILE` (a file anyone may have written: checked like any save), or the
    exit code once the reason has been printed."""
    given = [
        option
        for option, value in (
            ("--seed", args.seed is not None),
            ("--players", args.players is not None),
            ("--human", bool(args.human)),
        )
        if value
    ]
    if given:
        print(
            f"knap: --resume goes on with the saved game's seats and seed; leave out {', '.join(given)}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    name = plain(args.resume)
    data, failed = _read_record(args.resume, name, persist.SaveError)
    if failed is not None:
        return failed
    opened = _open_session(name, data, args.pack, option="PACK")
    if isinstance(opened, int):
        return opened
    rules, game = opened
    game.max_answers_per_turn = data.get("max_answers_per_turn")
    turn = game.turn
    console.print(
        f"Resuming the game saved in {name}: seed {game.seed}, turn {turn['number']}, {len(game.history)} answers in"
    )
    log_path = Path(args.log) if args.log else session.log_path_for(args.resume)
    return _Table(rules, game, list(data["seats"]), data["oracle"], log_path, args.resume)


def _save_and_leave(game, table, console) -> int:
    """The person left (`q`, Ctrl-C, the end of input): save the game whole, beside its log, and say how
    to go on with it."""
    data = session.session_data(game, table.seats, oracle=table.oracle, max_answers_per_turn=game.max_answers_per_turn)
    try:
        with session.held_interrupts():
            session.write_session(table.save_path, data)
    except WriteError as exc:
        print(f"\nknap: {plain(exc)}; the game is not saved", file=sys.stderr)
        return EXIT_FINDINGS
    command = f"knap play --resume {shlex.quote(str(table.save_path))}"
    if not _pack_found_from(table.save_path, table.rules):
        command += f" {shlex.quote(str(table.rules.root))}"
    console.print(
        f"\nGame saved to {plain(str(table.save_path))} (turn {game.turn_number}).", markup=False, highlight=False
    )
    console.print(f"Resume it with: {plain(command)}", markup=False, highlight=False, soft_wrap=True)
    return EXIT_CLEAN


def _pack_found_from(save_path, rules) -> bool:
    """Whether `knap play --resume SAVE` alone finds the pack again (from the same working folder): its
    folder lies inside the working folder or the save's folder, or its id finds this very folder."""
    root = Path(rules.root).resolve()
    if any(root.is_relative_to(base) for base in (Path.cwd().resolve(), Path(save_path).resolve().parent)):
        return True
    return _found_by_id(rules.pack_id) == root


def _agent_list(text: str) -> list[str] | None:
    """`--agents A,B,...` as names, or None once an unknown one has been named with the known ones."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if not agents.known(n)]
    if unknown or not names:
        print(f"knap: unknown agent `{plain((unknown or [''])[0])}`; agents: {agents.names()}", file=sys.stderr)
        return None
    return names


def _agent_names(args):
    """The agents by seat, or None once the reason has been printed (so is a bad -n)."""
    names = _agent_list(args.agents)
    if names is None:
        return None
    if args.games < 1:
        print("knap: -n needs at least 1 game", file=sys.stderr)
        return None
    return names


def sim(args) -> int:
    if args.compare and args.pack:
        print(
            f"knap: give either a PACK or --compare PACK_A PACK_B, not both (`{args.pack}` and --compare)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if not args.compare and not args.pack:
        print("knap: sim needs a PACK, or --compare PACK_A PACK_B", file=sys.stderr)
        return EXIT_USAGE
    problem = _run_options_problem(args)
    if problem:
        print(f"knap: {problem}", file=sys.stderr)
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
    if args.out is not None or args.backend != "local":
        summary = _kept_run(args, rules, players, names)
        if isinstance(summary, int):
            return summary
    else:
        with _progress(args, {"": f"{rules.pack_id}, {players} players"}) as advance:
            summary = simulation.run(
                rules,
                args.games,
                players,
                names,
                args.seed,
                args.jobs,
                args.max_rounds,
                progress=lambda: advance(""),
                logs_dir=args.log_dir,
                max_answers_per_turn=args.max_answers_per_turn,
            )
    written = _logs_written(summary) & _report(args, summary, print_summary)
    return EXIT_FINDINGS if summary["errors"] or not written else EXIT_CLEAN


def _run_options_problem(args) -> str | None:
    """Options of a run kept in a folder or played on Ray that do not go together, in words."""
    if args.compare and (args.out is not None or args.resume or args.backend != "local"):
        return "--out, --resume and --backend are for a run of one pack, not --compare"
    if args.resume and args.out is None:
        return "--resume goes on with the run kept in a folder: give it with --out DIR"
    if args.address is not None and args.backend != "ray":
        return "--address names a Ray cluster: give it with --backend ray"
    return None


def _kept_run(args, rules, players, names) -> dict | int:
    """`knap sim --out DIR [--resume]` or `--backend ray`: the summary, or the exit code once the reason (a folder
    or a setting that does not fit, no ray, Ctrl-C) has been printed."""
    plan = runs.Plan(rules, players, names, args.seed, args.games, args.max_rounds, args.max_answers_per_turn)
    with _progress(args, {"": f"{rules.pack_id}, {players} players"}) as advance:
        try:
            return runs.run(
                plan,
                out=args.out,
                resume=args.resume,
                backend=args.backend,
                jobs=args.jobs,
                address=args.address,
                logs_dir=args.log_dir,
                progress=lambda: advance(""),
                started=lambda done: advance("", done) if done else None,
            )
        except runs.RunError as exc:
            print(f"knap: {plain(exc)}", file=sys.stderr)
            return EXIT_USAGE
        except KeyboardInterrupt:
            where = f"; every game played is kept in {plain(args.out)}: resume with --resume" if args.out else ""
            print(f"knap: interrupted{where}", file=sys.stderr)
            return EXIT_INTERRUPTED


def sim_compare(args) -> int:
    """`knap sim --compare PACK_A PACK_B`: the same seeds, agents and player count for both packs."""
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
        print(
            f"knap: `{labels[0]}` is for {low_a} to {high_a} players and `{labels[1]}` for {low_b} to {high_b}: "
            "no player count in common",
            file=sys.stderr,
        )
        return EXIT_USAGE
    players = args.players if args.players is not None else low
    for name, (first, last) in zip(labels, (packs[0].players, packs[1].players), strict=True):
        if not first <= players <= last:
            print(f"knap: `{name}` is for {first} to {last} players, not {players}", file=sys.stderr)
            return EXIT_USAGE
    names = _agent_names(args)
    if names is None:
        return EXIT_USAGE
    with _progress(
        args, {side: f"{side.upper()}: {label}, {players} players" for side, label in zip("ab", labels, strict=True)}
    ) as advance:
        comparison = simulation.compare(
            packs[0],
            packs[1],
            args.games,
            players,
            names,
            args.seed,
            args.jobs,
            args.max_rounds,
            progress=advance,
            logs_dir=args.log_dir,
            max_answers_per_turn=args.max_answers_per_turn,
        )
    written = (
        _logs_written(comparison["a"])
        & _logs_written(comparison["b"])
        & _report(args, comparison, lambda data, console: print_comparison(data, labels, console))
    )
    return EXIT_FINDINGS if comparison["a"]["errors"] or comparison["b"]["errors"] or not written else EXIT_CLEAN


def _write_game_log(game, path, seats) -> bool:
    """Write a played game's log; False once a failed write has been reported (the path and why)."""
    try:
        session.write_log(game, path, agents=seats)  # who played each seat, by name
    except WriteError as exc:
        print(f"knap: {plain(exc)}; the game's log is lost", file=sys.stderr)
        return False
    return True


def _write_file(path, text: str) -> bool:
    """A report written to a file, whole or not at all; False once a failed write has been reported."""
    try:
        write_text(path, text)
    except WriteError as exc:
        print(f"knap: {plain(exc)}", file=sys.stderr)
        return False
    return True


def _report(args, data, print_text) -> bool:
    """The summary as `--format` says, to `--output` or standard output (text on a console that cuts no
    cell when it is no terminal); the deprecated `--json FILE` also writes JSON there, as it always did.
    False once a failed write has been reported."""
    as_json = json.dumps(data, indent=2) + "\n"
    written = True
    if args.format == "json":
        if args.output:
            written = _write_file(args.output, as_json)
        else:
            sys.stdout.write(as_json)
    else:
        console, buffer = text_console(args.output)
        print_text(data, console)
        if buffer is not None:
            written = _write_file(args.output, buffer.getvalue())
    json_too = getattr(args, "json_too", None)
    return (not json_too or _write_file(json_too, as_json)) and written


@contextmanager
def _progress(args, labels: dict[str, str]):
    """Yields `advance(key, games=1)`, called as games of the run `key` names finish (or, resumed, are found done).
    A bar on stderr when it is a terminal; with `--progress` and no terminal, a line at each tenth; otherwise
    nothing."""
    show = args.progress if args.progress is not None else sys.stderr.isatty()
    if not show:
        yield lambda key="", games=1: None
        return
    if sys.stderr.isatty():
        with Progress(console=safe_console(stderr=True), transient=True) as bar:
            tasks = {key: bar.add_task(markup(label), total=args.games) for key, label in labels.items()}
            yield lambda key="", games=1: bar.advance(tasks[key], games)
        return

    done = dict.fromkeys(labels, 0)

    def advance(key="", games=1):
        done[key] += games
        if done[key] == args.games or done[key] * 10 // args.games != (done[key] - games) * 10 // args.games:
            print(f"{plain(labels[key])}: {done[key]}/{args.games} games", file=sys.stderr, flush=True)

    yield advance


def _logs_written(summary) -> bool:
    """Report each `--log-dir` file that could not be written (the others are kept); False if any."""
    for problem in dict.fromkeys(summary.get("log_errors", [])):  # a folder that cannot be made: once
        print(f"knap: {plain(problem)}", file=sys.stderr)
    return not summary.get("log_errors")


def _signed(value, digits: int) -> str:
    return "—" if value is None else f"{value:+.{digits}f}"


def _interval(ci95, scale: float, digits: int) -> str:
    return "—" if ci95 is None else f"{ci95[0] * scale:+.{digits}f}, {ci95[1] * scale:+.{digits}f}"


def print_comparison(comparison, labels, console):
    """A table of B − A: win rates in %, with 95 % Wilson intervals per pack and Newcombe's interval of
    the difference (in percentage points); means with the normal interval of their difference; counts."""
    diff = comparison["differences"]
    for side, label in zip("ab", labels, strict=True):
        summary = comparison[side]
        shown = label if label.replace("-", "_") == summary["pack"] else f"{label} ({summary['pack']})"
        console.print(
            f"[bold]{side.upper()}[/bold] = {markup(shown)}: {summary['played']} of {summary['games']} games "
            f"played, {summary['errors']} ended in an error",
            soft_wrap=True,
        )
    first, last = diff["seeds"]
    console.print(f"{diff['players']} players ({', '.join(diff['agents'])}), seeds {first}–{last} for both")
    table = Table(
        title="B against A: B − A and its 95 % interval (win % in percentage points)",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        collapse_padding=True,
        title_justify="left",
    )
    for column in ("", "A", "B", "B − A", "95 % CI", "*"):
        table.add_column(column, justify="left" if column in ("", "*") else "right", no_wrap=bool(column))

    def rate_cell(rate):
        if rate["rate"] is None:
            return "—"
        return f"{rate['rate'] * 100:.1f}\n[dim]{rate['ci95'][0] * 100:.1f}–{rate['ci95'][1] * 100:.1f}[/dim]"

    def rate_row(title, row, end_section=False):
        difference = None if row["difference"] is None else row["difference"] * 100
        table.add_row(
            title,
            rate_cell(row["a"]),
            rate_cell(row["b"]),
            _signed(difference, 1),
            _interval(row["ci95"], 100, 1),
            "*" if row["significant"] else "",
            end_section=end_section,
        )

    def mean_row(title, row, end_section=False):
        def cell(sample):
            return "—" if sample["mean"] is None else f"{sample['mean']:.2f}"

        table.add_row(
            title,
            cell(row["a"]),
            cell(row["b"]),
            _signed(row["difference"], 2),
            _interval(row["ci95"], 1, 2),
            "*" if row["significant"] else "",
            end_section=end_section,
        )

    def count_row(title, row, end_section=False):
        table.add_row(title, str(row["a"]), str(row["b"]), f"{row['difference']:+d}", "", "", end_section=end_section)

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
            console.print(
                f"[red]{side.upper()}, seed {sample['seed']}: {markup(sample['error'])}[/red]", soft_wrap=True
            )
        if summary["stalled"]["count"]:
            console.print(
                f"[yellow]{side.upper()}: {summary['stalled']['count']} game(s) stalled (at the round "
                f"limit, or in a turn that never ended); seeds: "
                f"{', '.join(map(str, summary['stalled']['seeds']))}[/yellow]"
            )
        for sample in summary.get("stall_samples", []):
            console.print(
                f"[yellow]{side.upper()}, seed {sample['seed']}: "
                f"{markup(coded(sample.get('code'), sample['why']))}[/yellow]",
                soft_wrap=True,
            )
    _sample_hints([comparison["a"], comparison["b"]], console)


def _figure(value) -> str:
    """A number of the summary as printed: a huge one (a content bug) shortened, none as a dash."""
    if value is None:
        return "—"
    text = str(value)
    return text if len(text) <= 15 else f"{text[:6]}… ({len(text.lstrip('-'))} digits)"


def _score(key: str):
    try:
        return int(key)
    except ValueError:
        return float(key)


def _quantile(ordered: list, fraction: float):
    """The nearest-rank quantile: a score some game really ended with."""
    return ordered[max(math.ceil(fraction * len(ordered)) - 1, 0)]


def score_lines(distribution: dict[str, int], bins: int = 8, bar: int = 24) -> list[str]:
    """Final scores in a few lines: min, quartiles and max, then a histogram of at most `bins` rows
    (one per value when there are that few)."""
    if not distribution:
        return []
    counted = sorted((_score(k), n) for k, n in distribution.items())
    ordered = [value for value, n in counted for _ in range(n)]
    head = f"Final scores ({len(ordered)} values): "
    if counted[0][0] == counted[-1][0]:
        return [head + f"all {_figure(counted[0][0])}"]
    low, high = counted[0][0], counted[-1][0]
    lines = [
        head
        + f"min {_figure(low)}, quartiles "
        + " / ".join(_figure(_quantile(ordered, q)) for q in (0.25, 0.5, 0.75))
        + f", max {_figure(high)}"
    ]
    if len(counted) <= bins:
        rows = [(_figure(value), n) for value, n in counted]
    else:
        whole = all(isinstance(v, int) for v, _ in counted)
        width = -(-(high - low + 1) // bins) if whole else (high - low) / bins
        rows = []
        for i in range(bins):
            start = low + i * width
            end = start + width - 1 if whole else start + width
            n = sum(c for v, c in counted if start <= v <= end if whole or v < end or i == bins - 1)
            if whole and start > high:
                break
            label = f"{_figure(start)}–{_figure(min(end, high))}" if whole else f"{start:.3g}–{end:.3g}"
            rows.append((label, n))
    most = max(n for _, n in rows)
    label_width = max(len(label) for label, _ in rows)
    for label, n in rows:
        lines.append(f"  {label:>{label_width}} {'█' * max(round(n / most * bar), 1 if n else 0):<{bar}} {n}")
    return lines


def print_summary(summary, console):
    console.print(
        f"[bold]{markup(summary['pack'])}[/bold]: {summary['played']} of {summary['games']} games played, "
        f"{summary['errors']} ended in an error; {summary['players']} player{'s' if summary['players'] != 1 else ''}, seed {summary['seed']}"
    )
    counter = summary["score_counter"]  # None: a game won or lost, with no score (a solo game)
    score_columns = ("mean", "sd", "min", "median", "max") if counter else ()
    table = Table(
        title="Win rate by seat (shared wins split; 95 % Wilson interval)"
        + (f" and final {counter}" if counter else "")
    )
    for column in ("seat", "agent", "wins", "win %", "95 % CI", *score_columns):
        table.add_column(column, justify="right")
    for row in summary["seats"]:
        score = row["score"] or {}
        table.add_row(
            row["seat"],
            row["agent"],
            f"{row['wins']:g}",
            f"{row['win_rate']:.1%}",
            f"{row['ci95'][0] * 100:.1f}–{row['ci95'][1] * 100:.1f}",
            *[_figure(score.get(k, "")) for k in score_columns],
        )
    console.print(table)
    if len(summary["per_agent"]) > 1:
        agents_table = Table(title="Win rate by agent")
        for column in ("agent", "seat-games", "wins", "win %", "95 % CI"):
            agents_table.add_column(column, justify="right")
        for name, row in summary["per_agent"].items():
            agents_table.add_row(
                name,
                str(row["seat_games"]),
                f"{row['wins']:g}",
                f"{row['win_rate']:.1%}",
                f"{row['ci95'][0] * 100:.1f}–{row['ci95'][1] * 100:.1f}",
            )
        console.print(agents_table)
    team = summary.get("team")
    if team:
        console.print(
            f"The team (a cooperative pack: all win or none) won {team['wins']} of {summary['played']} games: "
            f"{team['win_rate']:.1%} (95 % CI {team['ci95'][0] * 100:.1f}–{team['ci95'][1] * 100:.1f})"
        )
    turns, decisions = summary["turns"], summary["decisions"]
    if turns:
        unit = summary.get("length_unit", "turns")
        console.print(
            f"Game length: {turns['mean']} {unit} on average (median {_figure(turns['median'])}, sd "
            f"{turns['sd']}, {turns['min']}–{turns['max']}); {decisions['mean']} decisions on average"
        )
    console.print("How games ended: " + (", ".join(f"{markup(k)} {v}" for k, v in summary["endings"].items()) or "—"))
    for line in score_lines(summary["score_distribution"]):  # every value and count is in the JSON
        console.print(markup(line), soft_wrap=True)
    stalled = summary["stalled"]
    if stalled["count"]:
        console.print(
            f"[yellow]{stalled['count']} game(s) stalled at the round limit or in a turn that never "
            f"ended (a content bug: see docs/playing.md); seeds: {', '.join(map(str, stalled['seeds']))}"
            "[/yellow]"
        )
    for sample in summary.get("stall_samples", []):
        console.print(
            f"[yellow]seed {sample['seed']}: {markup(coded(sample.get('code'), sample['why']))}[/yellow]",
            soft_wrap=True,
        )
    for sample in summary["error_samples"]:
        console.print(f"[red]seed {sample['seed']}: {markup(sample['error'])}[/red]", soft_wrap=True)  # one line
    _sample_hints([summary], console)


def _sample_hints(summaries, console) -> None:
    """Under the sampled stalls and errors of a summary, the hint of each runtime error code among them, once."""
    codes = dict.fromkeys(
        sample.get("code")
        for summary in summaries
        for sample in [*summary.get("stall_samples", []), *summary["error_samples"]]
    )
    for code in codes:
        if code and hint_for(code):
            console.print(f"[dim]      = hint ({code}): {markup(hint_for(code))}[/dim]", soft_wrap=True)


def replay(args) -> int:
    """`knap replay FILE`: a game log is replayed and its final state checked; a saved game (or a saved
    `knap play` session) is loaded and checked. Either may come from a stranger: a bad file is one line
    (the file, where in it, what is wrong) and exit 1; a missing file is a usage error (exit 2). With
    `--show`, the log is printed as far as the game went: up to the failure of a game that failed (exit 1,
    the failure on stderr), and to where a game that stalled or was left stops (said after the log)."""
    name = plain(args.log)
    data, failed = _read_record(args.log, name)
    if failed is not None:
        return failed
    if session.is_session(data):
        return _check_session(name, data, args.pack)
    kind = persist.kind_of(data)
    if kind is None:
        print(
            f"knap: {name}: X402 this is not a Knapper game log (nor a saved game): it has no "
            f'`"format": "{session.LOG_FORMAT}"`',
            file=sys.stderr,
        )
        _hint("X402")
        return EXIT_FINDINGS
    try:
        (persist.check_log if kind == "log" else persist.check_save_schema)(data)
    except persist.RecordError as exc:
        return _bad_record(name, exc)
    pack = (
        args.pack
        or (kind == "log" and _recorded_pack(data.get("pack_path"), name, pack_id=data["pack"]))
        or data["pack"]
    )
    rules = _load_pack(str(pack))
    if rules is None:
        return EXIT_USAGE
    if kind == "save":
        return _check_save(name, rules, data)
    try:
        replayed = session.replay_until_failure(rules, data)
    except persist.RecordError as exc:
        return _bad_record(name, exc)
    except (GameError, ContentError) as exc:
        _game_error(f"knap: {name}: the log does not replay: ", rules, exc)
        return EXIT_FINDINGS
    game, failure = replayed.game, replayed.failure
    if args.show and game is not None:
        for line in game.log_for(None):
            print(plain(line))
    if isinstance(failure, persist.RecordError):  # an answer the game refuses: the log is wrong
        return _bad_record(name, failure)
    if failure is not None:  # the game itself failed there, as it did when played
        where = "during setup" if game is None else f"at decision {len(game.history)}"
        _game_error(f"knap: {name}: the log does not replay: the game fails {where}: ", rules, failure)
        return EXIT_FINDINGS
    assert game is not None  # only a setup that failed has no game
    actual = game.state_hash()
    if actual != data["final_hash"]:
        print(
            f"knap: {name}: X406 the replayed game differs from the log: final state {actual[:16]}…, "
            f"the log says {data['final_hash'][:16]}…",
            file=sys.stderr,
        )
        _hint("X406")
        return EXIT_FINDINGS
    if not game.over:
        print(plain(_unfinished(game, replayed.answers_in_turn)))
    print(f"{name}: {len(data['decisions'])} decisions replayed; final state matches ({actual[:16]}…)")
    return EXIT_CLEAN


def _unfinished(game, answers_in_turn: int) -> str:
    """Where the log of a game that did not end stops (a stalled game, a game left before its end)."""
    turn = game.turn
    when = f"round {turn['number']}" if game.rules.in_rounds else f"turn {turn['number']} ({turn['player']})"
    decision = game.decision
    waiting = f", with {', '.join(decision.players)} to answer: {decision.prompt}" if decision is not None else ""
    return (
        f"The game did not end: the log stops in {when}, {answers_in_turn} answers into it{waiting} "
        "(a game that stalled, or one left before its end)"
    )


def _recorded_pack(pack_path, log_name: str, what: str = "log", option: str = "--pack", pack_id=None) -> str | None:
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
    if isinstance(pack_id, str) and _found_by_id(pack_id) == folder:
        return None  # the id finds this very folder (a built-in pack, say): nothing to say
    print(
        f"knap: the {what}'s pack folder lies outside the working folder and the {what}'s folder, so it is not "
        f"read; the pack is looked up by its id (name its folder with {option})",
        file=sys.stderr,
    )
    return None


def _found_by_id(pack_id: str) -> Path | None:
    found = resolve_target(pack_id) if pack_id and "/" not in pack_id and pack_id not in (".", "..") else None
    return Path(found).resolve() if found is not None else None


def _read_record(path, name: str, *error_class):
    """(the JSON record at `path`, None), or (None, the exit code) once why it cannot be read is printed."""
    try:
        return persist.read(path, *error_class), None
    except FileNotFoundError:
        print(f"knap: {name}: no such file", file=sys.stderr)
        return None, EXIT_USAGE
    except OSError as exc:
        print(f"knap: cannot read {name}: {plain(exc.strerror or exc)}", file=sys.stderr)
        return None, EXIT_FINDINGS
    except persist.RecordError as exc:
        return None, _bad_record(name, exc)


def _bad_record(name: str, exc) -> int:
    """One line for a log or save that cannot be used, `FILE:LINE:COL: CODE ...` or `FILE: /pointer: CODE
    ...`, and the code's hint."""
    where = f"{name}:{exc.where}" if exc.line else f"{name}: {exc.where}" if exc.where else name
    print(f"knap: {where}: {coded(exc.code, plain(exc.message))}", file=sys.stderr)
    _hint(exc)
    return EXIT_FINDINGS


def _game_error(lead: str, rules, exc) -> None:
    """A runtime error as `knap lint` prints a finding: `lead`, then `file:line:col: CODE message`, the line
    of the pack it points at with a caret, and the hint."""
    print(f"{lead}{plain(rules.describe(exc))}", file=sys.stderr)
    place = rules.position(exc)
    if place is not None:
        for line in quoted(place[3], place[1], place[2]):
            print(line, file=sys.stderr)
    _hint(exc)


def _hint(error) -> None:
    """The hint of a runtime error (or of a code) on the line under it, as `knap lint` prints hints."""
    hint = hint_for(error if isinstance(error, str) else getattr(error, "code", "") or "")
    if hint:
        print(f"      = hint: {hint}", file=sys.stderr)


def _check_save(name: str, rules, state) -> int:
    try:
        game = Game.from_save(rules, state, schema_checked=True)
    except persist.RecordError as exc:
        return _bad_record(name, exc)
    except ContentError as exc:
        _game_error(f"knap: {name}: the saved game cannot go on: ", rules, exc)
        return EXIT_FINDINGS
    print(_loaded(name, rules, game))
    return EXIT_CLEAN


def _open_session(name: str, data, pack_given, option: str = "--pack"):
    """A saved `knap play` session, checked (its own schema, then its game like any save) and loaded with
    its pack: `(rules, game)`, or the exit code once the reason has been printed."""
    try:
        session.check_session(data)
    except persist.RecordError as exc:
        return _bad_record(name, exc)
    pack = (
        pack_given
        or _recorded_pack(data.get("pack_path"), name, what="save", option=option, pack_id=data["pack"])
        or data["pack"]
    )
    rules = _load_pack(str(pack))
    if rules is None:
        return EXIT_USAGE
    try:
        return rules, session.load_session_game(rules, data)
    except persist.RecordError as exc:
        return _bad_record(name, exc)
    except ContentError as exc:
        _game_error(f"knap: {name}: the saved game cannot go on: ", rules, exc)
        return EXIT_FINDINGS


def _check_session(name: str, data, pack_given) -> int:
    """`knap replay` of a saved `knap play` session."""
    opened = _open_session(name, data, pack_given)
    if isinstance(opened, int):
        return opened
    rules, game = opened
    print(_loaded(name, rules, game) + f"; seats: {', '.join(data['seats'])} (`knap play --resume {name}`)")
    return EXIT_CLEAN


def _loaded(name: str, rules, game) -> str:
    turn = game.turn
    if game.over:
        what = "the game is over"
    else:
        decision = game.decision
        what = f"{', '.join(decision.players)} to answer ({decision.kind})"
    return (
        f"{name}: a saved game of `{rules.pack_id}`, {len(game.players)} players, turn {turn['number']}, "
        f"{len(game.history)} answers in; it loads: {what} ({game.state_hash()[:16]}…)"
    )
