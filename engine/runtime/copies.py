"""Copies of a game's state (plain data): `copy_state`, the undo snapshot's and a clone's, and `plain_copy`. A module
of its own, compiled (pyproject.toml), where state.py, which holds the state's types, is not: a copy's work is
small maps and lists one by one, which interpreted costs some times what it costs compiled (issue 16)."""

from __future__ import annotations

import marshal


def plain_copy(data):
    """A deep copy of plain data (dicts, lists, text, numbers): marshal does it in C, far faster than
    copy.deepcopy."""
    return marshal.loads(marshal.dumps(data))


_FLAT_LISTS = ("loc", "orient")  # a state's lists of numbers and texts only: a slice is their deep copy
_SCALARS = frozenset((str, int, bool, float, type(None)))  # immutable: a copy may share them


def copy_state(data: dict, shared: tuple = (), skip: tuple = ()) -> dict:
    """`plain_copy` of a state (or of part of one), the same keys in the same order. Its largest parts hold only
    numbers and texts one level down: the zones (lists of card numbers), `loc` and `orient`; a slice of each list is
    its deep copy. The rest are small maps and lists (the turn, the stack's frames, the decision pending): each is
    copied by `_copied`, a `dict.copy` or `list.copy` in C that shares the texts and numbers, where marshal's round
    trip made every one of them anew (some thousand instructions a map or list, some times what its copy costs).
    The undo snapshot at each action's start (driver.start_action) and `clone` pay for it (issue 16).
    `shared`: keys whose values are kept as they are, for a caller that knows nothing changes them; `skip`: keys
    left out of the copy. Which key goes where is worked out once per shape of state (`_copy_plan`)."""
    keys = tuple(data)
    plan = _COPY_PLANS.get((keys, shared, skip))
    if plan is None:
        plan = _copy_plan(keys, shared, skip)
    skipped, copied_keys, flat_lists, copies_rng, copies_zones = plan
    copied = data.copy()  # (the same keys in the same order, in C; the shared parts are the source's)
    for key in skipped:
        del copied[key]
    memo: dict = {}  # (a map or list held in two places is copied once: both places hold the one copy, as marshal's)
    for key in copied_keys:
        value = data[key]
        kind = type(value)
        if kind is not str and kind is not int and value is not None and kind not in _SCALARS:
            copied[key] = _copied(value, memo, 0)
    # the flat lists, `rng` and the zones (TypeError: a part of another shape, as in a state built by hand): compiled,
    # a list or map of exactly its usual type is read as one, each copy and item read a C call, not a call of
    # `list.copy` or a `map` of `type` (issue 16); one of a type of its own kind as before
    try:
        for key in flat_lists:
            flat = data[key]
            if type(flat) is list:
                values: list = flat
                copied[key] = values.copy()
            else:
                copied[key] = list.copy(flat)
        if copies_rng:
            rng = data["rng"]
            if type(rng) is dict:
                streams: dict = rng
                for number in streams.values():
                    if type(number) is not int and type(number) not in _SCALARS:
                        raise TypeError
                copied["rng"] = streams.copy()
            else:
                if not _SCALARS.issuperset(map(type, dict.values(rng))):
                    raise TypeError
                copied["rng"] = rng.copy()
        if copies_zones:
            zones = data["zones"]
            lists = _copied_zones(zones) if type(zones) is dict else None
            if lists is None:
                lists = dict(zip(zones, map(list.copy, dict.values(zones)), strict=True))
            copied["zones"] = lists
    except TypeError:
        _copy_apart(data, copied, plan)
    return copied


def _copied_zones(zones: dict) -> dict | None:
    """A map of the zones with a copy of each list, in the zones' order; None if a zone's cards are not exactly a list
    (copy_state then copies them as before). Compiled, each list read and copied in C."""
    lists = {}
    for zone, cards in zones.items():
        if type(cards) is not list:
            return None
        listed: list = cards
        lists[zone] = listed.copy()
    return lists


def _copied(value, memo: dict, depth):
    """A deep copy of a part of a state, as marshal's: each map and list anew (a map or list met twice, as the one
    copy: `memo`, by the source's id), the texts, numbers, booleans and None as they are (immutable), anything else
    by marshal (a tuple; a value marshal cannot write raises its ValueError, as before). Past `_DEEPEST` levels the
    rest is marshal's too: compiled, each level is a C call that no recursion limit counts, and a save may nest lists
    deeply; marshal stops at its own limit with a ValueError.
    Compiled, the map is read as a `dict` (its type checked first): its copy and its items in C (`PyDict_Copy`,
    `PyDict_Next`), not by a call of `dict.items` and a pair made an item; a text or a number, most items, is told
    by comparing its type, not by a lookup in `_SCALARS` (issue 16: a clone copies some thirty maps and lists)."""
    if depth > _DEEPEST:
        return plain_copy(value)
    kind = type(value)
    if kind is dict:
        source = id(value)
        found = memo.get(source)
        if found is not None:
            return found
        mapping: dict = value
        copy: dict = mapping.copy()
        memo[source] = copy
        for key, item in mapping.items():
            kind = type(item)
            if kind is not str and kind is not int and item is not None and kind not in _SCALARS:
                copy[key] = _copied(item, memo, depth + 1)
        return copy
    if kind is list:
        source = id(value)
        found = memo.get(source)
        if found is not None:
            return found
        items: list = value
        copied: list = items.copy()
        memo[source] = copied
        for index in range(len(items)):  # (a loop in C: most lists hold card numbers or texts alone)
            item = items[index]
            kind = type(item)
            if kind is not str and kind is not int and item is not None and kind not in _SCALARS:
                copied[index] = _copied(item, memo, depth + 1)
        return copied
    if kind in _SCALARS:
        return value
    return plain_copy(value)


_DEEPEST = 100  # levels of maps and lists copied by `_copied` itself (a state's parts nest some five deep)


# (the state's keys, shared, skip) -> how copy_state copies such a state: keyed by all it reads, so never stale; a
# game's states have a handful of shapes (a state built by hand may add more: the plans are dropped past _MOST_PLANS)
_COPY_PLANS: dict[tuple, tuple] = {}
_MOST_PLANS = 64


def _copy_plan(keys: tuple, shared: tuple, skip: tuple) -> tuple:
    """For copy_state: the keys left out; the keys copied by `_copied` (in order); the flat lists; whether `rng` and
    the zones are copied apart. A key both skipped and shared is skipped; a part both shared and copied apart is
    shared."""
    kept = tuple(key for key in keys if key not in skip)
    skipped = tuple(key for key in keys if key in skip)
    flat_lists = tuple(key for key in kept if key in _FLAT_LISTS and key not in shared)
    copies_rng, copies_zones = ("rng" in kept and "rng" not in shared), ("zones" in kept and "zones" not in shared)
    apart = (*flat_lists, *("rng",) * copies_rng, *("zones",) * copies_zones)
    copied_keys = tuple(key for key in kept if key not in shared and key not in apart)
    if len(_COPY_PLANS) >= _MOST_PLANS:
        _COPY_PLANS.clear()
    plan = _COPY_PLANS[keys, shared, skip] = (skipped, copied_keys, flat_lists, copies_rng, copies_zones)
    return plan


def _copy_apart(data: dict, copied: dict, plan: tuple) -> None:
    """For copy_state, a state whose flat lists, `rng` or zones are not all of their usual shape (a state built by
    hand): each list sliced, a map of scalars copied, anything else copied by marshal."""
    _, _, flat_lists, copies_rng, copies_zones = plan
    for key in flat_lists:
        values = data[key]
        copied[key] = values[:] if type(values) is list else plain_copy(values)
    if copies_rng:
        rng = data["rng"]
        scalars_only = type(rng) is dict and _SCALARS.issuperset(map(type, rng.values()))
        copied["rng"] = rng.copy() if scalars_only else plain_copy(rng)
    if copies_zones:
        zones = data["zones"]
        if type(zones) is dict:
            copied["zones"] = {
                zone: cards[:] if type(cards) is list else plain_copy(cards) for zone, cards in zones.items()
            }
        else:
            copied["zones"] = plain_copy(zones)
