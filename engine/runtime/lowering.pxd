# Cython's declarations for lowering.py, read only when the runtime is compiled (hatch_build.py): the .py stays plain
# Python, run as it is without Cython. `cpdef`: `run_performed` calls `run_lowered` in C, without a Python call (once
# for every `perform` a lowered effect makes); every other caller calls a Python function. Never one a test patches (a
# call in C would not see the patch).
cimport cython

cpdef run_lowered(g, frame, code)
