# Cython's declarations for functions.py, read only when the runtime is compiled (hatch_build.py): the .py stays plain
# Python, run as it is without Cython. `cpdef`: a function this module calls is called in C, without a Python call,
# and stays a Python function for every other caller. Never one a test patches (a call in C would not see the patch).
cimport cython

cpdef _items(g, value)

cpdef _extreme(pick, tuple xs)

cpdef _can_pay_ready(c, zone, joker=*)

cpdef _can_pay_with(c, cost, ready)

cpdef _some_payable_each(c, cards, costs, size, getter, make_ready, ready=*)
