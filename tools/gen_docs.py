"""Regenerate the reference pages that are derived from code: docs/dsl.md and docs/lint-rules.md."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.dsl_docs import render_dsl, render_rules  # noqa: E402

PAGES = {"docs/dsl.md": render_dsl, "docs/lint-rules.md": render_rules}

if __name__ == "__main__":
    for relative, render in PAGES.items():
        (ROOT / relative).write_text(render(), encoding="utf-8")
        print(f"wrote {relative}")
