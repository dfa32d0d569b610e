"""The pack a command's argument names: a folder, or a pack id looked up as `knap list` shows."""

from __future__ import annotations

import sys
from pathlib import Path

from engine.content.pack_search import unknown_message
from engine.content.packs import MANIFEST, resolve_target
from engine.safe_text import plain


def pack_target(name: str) -> Path | None:
    """The pack folder a command argument names (a folder, or a pack id looked up as `knap list` shows),
    or None once the reason has been printed."""

    target = resolve_target(name)
    if target is None:
        print(f"knap: {plain(unknown_message(name))}", file=sys.stderr)  # a name may come from a replay log
        return None
    if not (target / MANIFEST).is_file():
        print(f"knap: `{plain(name)}` is not a pack folder (it has no {MANIFEST})", file=sys.stderr)
        return None
    return target
