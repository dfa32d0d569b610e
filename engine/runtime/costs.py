"""A cost paid in cards: whether the cards at hand cover it. Shared by the `pay_cost` verb (verbs.py) and
the DSL function that asks whether a cost can be paid (functions.py), which must agree."""

from __future__ import annotations


def joker_of(value) -> tuple[str | None, int]:
    """The joker set a `with [card, n]` names: (card id, how many stand for one item), or (None, 0)."""
    if isinstance(value, list) and len(value) == 2:
        return value[0], int(value[1])
    return None, 0


def cost_payable(items, counts, joker=None, n=0) -> bool:
    """Whether cards counted by id (`counts`) cover the cost `items`, `n` jokers standing for any one item.
    Paying a joker item with jokers never helps, so only the shortfall of other items needs jokers. One
    pass over the items; without jokers it stops at the first item the cards cannot cover."""
    with_jokers = bool(joker and n)
    taken: dict[str, int] = {}
    short = jokers_named = 0
    for item in items:
        if item == joker:  # a joker item is paid with joker cards only
            jokers_named += 1
            continue
        k = taken[item] = taken.get(item, 0) + 1
        if k > counts.get(item, 0):
            if not with_jokers:
                return False
            short += 1
    if not with_jokers:
        return True
    spare = counts.get(joker, 0) - jokers_named
    return spare >= 0 and short * n <= spare
