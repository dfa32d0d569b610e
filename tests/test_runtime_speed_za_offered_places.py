"""A secret choice offers each chooser the places of their options as slices of one list made once
(verbs._PLACES; compiled, `list(range(n))` costs several times more): the same places as before, each offer a list
of its own (the state is plain data, changed in place by later rounds), and more places than the list holds
made the long way (issue 16)."""

from __future__ import annotations

import pytest
from test_runtime_speed_zi_secret_written import _secret

from engine.runtime import verbs


@pytest.mark.parametrize("count", [2, 3, verbs._MANY_PLACES, verbs._MANY_PLACES + 6])
def test_each_chooser_is_offered_every_place_in_a_list_of_its_own(tmp_path, count):
    """The offers are `list(range(n))`'s, for a few options and for more than `_PLACES` holds; no two choosers
    share a list, and none is `_PLACES` itself (a change to an offer would change every later one)."""
    source = "[" + ", ".join(str(n) for n in range(count)) + "]"
    *_, frame = _secret(tmp_path, source, words=' taking 1 with "Which?"')  # (one pick each keeps no offers)
    offers = frame["wait"]["offer"]
    assert offers and all(offer == list(range(count)) for offer in offers.values())
    lists = [*offers.values(), verbs._PLACES]
    assert len(set(map(id, lists))) == len(lists)
    assert list(range(verbs._MANY_PLACES)) == verbs._PLACES


def test_the_places_after_a_pick_are_those_range_gave(tmp_path):
    """A choice of several picks offers the places its picks leave room for (`_pending`'s slice): those of
    `list(range(start, end))`, each chooser's in a list of its own."""
    *_, frame = _secret(tmp_path, "[1, 2, 3, 4, 5]", words=' taking 2 with "Which?"')
    offers = frame["wait"]["offer"]
    assert list(offers.values()) == [[0, 1, 2, 3]] * 3  # two picks of five: the first among the first four
    lists = [*offers.values(), verbs._PLACES]
    assert len(set(map(id, lists))) == len(lists)
