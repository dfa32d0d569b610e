"""tools/bench/compiled_profile.py charges `perf script` samples to the nearest compiled engine function: the only
profile that sees the compiled runtime, so its reading of perf's text and of Cython's names must be right."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[1] / "tools" / "bench" / "compiled_profile.py"

ENGINE_SO = "/x/engine/runtime/verbs.cpython-311-x86_64-linux-gnu.so"
LIBPYTHON = "/usr/lib/libpython3.11.so.1.0"
# three samples as `perf script` prints them: a header line, frames innermost first, a blank line
PERF_TEXT = f"""python  6633 12.000001:    1000000 cpu-clock:
\t    7f0000000001 unicodekeys_lookup_unicode+0x21 ({LIBPYTHON})
\t    7f0000000002 __Pyx_PyDict_GetItem+0x10 ({ENGINE_SO})
\t    7f0000000003 __pyx_pw_6engine_7runtime_5verbs_14ChooseSecretly_5_first_pending.constprop.0+0x99 ({ENGINE_SO})
\t    7f0000000004 _PyEval_EvalFrameDefault+0x500 ({LIBPYTHON})

python  6633 12.000002:    1000000 cpu-clock:
\t    7f0000000005 _PyObject_Malloc+0x1 ({LIBPYTHON})
\t    7f0000000006 _PyEval_EvalFrameDefault+0x500 ({LIBPYTHON})
\t    7f0000000007 __pyx_pw_6engine_7runtime_11interpreter_15advance+0x3 ({ENGINE_SO})

python  6633 12.000003:    1000000 cpu-clock:
\t    7f0000000008 __memmove_avx_unaligned+0x1 (/usr/lib/libc.so.6)
"""


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("compiled_profile", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_each_sample_goes_to_the_nearest_compiled_function_or_the_interpreter(tool):
    """A Cython helper goes on to the engine function that called it; the interpreter's loop nearer than any compiled
    function is generated code; a sample in neither is other."""
    total, owners = tool.shares(PERF_TEXT.splitlines())
    assert total == 3
    assert dict(owners) == {"verbs.ChooseSecretly._first_pending": 1, tool.PYTHON: 1, tool.OTHER: 1}


@pytest.mark.parametrize(
    "mangled, name",
    [
        ("5verbs_14ChooseSecretly_3run", "verbs.ChooseSecretly.run"),
        ("5verbs_14ChooseSecretly_5_first_pending", "verbs.ChooseSecretly._first_pending"),
        ("11interpreter_15advance", "interpreter.advance"),
        ("5table_5Table_47move", "table.Table.move"),
        ("8protocol_8Decision_1__init__", "protocol.Decision.__init__"),
        ("7session_3play_out", "session.play_out"),
    ],
)
def test_cython_names_read_as_python_names(tool, mangled, name):
    assert tool.readable(mangled) == name


def test_no_samples_is_an_error_not_an_empty_table():
    done = subprocess.run([sys.executable, str(TOOL)], input="", capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert "no samples" in done.stderr
