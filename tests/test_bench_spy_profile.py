"""tools/bench/spy_profile.py: py-spy's raw samples read as each function's share, inclusive and its own."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("spy_profile", ROOT / "tools" / "bench" / "spy_profile.py")
assert _spec is not None and _spec.loader is not None
spy_profile = importlib.util.module_from_spec(_spec)
sys.modules["spy_profile"] = spy_profile
_spec.loader.exec_module(spy_profile)

RAW = [
    # outermost first; a line's last word is its count of samples
    (
        "<module> (play.py:19);advance (interpreter.c:9074);run_from_0 ([lowered action.take_piece.effect]:12);"
        "_copies (functions.c:8358);Py_DECREF (object.h:537);_Py_Dealloc (libpython3.11.so.1.0) 3"
    ),
    "<module> (play.py:19);advance (interpreter.c:9074);run_from_0 ([lowered action.take_piece.effect]:14) 2",
    "<module> (play.py:19);advance (interpreter.c:9100);advance (interpreter.c:9200) 1",
    "<module> (play.py:19);0x7ff80be4524a (libc.so.6) 4",
    "not a line",
]
# an effect whose name holds ".h" (`action.hardest_club`) is generated code, not a C header's inlined helper
HEADER_LIKE = [
    "<module> (play.py:19);advance (interpreter.c:9074);run_from_1 ([lowered action.hardest_club.effect]:12) 2",
    "<module> (play.py:19);advance (interpreter.c:9074);Py_INCREF (object.h:537) 1",
]


def test_each_function_counts_a_sample_once_inclusive_and_its_own_where_it_is_innermost():
    total, inclusive, own = spy_profile.shares(RAW)
    assert total == 10
    assert inclusive["advance (interpreter)"] == 6  # on the stack twice in one sample: counted once
    assert inclusive["run_from_0 ([lowered action.take_piece.effect])"] == 5  # both lines, whatever the line number
    assert own["_copies (functions)"] == 3  # CPython's own work below it is its own
    assert own["run_from_0 ([lowered action.take_piece.effect])"] == 2
    assert own["advance (interpreter)"] == 1
    assert own["<module> (play.py)"] == 4  # (a bare address is nobody's: the caller's)


def test_an_effect_named_like_a_header_is_its_own_and_a_header_is_not():
    total, inclusive, own = spy_profile.shares(HEADER_LIKE)
    assert inclusive["advance (interpreter)"] == 3
    assert total == 3
    assert own["run_from_1 ([lowered action.hardest_club.effect])"] == 2
    assert own["advance (interpreter)"] == 1  # (the header's helper below it: its caller's)
    assert "Py_INCREF (object.h)" not in own


def test_the_report_leaves_out_cpythons_machinery_and_filters_by_name():
    text = spy_profile.report(RAW, top=10)
    assert text.startswith("10 samples")
    assert "Py_DECREF" not in text and "libc" not in text
    assert " 50.00 %  20.00 %  run_from_0 ([lowered action.take_piece.effect])" in text
    only = spy_profile.report(RAW, top=10, only="lowered").splitlines()
    assert len(only) == 2 and "take_piece" in only[1]


def test_the_report_of_kept_samples_from_the_command_line(tmp_path, capsys):
    raw = tmp_path / "samples.raw"
    raw.write_text("\n".join(RAW) + "\n")
    assert spy_profile.main(["--from", str(raw), "--top", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("10 samples") and len(out) == 4
