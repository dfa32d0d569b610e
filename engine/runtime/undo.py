"""Undoing an action that turns out to be impossible the way it is being done, so that no dead end
reaches the players.

An action chosen from the turn's menu starts with a snapshot of the state (`driver.start_action` keeps it
in `state["attempt"]`) and records each answer given inside it (`path`). When a verb cannot go on,
`fail` puts the snapshot back, keeps the log and the history, and remembers the path as dead
(`state["dead"]`); `live_options` then leaves out every answer already known to lead to a dead end
from the very same state. A question all of whose answers are dead is itself dead, back up to the
action's own choice on the menu.
"""

from __future__ import annotations

from .protocol import SIMULTANEOUS
from .rng import Streams
from .state import State, copy_state

MAX_WHY = 1_000  # characters of the reason an undone action gives (a save's schema allows 4,000)
# `list(range(count))` for the counts of options decisions have, made once: every option is given as a copy of one (a
# slice costs less than a range and a list made of it); these lists themselves are never handed out
MANY_OPTIONS = 256
EVERY_OPTION = tuple(list(range(count)) for count in range(MANY_OPTIONS))


def live_options(g, pending) -> list[int]:
    """Every option, less those already found to lead to a dead end from this very state."""
    count = len(pending["options"])
    state: State = g.state
    dead = state["dead"]
    attempt = state["attempt"]
    # no dead end known, answers of several at once (never pruned), or a decision outside any action: every option
    if not dead or pending["kind"] in SIMULTANEOUS or (attempt is None and pending["kind"] != "action"):
        return EVERY_OPTION[count][:] if count < MANY_OPTIONS else list(range(count))
    path = [] if attempt is None else attempt["path"]
    depth = len(path)
    gone = {d[-1] for d in dead if len(d) == depth + 1 and d[:depth] == path}
    return [i for i in range(count) if i not in gone]


def fail(g, why: str | None = None):
    """The current action cannot be done this way: restore the state from before it and remember
    the answers that led here, so they are not offered again (no dead ends reach the players).
    `why` (why.py) is kept for the menu and logged for the player: "<action> undone: <why>"."""
    state: State = g.state
    attempt = state["attempt"]
    if attempt is None:
        # outside an action (setup, a phase): the effect just stops
        state["stack"].pop()
        return
    dead = state["dead"] + [attempt["path"]]
    # a question all of whose answers are dead ends is itself a dead end, up to the action's own choice
    prefix, counts = attempt["path"], attempt["counts"]
    while len(prefix) > 1 and counts[len(prefix) - 1] >= 0:
        parent = prefix[:-1]
        gone = {d[-1] for d in dead if len(d) == len(prefix) and d[:-1] == parent}
        if len(gone) < counts[len(prefix) - 1]:
            break
        dead.append(parent)
        prefix = parent
    snap = attempt["snap"]
    log, history = state["log"][: attempt["log"]], state["history"]
    undone = dict(state.get("undone") or {})
    # emptied and refilled in place (everyone holding `g.state` sees the old state again): a TypedDict's
    # type has no clear(), as it would drop required keys, which the update puts back at once
    state.clear()  # type: ignore[attr-defined]
    # a copy: the snapshot may be shared by clones (imagine.py), and the state goes on from it
    state.update(copy_state(snap, shared=("params",)))  # type: ignore[arg-type, typeddict-item]
    g.held_memo = {}
    state["log"], state["history"], state["dead"] = log, history, dead
    g.rng = Streams(state["rng"], state["seed"])
    action = attempt["action"]
    why = (why or undone.get(action) or "it cannot be done this way")[:MAX_WHY]
    undone[action] = why
    state["undone"] = undone
    me, name = state["turn"]["player"], g.label(action)
    g.log(f"{me} takes back {name}", {me: f"{name} undone: {why}"})
