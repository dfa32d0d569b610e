"""The `knap` command. Exit codes: 0 clean, 1 findings, 2 usage or internal error. Never a traceback."""
from __future__ import annotations

import argparse
import json
import os
import sys
import tomllib
from pathlib import Path

from . import __version__

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse's own exit code is 2 too; keep the wording short
        self.print_usage(sys.stderr)
        print(f"knap: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def _config() -> dict:
    """`[tool.knap.lint]` from the nearest pyproject.toml above the working folder."""
    here = Path.cwd()
    for folder in [here, *here.parents]:
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                with open(candidate, "rb") as handle:
                    data = tomllib.load(handle)
            except (OSError, tomllib.TOMLDecodeError):
                return {}
            config = data.get("tool", {}).get("knap", {}).get("lint", {})
            if config:
                config = dict(config)
                config["_root"] = str(folder)
            return config
    return {}


def _codes(value) -> list[str]:
    if not value:
        return []
    items = value if isinstance(value, list) else str(value).split(",")
    return [item.strip().upper() for item in items if item.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="knap", description="Knapper: lint, inspect and play data-driven board games.")
    parser.add_argument("--version", action="version", version=f"knap {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    lint = sub.add_parser("lint", help="check packs and card files", description=(
        "Check packs: YAML, schemas, effect texts, references, decks and the prerequisite graph. "
        "Exit 0 when clean, 1 on findings, 2 on usage errors."))
    lint.add_argument("paths", nargs="*", help="folders, files or built-in pack ids (default: .)")
    lint.add_argument("--format", choices=["text", "json", "github", "sarif"], default="text")
    lint.add_argument("--select", help="only these codes or prefixes, comma-separated (e.g. S,D001)")
    lint.add_argument("--ignore", help="skip these codes or prefixes, comma-separated")
    lint.add_argument("--stats", action="store_true", help="count documents, cards, texts and provenance per pack")
    lint.add_argument("--explain", metavar="CODE", help="explain a rule code (or `all`) and exit")
    lint.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    lint.add_argument("--cache-dir", help="where the cache lives (default: .knap_cache)")
    lint.add_argument("--output", "-o", help="write the report to a file instead of standard output")
    lint.add_argument("--exclude", metavar="GLOBS", help="skip folders or files matching these comma-separated "
                      "globs when scanning folders (added to `exclude` in pyproject.toml)")
    lint.add_argument("--jobs", "-j", type=int, metavar="N", help="worker processes for large packs (default: cores)")

    schema = sub.add_parser("schema", help="JSON Schemas for editors")
    schema_sub = schema.add_subparsers(dest="schema_command", metavar="ACTION", parser_class=_Parser)
    export = schema_sub.add_parser("export", help="write self-contained schema copies for editors")
    export.add_argument("directory")
    export.add_argument("--draft", choices=["draft-07", "2020-12"], default="draft-07")

    graph = sub.add_parser("graph", help="export a pack's prerequisite graph")
    graph.add_argument("pack", help="a pack folder or built-in pack id")
    graph.add_argument("--format", choices=["dot", "mermaid", "json"], default="dot")
    graph.add_argument("--all", action="store_true", help="include cards without prerequisites")

    diff = sub.add_parser("diff", help="what a variant changes against the packs it extends", description=(
        "Compare a pack that extends others with what it extends: players, parameters, decks, and every "
        "document removed, changed (field by field) or added."))
    diff.add_argument("pack", help="a pack folder or built-in pack id")
    diff.add_argument("--format", choices=["text", "json"], default="text")

    from . import play_cli
    play_cli.add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command == "lint":
            return _lint(args)
        if args.command == "schema":
            if args.schema_command != "export":
                parser.parse_args(["schema", "--help"])
            return _schema_export(args)
        if args.command == "diff":
            return _diff(args)
        if args.command == "graph":
            return _graph(args)
        if args.command in ("play", "sim", "replay"):
            from . import play_cli
            return getattr(play_cli, args.command)(args)
        parser.print_help()
        return EXIT_USAGE
    except SystemExit as exc:
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_CLEAN
    except Exception as exc:  # noqa: BLE001 -- the promise is "no traceback", so report and exit 2
        print(f"knap: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        print("knap: this is a bug in Knapper, not in your content; please report it with the files involved",
              file=sys.stderr)
        if os.environ.get("KNAP_DEBUG"):
            raise
        return EXIT_USAGE


def _write(text: str, output: str | None):
    if output:
        Path(output).write_text(text + ("\n" if text and not text.endswith("\n") else ""), encoding="utf-8")
    elif text:
        sys.stdout.write(text + ("\n" if not text.endswith("\n") else ""))


def _lint(args) -> int:
    from . import lint, report
    from .diagnostics import INTERNAL, RULES

    if args.explain:
        if args.explain.lower() == "all":
            print(report.rules_table())
            return EXIT_CLEAN
        text = report.explain(args.explain)
        if text is None:
            print(f"knap: unknown rule code `{args.explain}`; `knap lint --explain all` lists them", file=sys.stderr)
            return EXIT_USAGE
        print(text, end="")
        return EXIT_CLEAN
    config = _config()
    select = _codes(args.select) or _codes(config.get("select"))
    ignore = _codes(args.ignore) + _codes(config.get("ignore"))
    for code in select + ignore:
        if not any(rule.startswith(code) for rule in RULES):
            print(f"knap: unknown rule code or prefix `{code}`; `knap lint --explain all` lists them", file=sys.stderr)
            return EXIT_USAGE
    from .packs import resolve_target
    targets = []
    for raw in args.paths or ["."]:
        resolved = resolve_target(raw)
        if resolved is None:
            print(f"knap: `{raw}` is neither a file, a folder nor a built-in pack", file=sys.stderr)
            return EXIT_USAGE
        targets.append(resolved)
    cache_dir = None
    if not args.no_cache:
        default_root = Path(config.get("_root", "."))
        cache_dir = Path(args.cache_dir or config.get("cache-dir") or default_root / ".knap_cache")
    if args.jobs is not None and args.jobs < 1:
        print("knap: --jobs needs a number of at least 1", file=sys.stderr)
        return EXIT_USAGE
    exclude = [g.strip() for g in (args.exclude or "").split(",") if g.strip()] + list(config.get("exclude", []))
    result = lint.lint(targets, cache_dir, args.jobs, exclude, Path(config.get("_root", ".")))
    diags = [d for d in result.diagnostics
             if (not select or any(d.code.startswith(c) for c in select))
             and not any(d.code.startswith(c) for c in ignore)]
    if args.format == "json":
        _write(report.as_json(diags, result.stats if args.stats else None, result.files), args.output)
    elif args.format == "github":
        _write(report.github(diags), args.output)
    elif args.format == "sarif":
        _write(report.sarif(diags), args.output)
    else:
        color = sys.stdout.isatty() and not args.output and not os.environ.get("NO_COLOR")
        _write(report.text(diags, result.positions.source_lines, color), args.output)
        if args.stats:
            _print_stats(result.stats)
        if not diags and not args.output:
            print(f"All checks passed ({result.files} file{'s' if result.files != 1 else ''}).", file=sys.stderr)
    if any(d.code == INTERNAL for d in result.diagnostics):
        return EXIT_USAGE
    return EXIT_FINDINGS if diags else EXIT_CLEAN


def _print_stats(stats):
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Packs", show_lines=False)
    for column in ("pack", "documents", "cards (copies)", "DSL texts", "placeholder", "assumption", "reference"):
        table.add_column(column, justify="left" if column == "pack" else "right")
    for s in stats:
        table.add_row(s.pack, str(sum(s.documents.values())), f"{s.cards} ({s.card_copies})", str(s.effects),
                      str(s.provenance.get("placeholder", 0)), str(s.provenance.get("assumption", 0)),
                      str(s.provenance.get("reference", 0)))
    Console(width=100).print(table)


def _schema_export(args) -> int:
    from .schema_export import export
    written = export(Path(args.directory), args.draft)
    for path in written:
        print(path)
    return EXIT_CLEAN


def _diff(args) -> int:
    from . import compose, diff, lint, report
    from .packs import display, find_pack, pack_files, resolve_target

    target = resolve_target(args.pack)
    if target is None or not (target / "pack.yaml").is_file():
        print(f"knap: `{args.pack}` is not a pack folder or a built-in pack id", file=sys.stderr)
        return EXIT_USAGE
    root = target.resolve()
    result = lint.lint([root], None, with_bases=True)
    errors = [d for d in result.diagnostics if d.severity.value == "error"]
    if errors:
        print(report.text(errors, result.positions.source_lines), file=sys.stderr)
        print(f"knap: fix the errors of `{args.pack}` first (`knap lint {args.pack}`)", file=sys.stderr)
        return EXIT_FINDINGS
    variant = result.effective[root]
    if not variant.bases:
        print(f"knap: `{variant.pack_id}` extends no pack: there is nothing to compare it with", file=sys.stderr)
        return EXIT_USAGE
    found = [(n, base_id, result.effective[find_pack(base_id, root)]) for n, base_id in enumerate(variant.bases)]
    base = found[0][2] if len(found) == 1 else compose.compose("", {}, None, [], found, lambda *a, **k: None)
    changes = diff.diff(base, variant, {display(p) for p in pack_files(root)}, variant.removals)
    if args.format == "json":
        print(json.dumps(changes, indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(diff.text(changes))
    return EXIT_CLEAN


def _graph(args) -> int:
    from . import lint, report, techgraph
    from .packs import pack_cards, resolve_target

    target = resolve_target(args.pack)
    if target is None or not (target / "pack.yaml").is_file():
        print(f"knap: `{args.pack}` is not a pack folder or a built-in pack id", file=sys.stderr)
        return EXIT_USAGE
    result = lint.lint([target], None)
    effective = next(iter(result.effective.values()), None)    # what is played, with what it inherits
    cards = effective.by_id() if effective is not None else pack_cards(target)
    cards = {i: d for i, d in cards.items() if d.get("kind") == "card"}
    graph = techgraph.build(cards)
    if not args.all:
        graph = techgraph.involved(graph)
    title = target.name
    renderer = {"dot": lambda g: techgraph.to_dot(g, title), "mermaid": techgraph.to_mermaid,
                "json": techgraph.to_json}[args.format]
    sys.stdout.write(renderer(graph))
    errors = [d for d in result.diagnostics if d.severity.value == "error"]
    if errors:
        print(report.text(errors, result.positions.source_lines), file=sys.stderr)
        return EXIT_FINDINGS
    return EXIT_CLEAN


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
