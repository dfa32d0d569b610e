"""The `knap` command. Exit codes: 0 clean, 1 findings, 2 usage or internal error. Never a traceback.

A command imports the heavy parts it needs (the linter, the runtime, YAML, rich's tables) when it runs, so that
building the parser (`knap --help`, shell completion, a usage error) loads none of them."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tomllib
from pathlib import Path

from engine import __version__
from engine.content.pack_search import SearchPathError, known_packs, project_file, search_roots, unknown_message
from engine.diagnostics import INTERNAL, RULES
from engine.files.atomic import WriteError, write_text
from engine.safe_text import console as safe_console
from engine.safe_text import dumps, markup, plain, visible

from . import play_args, report_cmd
from .completion import SHELLS, script
from .options import HelpFormatter, add_output, text_console

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)  # every default shown, never `default: None`
        super().__init__(*args, **kwargs)

    def error(self, message):  # argparse's own exit code is 2 too; keep the wording short
        self.print_usage(sys.stderr)
        print(f"knap: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE)


def _config() -> dict:
    """`[tool.knap.lint]` from the nearest pyproject.toml above the working folder."""
    candidate = project_file()
    if candidate is None:
        return {}
    try:
        with open(candidate, "rb") as handle:
            data = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return {}
    config = data.get("tool", {}).get("knap", {}).get("lint", {})
    if config:
        config = dict(config)
        config["_root"] = str(candidate.parent)
    return config


def _codes(value) -> list[str]:
    if not value:
        return []
    items = value if isinstance(value, list) else str(value).split(",")
    return [item.strip().upper() for item in items if item.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="knap", description="Knapper: lint, inspect and play data-driven board games.")
    parser.add_argument(
        "-V", "--version", action="version", version=f"knap {__version__}", help="print `knap VERSION` and exit"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    lint = sub.add_parser(
        "lint",
        help="check packs and card files",
        description=(
            "Check packs: YAML, schemas, effect texts, references, decks and the prerequisite graph. "
            "Exit 0 when clean, 1 on findings (0 with --exit-zero), 2 on usage errors."
        ),
    )
    lint.add_argument("paths", nargs="*", help="folders, files or built-in pack ids (default: .)")
    lint.add_argument(
        "--format",
        choices=["text", "json", "github", "sarif"],
        default="text",
        help="how to write the findings: for people, for programs, as GitHub annotations or SARIF",
    )
    lint.add_argument("--select", help="only these codes or prefixes, comma-separated (e.g. S,D001)")
    lint.add_argument("--ignore", help="skip these codes or prefixes, comma-separated")
    lint.add_argument("--stats", action="store_true", help="count documents, cards, texts and provenance per pack")
    lint.add_argument("--explain", metavar="CODE", help="explain a rule code (or `all`) and exit")
    lint.add_argument("--no-cache", action="store_true", help="do not read or write the cache")
    lint.add_argument(
        "--cache-dir",
        help="where the cache lives, anywhere (default: `cache-dir` of pyproject.toml, "
        "which must lie inside the project, else .knap_cache)",
    )
    lint.add_argument(
        "--output",
        "-o",
        metavar="FILE",
        help="write the report to FILE (whole or not at all) instead of standard output",
    )
    lint.add_argument(
        "--exit-zero",
        action="store_true",
        help="exit 0 even when there are findings (still 2 on a usage error or a bug in knap)",
    )
    lint.add_argument(
        "--exclude",
        metavar="GLOBS",
        help="skip folders or files matching these comma-separated "
        "globs when scanning folders (added to `exclude` in pyproject.toml)",
    )
    lint.add_argument("--jobs", "-j", type=int, metavar="N", help="worker processes for large packs (default: cores)")
    lint.add_argument("--fix", action="store_true", help="apply the fixes of findings marked [*], then lint again")
    lint.add_argument(
        "--diff",
        action="store_true",
        help="print the fixes as a unified diff and write nothing (exit 1 if there are any; wins over --fix)",
    )

    schema = sub.add_parser(
        "schema",
        help="JSON Schemas for editors",
        description=(
            "The JSON Schemas of pack documents, for editors and other tools: export copies, or write the editor "
            "settings that check every document of every pack file as you type."
        ),
    )
    schema_sub = schema.add_subparsers(dest="schema_command", metavar="ACTION", parser_class=_Parser, required=True)
    export = schema_sub.add_parser(
        "export",
        help="write self-contained schema copies for editors",
        description=(
            "Write one self-contained JSON Schema per kind of document into a folder, in the draft the tool that "
            "reads them wants (ajv loads draft-07 in strict mode)."
        ),
    )
    export.add_argument("directory", help="the folder to write the schemas into (made if missing)")
    export.add_argument(
        "--draft", choices=["draft-07", "2020-12"], default="draft-07", help="the JSON Schema draft of the copies"
    )
    editor = schema_sub.add_parser(
        "editor",
        help="editor settings that check every document of every pack file",
        description=(
            "Associate the document schema with the YAML files of your packs through the `yaml.schemas` setting of "
            "yaml-language-server (VS Code YAML extension, Neovim, Helix). Unlike a `# yaml-language-server: "
            "$schema=` line, which covers only the first document of a file, the setting covers every document."
        ),
    )
    editor.add_argument(
        "folders",
        nargs="*",
        metavar="FOLDER",
        help="folders whose YAML files are pack files (default: content/ in the workspace)",
    )
    editor.add_argument("--root", default=".", help="the workspace folder the editor opens")
    editor.add_argument("--schema", help="the schema to associate (default: the built-in document.schema.json)")
    editor_out = editor.add_mutually_exclusive_group()
    editor_out.add_argument(
        "--vscode", action="store_true", help="write it into .vscode/settings.json of the workspace"
    )
    editor_out.add_argument(
        "--print",
        dest="style",
        choices=["vscode", "neovim", "helix"],
        default="vscode",
        help="print the settings for this editor (default: vscode)",
    )

    graph = sub.add_parser(
        "graph",
        help="export a pack's prerequisite graph",
        description=(
            "Export the prerequisite graph of a pack's cards (what must be mastered before what), as the pack is "
            "played, with what it inherits: Graphviz dot, a Mermaid flowchart or JSON."
        ),
    )
    graph.add_argument("pack", help="a pack folder or built-in pack id")
    add_output(graph, ["dot", "mermaid", "json"], "dot", "the graph")
    graph.add_argument("--all", action="store_true", help="include cards without prerequisites")

    diff = sub.add_parser(
        "diff",
        help="what a variant changes against the packs it extends",
        description=(
            "Compare a pack that extends others with what it extends: players, parameters, decks, and every "
            "document removed, changed (field by field) or added."
        ),
    )
    diff.add_argument("pack", help="a pack folder or built-in pack id")
    add_output(diff, ["text", "json"], "text", "the changes")
    diff.add_argument(
        "--full", action="store_true", help="show whole old and new values, not only the parts that differ"
    )

    listing = sub.add_parser(
        "list",
        help="every pack id knap can find, and where it comes from",
        description=(
            "List the packs a pack id can name, in lookup order: the project's content/ folder, the folders of "
            "KNAP_PACKS, those of `[tool.knap] packs` in pyproject.toml, then the built-in packs. When two have "
            "the same id, the first one is used."
        ),
    )
    add_output(listing, ["text", "json"], "text", "the list")

    play_args.add_commands(sub)
    report_cmd.add_parser(sub)

    serve = sub.add_parser(
        "serve",
        help="a playtest table and a pack browser in the web browser",
        description=(
            "Serve a playtest table in the browser: start games (people and bots at each seat), one page per seat "
            "showing only what that seat may see, undo, save and load, the replay log; and a browser of each pack's "
            "cards, prerequisite graph and lint findings. Serves the given packs, or every pack `knap list` finds."
        ),
    )
    serve.add_argument("packs", nargs="*", metavar="PACK", help="pack folders or built-in pack ids")
    serve.add_argument(
        "--port",
        type=int,
        default=8000,
        help="the port to listen on (default: 8000; 0: any free one, named in the address printed)",
    )
    serve.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (default: 127.0.0.1, this machine only)"
    )

    sub.add_parser(
        "lsp",
        help="run the language server (stdio) for editors: docs/editors.md",
        description=(
            "A Language Server Protocol server over standard input and output: lint's findings as you type, "
            "completion, hover, go to definition, references, rename of ids and lint's sure fixes as quick fixes. "
            "Editors start it; docs/editors.md shows how. It reads only files inside the workspace folders."
        ),
    )

    completion = sub.add_parser(
        "completion",
        help="print a shell completion script",
        description=(
            "Print a completion script for your shell, generated from knap's own options. Load it from your "
            'shell\'s start-up file: bash `eval "$(knap completion bash)"` in ~/.bashrc; zsh the same with `zsh` '
            "in ~/.zshrc (after compinit); fish `knap completion fish > ~/.config/fish/completions/knap.fish`."
        ),
    )

    completion.add_argument("shell", choices=SHELLS, help="the shell to complete for")
    return parser


_PACK_COMMANDS = {"lint", "graph", "diff", "play", "sim", "replay", "list", "serve"}


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command in _PACK_COMMANDS:
            try:
                search_roots()  # a configured folder of packs that is missing: say so once, up front
            except SearchPathError as exc:
                print(f"knap: {exc}", file=sys.stderr)
                return EXIT_USAGE
        if args.command == "list":
            return _list(args)
        if args.command == "lint":
            return _lint(args)
        if args.command == "schema":
            return _schema_editor(args) if args.schema_command == "editor" else _schema_export(args)
        if args.command == "diff":
            return _diff(args)
        if args.command == "graph":
            return _graph(args)
        if args.command == "lsp":
            from engine.lsp.server import main as lsp_main

            lsp_main()
            return EXIT_CLEAN
        if args.command == "completion":
            sys.stdout.write(script(parser, args.shell))
            return EXIT_CLEAN
        if args.command == "serve":
            from engine.serve.command import serve as serve_command

            return serve_command(args)
        if args.command == "report":
            return report_cmd.run(args)
        if args.command in ("play", "sim", "replay"):
            from . import play as play_cli

            return getattr(play_cli, args.command)(args)
        parser.print_help()
        return EXIT_USAGE
    except SystemExit as exc:
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_CLEAN
    except Exception as exc:
        print(f"knap: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        print(
            "knap: this is a bug in Knapper, not in your content; please report it with the files involved",
            file=sys.stderr,
        )
        if os.environ.get("KNAP_DEBUG"):
            raise
        return EXIT_USAGE


def _write(text: str, output: str | None):
    """The report to `--output` (whole or not at all: atomic.py) or to standard output. A file that cannot
    be written (a full disk, a missing folder) is one line naming it, and exit 1."""
    if output:
        try:
            write_text(output, text + ("\n" if text and not text.endswith("\n") else ""))
        except WriteError as exc:
            print(f"knap: {exc}", file=sys.stderr)
            raise SystemExit(EXIT_FINDINGS) from None
    elif text:
        sys.stdout.write(text + ("\n" if not text.endswith("\n") else ""))


def _lint(args) -> int:
    from engine import lint, report

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
    from engine.content.packs import resolve_target

    targets = []
    for raw in args.paths or ["."]:
        resolved = resolve_target(raw)
        if resolved is None:
            print(f"knap: {unknown_message(raw)}", file=sys.stderr)
            return EXIT_USAGE
        targets.append(resolved)
    cache_dir = None if args.no_cache else _cache_dir(args.cache_dir, config)
    if args.jobs is not None and args.jobs < 1:
        print("knap: --jobs needs a number of at least 1", file=sys.stderr)
        return EXIT_USAGE
    exclude = [g.strip() for g in (args.exclude or "").split(",") if g.strip()] + list(config.get("exclude", []))
    from engine.lint import fix as lint_fix

    def shown(text):
        return visible(text, lines=False)

    def run():
        found = lint.lint(targets, cache_dir, args.jobs, exclude, Path(config.get("_root", ".")))
        chosen = [
            d
            for d in found.diagnostics
            if (not select or any(d.code.startswith(c) for c in select))
            and not any(d.code.startswith(c) for c in ignore)
        ]
        return found, chosen, lint_fix.plan(chosen, found.positions.root)  # keeps only the fixes that hold

    result, diags, fixes = run()
    if args.diff:
        lint_fix.say_skipped(fixes, shown)
        _write(lint_fix.unified_diff(fixes.files), args.output)
        print(
            f"Would fix {fixes.count} of {len(diags)} finding{'s' if len(diags) != 1 else ''}"
            + (" (`knap lint --fix` applies them)." if fixes.count else "."),
            file=sys.stderr,
        )
        return EXIT_FINDINGS if fixes.count else EXIT_CLEAN
    fixed = 0
    for _ in range(lint_fix.ROUNDS if args.fix else 0):  # a fix can make a document valid, and its ids checked
        written = lint_fix.apply(fixes.files, result.positions.root, shown) if fixes.count else 0
        if not written:
            break
        fixed += written
        result, diags, fixes = run()  # what remains, as a second run would find it
    if args.fix:
        lint_fix.say_skipped(fixes, shown)
    if args.format == "json":
        _write(
            report.as_json(diags, result.stats if args.stats else None, result.files, result.positions.source_lines),
            args.output,
        )
    elif args.format == "github":
        _write(report.github(diags), args.output)
    elif args.format == "sarif":
        _write(report.sarif(diags), args.output)
    else:
        color = sys.stdout.isatty() and not args.output and not os.environ.get("NO_COLOR")
        _write(report.text(diags, result.positions.source_lines, color), args.output)
        if args.stats:
            _print_stats(result.stats)
        if not diags and not args.output and result.files:
            print(f"All checks passed ({result.files} file{'s' if result.files != 1 else ''}).", file=sys.stderr)
    if args.fix:
        print(f"{fixed} fixed, {len(diags)} remaining.", file=sys.stderr)
    if not result.files:  # a wrong folder, or an `exclude` that leaves nothing: "all passed" would hide it
        print(
            f"knap: warning: no pack files found in {', '.join(plain(str(p)) for p in args.paths or ['.'])}; "
            "nothing was checked",
            file=sys.stderr,
        )
    if any(d.code == INTERNAL for d in result.diagnostics):
        return EXIT_USAGE
    return EXIT_FINDINGS if diags and not args.exit_zero else EXIT_CLEAN


def _cache_dir(explicit: str | None, config: dict) -> Path | None:
    """Where the lint cache lives. `--cache-dir` is the user's own word: it may point anywhere. A
    `cache-dir` of pyproject.toml (relative to it) and the default `.knap_cache` must lie inside the project
    (the folder of that pyproject.toml, else the working folder), links resolved: a repository's settings
    must not make knap write into a neighbouring one. A refused folder, or an existing one that knap did not
    make, gives way to the user's cache folder, with one line on stderr saying so."""
    from engine.lint import cache as lint_cache

    project = Path(config.get("_root", ".")).resolve()
    configured = config.get("cache-dir")
    if explicit:
        folder, named = Path(explicit), f"--cache-dir `{explicit}`"
    else:
        named = (
            f"`cache-dir = {json.dumps(configured, default=str)}` of {project / 'pyproject.toml'}"
            if configured is not None
            else "the folder `.knap_cache`"
        )
        folder = project / configured if isinstance(configured, str) and configured else project / ".knap_cache"
        if not isinstance(configured, (str, type(None))) or configured == "":
            return _cache_refused(named, "it is not a folder name", "write a folder inside the project")
        if not folder.resolve().is_relative_to(project):
            return _cache_refused(
                named,
                f"it leads outside the project ({project})",
                "use a folder inside the project, or pass --cache-dir",
            )
    if lint_cache.owned(folder) is False:
        return _cache_refused(
            named,
            "that folder exists and was not made by knap, which adds files only to a folder it made",
            "name a folder that does not exist yet, and knap makes it",
        )
    return folder


def _cache_refused(named: str, why: str, remedy: str) -> Path | None:
    from engine.lint import cache as lint_cache

    fallback = lint_cache.fallback_folder()
    if fallback is not None and lint_cache.owned(fallback) is False:
        fallback = None
    instead = f"the cache goes to {fallback} instead" if fallback else "lint runs without a cache"
    print(f"knap: not using {named} for the cache: {why}; {instead}; {remedy}", file=sys.stderr)
    return fallback


def _print_stats(stats):
    from rich.table import Table

    table = Table(title="Packs", show_lines=False)
    for column in ("pack", "documents", "cards (copies)", "DSL texts", "placeholder", "assumption", "reference"):
        table.add_column(column, justify="left" if column == "pack" else "right")
    for s in stats:
        table.add_row(
            markup(s.pack),
            str(sum(s.documents.values())),
            f"{s.cards} ({s.card_copies})",
            str(s.effects),
            str(s.provenance.get("placeholder", 0)),
            str(s.provenance.get("assumption", 0)),
            str(s.provenance.get("reference", 0)),
        )
    safe_console(width=100).print(table)


def _list(args) -> int:
    from engine.content.packs import display, pack_summary

    rows = []
    for found in known_packs():
        summary = pack_summary(found.folder)
        rows.append(
            {
                "id": found.id,
                "name": summary["name"],
                "players": summary["players"],
                "from": found.origin,
                "path": display(found.folder),
                "used": found.used,
                "hidden_by": found.hidden_by,
            }
        )
    if args.format == "json":
        _write(dumps({"packs": rows}, indent=2), args.output)
        return EXIT_CLEAN
    from rich.table import Table
    from rich.text import Text

    hidden = any(not row["used"] for row in rows)
    table = Table(title="Packs, in lookup order (the first of an id is used)", title_justify="left")
    for column in ("id", "name", "players", "from", "path") + (("",) if hidden else ()):
        table.add_column(
            column,
            no_wrap=column in ("id", "players", "from"),
            overflow="fold",
            min_width=12 if column == "name" else None,
        )
    for row in rows:
        low_high = row["players"]
        players = (
            "?"
            if low_high is None
            else str(low_high[0])
            if low_high[0] == low_high[1]
            else f"{low_high[0]}–{low_high[1]}"
        )
        cells = [row["id"], row["name"] or "?", players, row["from"], row["path"]]
        if hidden:
            cells.append("" if row["used"] else f"hidden by the {row['hidden_by']} one")
        # pack text as plain Text: no markup, and no control character reaches the terminal
        table.add_row(*(Text(plain(cell), style="" if row["used"] else "dim") for cell in cells))
    console, buffer = text_console(args.output)
    console.print(table)
    if buffer is not None:
        _write(buffer.getvalue(), args.output)
    if not rows:
        print("No packs found: add one to content/ or name folders of packs in KNAP_PACKS.", file=sys.stderr)
    return EXIT_CLEAN


def _schema_export(args) -> int:
    from .schema_export import export

    try:
        written = export(Path(args.directory), args.draft)
    except WriteError as exc:
        print(f"knap: {exc}", file=sys.stderr)
        return EXIT_FINDINGS
    except OSError as exc:
        print(f"knap: cannot write the schemas into {args.directory}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_FINDINGS
    for path in written:
        print(path)
    return EXIT_CLEAN


def _schema_editor(args) -> int:
    from . import editor_settings as setup

    root = Path(args.root)
    try:
        if not root.is_dir():
            raise setup.SetupError(f"the workspace `{args.root}` is not a folder")
        folders = [Path(f) for f in args.folders] or [root / "content"]
        if not args.folders and not folders[0].is_dir():
            raise setup.SetupError(
                f"there is no `content` folder in `{args.root}`",
                "name the folders that hold your packs: knap schema editor FOLDER...",
            )
        patterns = setup.globs(root, folders)
        schema = Path(args.schema) if args.schema else setup.default_schema()
        reference = setup.schema_reference(root, schema, relative=args.vscode or args.style == "vscode")
        if args.vscode:
            print(setup.write_vscode(root, reference, patterns))
        else:
            sys.stdout.write(setup.render(args.style, reference, patterns))
    except setup.SetupError as exc:
        print(f"knap: {visible(str(exc))}", file=sys.stderr)  # paths are the user's: no raw control characters
        if exc.hint:
            print(f"  hint: {exc.hint}", file=sys.stderr)
        return EXIT_USAGE if exc.usage else EXIT_FINDINGS
    return EXIT_CLEAN


def _diff(args) -> int:
    from engine import lint, report
    from engine.content import compose
    from engine.content.packs import display, find_pack, pack_files

    from . import diff
    from .targets import pack_target

    target = pack_target(args.pack)
    if target is None:
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
        print(f"knap: `{plain(variant.pack_id)}` extends no pack: there is nothing to compare it with", file=sys.stderr)
        return EXIT_USAGE
    found = [(n, base_id, result.effective[find_pack(base_id, root)]) for n, base_id in enumerate(variant.bases)]
    base = found[0][2] if len(found) == 1 else compose.compose("", {}, None, [], found, lambda *a, **k: None)
    changes = diff.diff(base, variant, {display(p) for p in pack_files(root)}, variant.removals)
    _write(dumps(changes, indent=2) if args.format == "json" else diff.text(changes, full=args.full), args.output)
    return EXIT_CLEAN


def _graph(args) -> int:
    from engine import lint, report
    from engine.content.packs import pack_cards
    from engine.lint import graph as techgraph

    from .targets import pack_target

    target = pack_target(args.pack)
    if target is None:
        return EXIT_USAGE
    result = lint.lint([target], None)
    effective = next(iter(result.effective.values()), None)  # what is played, with what it inherits
    cards = effective.by_id() if effective is not None else pack_cards(target)
    cards = {i: d for i, d in cards.items() if d.get("kind") == "card"}
    graph = techgraph.build(cards)
    if not args.all:
        graph = techgraph.involved(graph)
    title = target.name
    renderer = {
        "dot": lambda g: techgraph.to_dot(g, title),
        "mermaid": techgraph.to_mermaid,
        "json": techgraph.to_json,
    }[args.format]
    _write(plain(renderer(graph), lines=True), args.output)  # labels are pack text: no control characters
    errors = [d for d in result.diagnostics if d.severity.value == "error"]
    if errors:
        print(report.text(errors, result.positions.source_lines), file=sys.stderr)
        return EXIT_FINDINGS
    return EXIT_CLEAN


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
