# Cython's declarations for imagine.py, read only when the runtime is compiled (hatch_build.py): the .py stays plain
# Python, run as it is without Cython. Typed locals: the shuffle's words are read byte by byte and its places worked
# out in C (no number boxed, no call a card). Never a function a test patches (`shuffle`, which tests patch, calls it).
cimport cython

@cython.locals(count=Py_ssize_t, words=bytes, end=Py_ssize_t, at=Py_ssize_t, i=Py_ssize_t, j=Py_ssize_t, width=int, word=cython.uint)
cpdef _shuffled(bits, list cards, tuple widths)
