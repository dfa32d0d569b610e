"""Regenerate the reference pages that are derived from code: docs/dsl.md, docs/lint-rules.md and
docs/runtime-errors.md."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.dsl.docs import render_dsl
from engine.lint.docs import render_rules
from engine.runtime.error_codes import render_page as render_runtime_errors

PAGES = {"docs/dsl.md": render_dsl, "docs/lint-rules.md": render_rules, "docs/runtime-errors.md": render_runtime_errors}

if __name__ == "__main__":
    for relative, render in PAGES.items():
        (ROOT / relative).write_text(render(), encoding="utf-8")
        print(f"wrote {relative}")
