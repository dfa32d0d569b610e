"""`knap report RUN_DIR [RUN_DIR ...]`: the balance report of runs `knap sim --out` wrote (docs/balance.md).

The parser loads nothing; the statistics, matplotlib and the report load when the command runs."""

from __future__ import annotations

import json
import sys

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def add_parser(sub) -> None:
    report = sub.add_parser(
        "report",
        help="a balance report (HTML) of runs `knap sim --out` wrote",
        description=(
            "Read the run folders `knap sim PACK --out DIR` wrote and write one self-contained HTML page: win rates "
            "by seat and agent, first-player advantage, game length, winning margins, score by round, and the cards "
            "and actions that go with winning. Several folders are shown side by side (--compare), one series a "
            "run; --compare adds each seat's difference from the first run. `--format json` writes the statistics instead."
        ),
    )
    report.add_argument("runs", nargs="+", metavar="RUN_DIR", help="run folders (each with run.json and games.jsonl)")
    report.add_argument(
        "--format", choices=["html", "json"], default="html", help="the HTML page, or the statistics as JSON"
    )
    report.add_argument(
        "--output",
        "-o",
        metavar="FILE",
        help="write the report to FILE, whole or not at all (default: report.html; with --format json, standard output)",
    )
    report.add_argument(
        "--compare",
        action="store_true",
        help="several runs: add each seat's win-rate difference from the first run, with its 95 %% interval",
    )
    report.add_argument(
        "--min-games",
        type=int,
        default=30,
        metavar="N",
        help="seat-games a card or action needs on each side for its impact to be ranked",
    )


def run(args) -> int:
    from engine.balance.run_folder import RunError, read_run
    from engine.files.atomic import WriteError, write_text
    from engine.safe_text import plain

    if args.compare and len(args.runs) < 2:
        print("knap: --compare needs two run folders or more: `knap report A B --compare`", file=sys.stderr)
        return EXIT_USAGE
    if args.min_games < 1:
        print("knap: --min-games needs a number of at least 1", file=sys.stderr)
        return EXIT_USAGE
    if args.format == "html":
        from engine.balance.plots import MissingMatplotlib, require

        try:
            require()
        except MissingMatplotlib as exc:
            print(f"knap: {exc}", file=sys.stderr)
            return EXIT_USAGE
    from engine.balance.report import RunReport
    from engine.balance.stats import aggregate

    reports = []
    try:
        for folder in args.runs:
            found = read_run(folder)
            stats = aggregate(found.records(), min_games=args.min_games)
            reports.append(RunReport(found.name, found.meta, found.summary, stats))
    except RunError as exc:
        print(f"knap: {plain(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    empty = [r.name for r in reports if not r.stats["games"]]
    if empty:
        print(f"knap: {plain(empty[0])} holds no game yet: its games.jsonl is empty", file=sys.stderr)
        return EXIT_USAGE
    if args.format == "json":
        text = json.dumps([{"run": r.name, **r.stats} for r in reports], indent=2) + "\n"
        if args.output is None:
            sys.stdout.write(text)
            return EXIT_CLEAN
    else:
        from engine.balance.report import render

        text = render(reports, differences=args.compare)
    output = args.output or "report.html"
    try:
        write_text(output, text)
    except WriteError as exc:
        print(f"knap: {exc}", file=sys.stderr)
        return EXIT_FINDINGS
    games = sum(r.stats["games"] for r in reports)
    runs = f"{len(reports)} run{'s' if len(reports) > 1 else ''}"
    print(f"knap: the report of {games:,} games in {runs} is in {plain(output)}", file=sys.stderr)
    return EXIT_CLEAN
