# Cython's declarations for protocol.py, read only when the runtime is compiled (hatch_build.py): the .py stays plain
# Python, run as it is without Cython. Typed locals: the look for an option twice among a player's own runs as a C loop
# (no range made, no number boxed at each turn). Never a function a test patches.
cimport cython

@cython.locals(i=Py_ssize_t, kept=list)
cpdef allowed_for(pending, player, live)
