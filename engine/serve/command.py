"""`knap serve [PACK ...] [--port P] [--host H]`: resolve the packs, build the app, run it with uvicorn."""

from __future__ import annotations

import sys
from pathlib import Path

from engine.content.pack_search import known_packs, unknown_message
from engine.content.packs import MANIFEST, resolve_target
from engine.safe_text import plain

EXIT_CLEAN, EXIT_USAGE = 0, 2
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def pack_roots(names: list[str]) -> list[Path] | None:
    """The pack folders named (folders or pack ids), or every pack `knap list` finds; None once the reason
    has been printed."""
    if not names:
        return [found.folder for found in known_packs(strict=False) if found.used]
    roots = []
    for name in names:
        target = resolve_target(name)
        if target is None or not (target / MANIFEST).is_file():
            print(f"knap: {plain(unknown_message(name))}", file=sys.stderr)
            return None
        roots.append(target)
    return roots


def serve(args) -> int:
    roots = pack_roots(args.packs)
    if roots is None:
        return EXIT_USAGE
    if not 0 <= args.port <= 65535:
        print("knap: --port takes a number from 0 to 65535", file=sys.stderr)
        return EXIT_USAGE
    import uvicorn

    from .app import create_app

    app = create_app(roots)
    if args.host not in LOOPBACK:
        print(
            f"knap: serving on {plain(args.host)}: anyone who can reach this address can open every table",
            file=sys.stderr,
        )
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"knap serve: {len(roots)} pack(s) at http://{plain(shown)}:{args.port}/ (Ctrl-C stops)", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning", access_log=False)
    return EXIT_CLEAN
