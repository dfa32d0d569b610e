"""`knap serve [PACK ...] [--port P] [--host H]`: resolve the packs, build the app, run it with uvicorn."""

from __future__ import annotations

import socket
import sys
from pathlib import Path

from engine.content.pack_search import known_packs, unknown_message
from engine.content.packs import MANIFEST, resolve_target
from engine.safe_text import plain

EXIT_CLEAN, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
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
    # bound here, first, before uvicorn starts: the address printed names the port listened on (`--port 0`: a free
    # one, which a script or a test reads back from that line), and a port in use is one line of ours, not a log
    ipv6 = ":" in args.host
    try:
        listening = socket.create_server((args.host, args.port), family=socket.AF_INET6 if ipv6 else socket.AF_INET)
    except OSError as exc:
        why = plain(exc.strerror or str(exc))
        print(f"knap: cannot listen on {plain(args.host)} port {args.port}: {why}", file=sys.stderr)
        print(
            "  hint: another program may hold that port; choose another with --port (0: any free one)", file=sys.stderr
        )
        return EXIT_FAILED
    with listening:
        import uvicorn

        from .app import create_app

        app = create_app(roots)
        if args.host not in LOOPBACK:
            print(
                f"knap: serving on {plain(args.host)}: anyone who can reach this address can open every table",
                file=sys.stderr,
            )
        port = listening.getsockname()[1]
        shown = f"[{args.host}]" if ipv6 else args.host
        print(f"knap serve: {len(roots)} pack(s) at http://{plain(shown)}:{port}/ (Ctrl-C stops)", flush=True)
        config = uvicorn.Config(app, host=args.host, port=port, log_level="warning", access_log=False)
        uvicorn.Server(config).run(sockets=[listening])
    return EXIT_CLEAN
