"""A cost paid in cards: whether the cards at hand cover it. Shared by the `pay_cost` verb (verbs.py) and
the DSL function that asks whether a cost can be paid (functions.py), which must agree."""

from __future__ import annotations

from itertools import repeat
from operator import ge, sub


def joker_of(value) -> tuple[str | None, int]:
    """The joker set a `with [card, n]` names: (card id, how many stand for one item), or (None, 0)."""
    if isinstance(value, list) and len(value) == 2:
        return value[0], int(value[1])
    return None, 0


def cost_payable(items, counts, joker=None, n=0) -> bool:
    """Whether cards counted by id (`counts`) cover the cost `items`, `n` jokers standing for any one item.
    Paying a joker item with jokers never helps, so only the shortfall of other items needs jokers: for each
    item, what it needs beyond the cards of its id. The items are compared by `map` (no Python step per item:
    a menu checks many costs): without jokers, each item's cards must cover it."""
    try:
        kinds, needs, jokers_named = _counted[tuple(items), joker]  # a cost seen before (the commonest)
    except (KeyError, TypeError):
        kinds, needs, jokers_named = _split(items, joker)
    if not (joker and n):
        return all(map(ge, map(counts.get, kinds, ZEROS), needs))
    spare = counts.get(joker, 0) - jokers_named
    # what the cards of each id leave unpaid, paid with `n` jokers each
    return spare >= 0 and sum(map(max, map(sub, needs, map(counts.get, kinds, ZEROS)), ZEROS)) * n <= spare


# 0 for ever: the default of each count read and the floor of each shortfall (`map` stops with the items)
ZEROS = repeat(0)


_COUNTED_KEPT = 4_096  # costs kept (a pack has a few dozen) before the table starts again
_counted: dict[tuple, tuple[tuple, tuple, int]] = {}


def counted(items, joker) -> tuple[tuple[tuple, ...], int]:
    """A cost's items other than the joker counted, ((item, how many), ...) in the order each first comes, and how
    many joker items it names (a joker item is paid with joker cards only)."""
    kinds, needs, named = _split(items, joker)
    return tuple(zip(kinds, needs, strict=True)), named


_SPLIT_TABLES_KEPT = 64  # jokers with a table of their own (a pack has one or two) before the tables start again
_split_tables: dict = {}


def split_table(joker) -> dict:
    """The costs seen with `joker` split as `counted` splits them (items, how many of each, joker items), under the
    cost itself: a loop over many costs with the same joker reads one table (filled by `split_kept`) without a key
    made per cost. An empty table, never filled, for a joker that cannot be a key (`cost_payable` says what is
    wrong)."""
    try:
        table = _split_tables.get(joker)
    except TypeError:
        return {}
    if table is None:
        if len(_split_tables) >= _SPLIT_TABLES_KEPT:
            _split_tables.clear()
        table = _split_tables[joker] = {}
    return table


def split_kept(table: dict, items: tuple, joker) -> None:
    """`items` (a cost that can be a key, with `joker` the table's) split into `table`, which starts again when full."""
    if len(table) >= _COUNTED_KEPT:
        table.clear()
    table[items] = _split(items, joker)


def _split(items, joker) -> tuple[tuple, tuple, int]:
    """`counted` as (the items, how many of each, the joker items), kept under the cost and the joker themselves,
    so never out of date: a menu checks the same printed costs again and again."""
    key = (tuple(items), joker)
    try:
        found = _counted.get(key)
    except TypeError:  # a joker that is a list (an item that is one cannot be counted either: the count says so)
        return _counting(items, joker)
    if found is None:
        if len(_counted) >= _COUNTED_KEPT:
            _counted.clear()
        found = _counted[key] = _counting(items, joker)
    return found


def _counting(items, joker) -> tuple[tuple, tuple, int]:
    needs: dict = {}
    named = 0
    for item in items:
        if item == joker:
            named += 1
        else:
            needs[item] = needs.get(item, 0) + 1
    return tuple(needs), tuple(needs.values()), named
