"""Small per-decision costs cut (issue 16), each held to what it replaced:

- `Table.in_play_from` makes one list when the player sits first: the same seats as before, and still a new list
  (callers keep or change it: codegen's `_opponents` slices it, the driver walks it);
- `interpreter.answer` keeps a secret answer without an empty dict made for each: the same answers kept, made when
  a pending decision has none yet.
"""

from __future__ import annotations

import itertools
from types import SimpleNamespace

from engine.runtime.table import Table


def _in_play_from_as_before(state, player):
    order = state["players"]
    try:
        i = order.index(player)
    except ValueError:
        i = 0
    seats = order[i:] + order[:i]
    out = state.get("out")
    return [p for p in seats if p not in out] if out else seats


def test_in_play_from_gives_the_same_seats_in_a_new_list():
    """Every seat (and none, and a stranger) with every set of players out, none out or no `out` at all."""
    cases = 0
    for count in range(5):
        order = [f"P{n}" for n in range(1, count + 1)]
        outs = [None, *(list(chosen) for size in range(count + 1) for chosen in itertools.combinations(order, size))]
        for out in outs:
            state = {"players": order} if out is None else {"players": order, "out": out}
            for player in [*order, "nobody", None]:
                table = SimpleNamespace(state=state)
                seats = Table.in_play_from(table, player)
                assert seats == _in_play_from_as_before(state, player), (order, out, player)
                assert seats is not order
                seats.append("changed")  # a caller that changes its list leaves the table's order alone
                assert "changed" not in order
                assert Table.in_play_from(table, player) is not Table.in_play_from(table, player)
                cases += 1
    assert cases > 100


def test_an_answer_kept_without_a_dict_made_for_it_keeps_the_same_answers():
    """The verbs make `answers` when they ask several at once; a pending decision without it still keeps them."""
    from engine.runtime.interpreter import answer

    for made in (True, False):
        pending = {"by": ["P1", "P2", "P3"], "order": ["P1", "P2", "P3"], "options": [0, 1]}
        if made:
            pending["answers"] = {}
        game = SimpleNamespace(state={"pending": pending, "attempt": None}, settled=None)
        assert answer(game, "P2", 1) is False
        assert answer(game, "P1", 0) is False
        assert pending["answers"] == {"P2": 1, "P1": 0}
        assert pending["by"] == ["P3"]
