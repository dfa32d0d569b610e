"""Places that hold a limited number of cards, and rows whose cards slide together.

A zone may declare `capacity: N`: at most N cards lie there at once — over all players together when
every player has one (workers of several players sharing one place on the board). A move that would
overfill it is a content error, so a rule that forgets a capacity is caught the first time it happens
rather than silently playing another game. `room` says how much is left; `slide` closes the gaps of a
row of slots towards its first slot and fills the places left at its end from a zone.
"""

from __future__ import annotations

from .errors import ContentError


def capacity_of(g, key: str):
    """The zone's declared capacity, or None when it is unlimited."""
    if key in g._zone_defs:  # the layout's table (layout.py)
        return g._capacity.get(key)
    cap = g.zone_def(key).get("capacity")
    return None if cap is None else int(cap)


def cards_in_place(g, key: str) -> int:
    """Cards in the zone; for a zone every player has, in all players' zones of that id together."""
    zones = g.state["zones"]
    keys = g.layout.place.get(key)
    if keys is None:
        keys = g.zone_keys(key.split(":")[0]) if ":" in key else [key]
    elif key not in g._slotted:  # no gaps to skip: the lengths are the counts (one zone id, one kind)
        return sum(map(len, map(zones.__getitem__, keys)))
    return sum(1 for k in keys for x in zones.get(k, ()) if x is not None)


def room(g, key: str) -> int:
    """How many more cards fit: the free slots of a row of slots, what is left of a capacity, else as many
    as the game has cards (no limit)."""
    cap = g._capacity.get(key)  # a capacity of the layout (its keys only): a place on the board, most often
    if cap is not None and key not in g._slotted:
        zones = g.state["zones"]
        return max(0, cap - sum(map(len, map(zones.__getitem__, g.layout.place[key]))))
    if key in g._zone_defs:  # the layout's tables: one zone, or all players' zones of one id
        cap = g._capacity.get(key)
        if key in g._slotted:
            if cap is None:
                return g.state["zones"][key].count(None)
        elif cap is None:
            return len(g._card_defs)
        else:
            zones = g.state["zones"]
            return max(0, cap - sum(map(len, map(zones.__getitem__, g.layout.place[key]))))
    cap = capacity_of(g, key)
    if cap is None and g.slotted(key):
        return g.state["zones"][key].count(None)
    if cap is None:
        return len(g.rules.instances)
    return max(0, cap - cards_in_place(g, key))


def check_capacity(g, target: str, source: str) -> None:
    """Refuse a move that would put more cards in a place than its capacity (a move inside it is fine)."""
    cap = capacity_of(g, target)
    if cap is None or source.split(":")[0] == target.split(":")[0]:
        return
    if cards_in_place(g, target) >= cap:
        raise ContentError(
            f"{g.zone_name(target)} is full: it holds at most {cap} (its `capacity`); "
            "check for room with `room(...)` before moving cards there",
            code="X112",
        )


def slide(g, key: str, source: str | None) -> list[int]:
    """Move the cards of a row of slots towards slot 1, keeping their order, then fill the empty slots at
    the end, in slot order, from the top of `source`. Returns the cards that came in."""
    if not g.slotted(key):
        raise ContentError(f"`slide` needs a row with slots; {g.zone_name(key)} is not one", code="X113")
    cards = g.own_zone(key)
    kept = [x for x in cards if x is not None]
    cards[:] = kept + [None] * (len(cards) - len(kept))
    if g.held_memo:
        g.held_memo = {}
    came = []
    if source is not None:
        for slot in range(len(kept) + 1, len(cards) + 1):
            pile = g.state["zones"][source]
            if not any(x is not None for x in pile) and not g.refill(source):
                break
            card = next(x for x in reversed(pile) if x is not None)
            g.move(card, key, slot)
            came.append(card)
    return came
