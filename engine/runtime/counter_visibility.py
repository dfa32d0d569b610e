"""Who may read a counter's number: `visibility` in counters.yaml.

`public` (the default): everyone. `owner`: only the player the counter belongs to (tokens laid face down in
front of a player). `hidden`: nobody (the tokens left in an opaque bag). A player who may not read a
counter sees `HIDDEN` in their view instead of its number, and the log tells them that it changed, never
by how much: an amount taken from a hidden counter (a thief taking "all" of someone's tokens) would give
its value away. A change by nothing is logged all the same: a line missing when there was nothing to take
would tell them the count was 0.
"""

from __future__ import annotations

from .state import counter_keys

HIDDEN = "?"  # what a view shows instead of a number its player may not read


def can_read(rules, counter_id: str, owner, player) -> bool:
    """Whether `player` (None: a spectator) may read `owner`'s counter (`owner` is a seat or "table")."""
    visibility = rules.counters.get(counter_id, {}).get("visibility", "public")
    if visibility == "public":
        return True
    return visibility == "owner" and player is not None and owner == player


def counters_seen(g, player) -> dict:
    """The view's counters: by owner and counter id, each value or HIDDEN."""
    return {
        owner: {
            counter: (_in_order(g.rules, counter, value) if type(value) is dict else value)
            if can_read(g.rules, counter, owner, player)
            else HIDDEN
            for counter, value in values.items()
        }
        for owner, values in g.state["counters"].items()
        if values
    }


def _in_order(rules, counter_id: str, values: dict) -> dict:
    """A counter with `keys` as a mapping key -> number, in the order its keys are declared (a loaded save
    may hold them in another)."""
    return {key: values[key] for key in counter_keys(rules.counters[counter_id]) or values if key in values}


def read_by_all(rules, counter_id: str) -> bool:
    """Whether every player and spectator may read the counter, whoever owns it."""
    return rules.counters.get(counter_id, {}).get("visibility", "public") == "public"


def change_line(g, owner, counter_id: str, changed: int, viewers, sign: int = 0) -> str:
    """The log line of a counter's change as all of `viewers` may read it: the amount only if they all
    may read the counter. `sign` says which way a change by nothing went (a gain or a loss of 0)."""
    spec = g.rules.counters[counter_id]
    shown = all(can_read(g.rules, counter_id, owner, p) for p in viewers)
    up = changed > 0 or (changed == 0 and sign > 0)
    if spec.get("owner") == "player":
        verb = "gains" if up else "loses"
        return f"{owner} {verb} {abs(changed) if shown else 'some'} {counter_id}"
    name = spec.get("name", counter_id)
    if shown:
        return f"{name}: {changed:+d}"
    return f"{name}: {'some added' if up else 'some taken'}"
