# Cython's declarations for copies.py, read only when the runtime is compiled (hatch_build.py): the .py stays plain
# Python, run as it is without Cython. `cpdef`: the copy of each map and list calls the next in C, without a Python
# call, and stays a Python function for every other caller. Never one a test patches.
cimport cython

cpdef _copied(value, dict memo, depth)

# copy_state's copy of the zones' lists, called in C
cpdef _copied_zones(dict zones)
