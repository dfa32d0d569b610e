"""The game state: plain data (dicts, lists, text, numbers) that is JSON at every decision (DESIGN §6).

The TypedDicts below name each part of it; they match `schemas/runtime/save.schema.json` (a test holds
them to it, and holds the state of real games to them). `first_state` is a new game's state, before its
setup effects run. Only `Game` and `Table` (and what they delegate to) write it; the rest reads it
through the names `Game` gives (`g.pending`, `g.turn`, ...).
"""

# no `from __future__ import annotations` here: TypedDict of Python 3.11 sees NotRequired only when the
# annotations are evaluated
from typing import Any, Literal, NotRequired, TypedDict

from .copies import copy_state, plain_copy  # noqa: F401 (importable from here as before)

FORMAT = "knap-state/2"
APPEND_ONLY = ("log", "history")  # state lists whose entries, once appended, never change

Stage = Literal["setup", "main", "turn_end", "round_end", "next", "game_end", "result", "over"]
SETUP_STAGES = ("setup", "next")  # the stages before the first turn (Table.in_setup; verbs.py, without its call)


class Turn(TypedDict):
    player: str
    number: int
    acted: bool  # an action was carried out this turn
    used: dict[str, int]  # action id: times taken this turn
    closing: bool  # the turn is closing: it ends once the stack is empty
    round: NotRequired[int]  # the round, counting from 1: a `rounds` pack's round, else a pass of the seats
    first: NotRequired[str]  # the round's first player (`me` in phases that are nobody's turn)
    next: NotRequired[str]  # whose turn is next (`next_turn`), instead of the next seat's
    round_over: NotRequired[bool]  # this turn ended the round: the next turn begins a new one


class Frame(TypedDict):
    """One effect under way: its code key, the step it is at, its locals, who runs it and for what card,
    and what a verb that waits keeps between its question and the answer."""

    code: str
    pc: int
    env: dict[str, Any]
    me: Any
    card: Any
    wait: dict[str, Any] | None


class Pending(TypedDict):
    """The decision the game waits for. `by`: who must answer (`chance` for dice and oracles)."""

    kind: Literal["action", "choose", "ask", "invite", "bid", "secret", "roll", "oracle", "pay"]
    by: list[str]
    options: list[Any]
    prompt: NotRequired[Any]
    blind: NotRequired[bool]
    cards: NotRequired[bool]  # the options are card numbers
    order: NotRequired[list[str]]  # answered by several at once: their order in the answer
    answers: NotRequired[dict[str, int]]  # ... and the answers given so far
    limit: NotRequired[dict[str, int]]  # a bid: each player's options below this
    allowed: NotRequired[dict[str, list[int]]]  # each player's own options
    probs: NotRequired[list[float]]  # chance: each option's probability
    stream: NotRequired[str]  # chance: the random stream that answers
    prompts: NotRequired[dict[str, str]]  # a secret choice whose question reads differently for each chooser
    labels: NotRequired[list[str | None]]  # choices: how each option reads (`showing`), None for "done"
    shape: NotRequired[list[bool]]  # choices of lists: the places that hold plain numbers, not card numbers


class Ending(TypedDict):
    rule: str
    by: str | None
    queue: list[str]  # the players who still have a turn
    then: NotRequired[str]


class Result(TypedDict):
    winners: list[str]
    scores: dict[str, int]
    reason: str | None
    turns: int


class Snapshot(TypedDict):
    """The state from before an action (an attempt's `snap`): all but the log, the history and the dead ends."""

    format: str
    pack: str
    pack_version: str
    seed: int
    players: list[str]
    params: dict[str, Any]
    rng: dict[str, int]  # random stream: its state
    zones: dict[str, list[int | None]]  # zone key: its cards, bottom to top (None: an empty slot)
    loc: list[str]  # card number: its zone key
    orient: list[int]  # card number: 0 upright, 1 turned, 2 reversed
    shown: dict[str, Any]  # card number (text): "all" or the players shown it
    known: NotRequired[dict[str, list[str]]]  # card number (text): seats that know where it lies unseen
    # owner (a seat or "table"): counter id: value, or for a counter with `keys` key (as text): value
    counters: dict[str, dict[str, int | dict[str, int]]]
    # counter with `owner: card`: card number (text): its number, only where it is not the counter's `start`
    card_counters: NotRequired[dict[str, dict[str, int]]]
    flags: dict[str, dict[str, Any]]  # owner: flag: value
    used: dict[str, dict[str, int]]  # seat: action id: times taken this game
    turn: Turn
    stage: Stage
    stack: list[Frame]  # effects under way, innermost last
    pending: Pending | None
    ending: Ending | None
    result: Result | None
    max_turns: int
    steps: int  # steps run since the last answer
    attempt: "Attempt | None"
    declared: NotRequired[list[str]]  # winners an effect declared (`win`)
    out: NotRequired[dict[str, Literal["game", "round"]]]  # seat: out of the game or of the round (`eliminate`)


class Attempt(TypedDict):
    """The action under way (undo.py): the state from before it, where its log began, the answers given
    in it (`path`) and how many options each had (`counts`, -1: answered by several, never pruned)."""

    snap: Snapshot
    log: int
    path: list[int | str]
    counts: list[int]
    action: str


class State(Snapshot):
    """The whole state of a game (what `Game.save` writes)."""

    dead: list[list[int | str]]  # ways through the current action found impossible
    log: list[list[Any]]
    history: list[list[Any]]  # every answer: [who, option]
    undone: NotRequired[dict[str, str]]  # action id: why it was undone (absent in old saves)


def counter_keys(counter: dict) -> tuple[str, ...] | None:
    """The keys of a counter with `keys` (a number per key), as the state writes them (texts); None for a
    counter of one number."""
    keys = counter.get("keys")
    if keys is None:
        return None
    if isinstance(keys, dict):
        return tuple(str(k) for k in range(int(keys["from"]), int(keys["to"]) + 1))
    return tuple(str(k) for k in keys)


def card_counter_max(rules, counter: dict, card: int):
    """The most a counter with `owner: card` may hold on `card`: its `max`, and no more than the card's
    `max_from` stat (0 where the card has none); None when nothing bounds it."""
    high = counter.get("max")
    if not counter.get("max_from"):
        return high
    stat = rules.card_values(counter["max_from"])[card]
    stat = int(stat) if isinstance(stat, int) else 0
    return stat if high is None else min(int(high), stat)


def first_state(rules, names: list[str], seed: int, max_rounds: int) -> State:
    """A new game's state, its cards where the pack starts them (unshuffled) and nothing run yet."""
    zones: dict[str, list[int | None]] = {}
    for zone_id, zone in rules.zones.items():
        keys = [f"{zone_id}:{p}" for p in names] if zone.get("owner") == "player" else [zone_id]
        for key in keys:
            zones[key] = [None] * int(zone["slots"]) if zone.get("type") == "row" and zone.get("slots") else []
    for p in names:
        zones[f"_drawn:{p}"] = []
    zones["_removed"] = []
    loc = []
    for number, (zone, slot, seat) in enumerate(rules.start):
        if seat is not None:  # one set per player; the sets of absent seats stay in the box
            zone = f"{zone}:P{seat}" if seat <= len(names) else "_removed"
        if zone not in zones:
            zone = "_removed"
        if slot and zones[zone] and slot <= len(zones[zone]) and zones[zone][slot - 1] is None:
            zones[zone][slot - 1] = number
        else:
            zones[zone].append(number)
        loc.append(zone)
    counters: dict[str, dict[str, int | dict[str, int]]] = {p: {} for p in names + ["table"]}
    for counter_id, counter in rules.counters.items():
        if counter.get("owner") == "card":  # kept apart, per card: `card_counters`
            continue
        per_key = counter_keys(counter)
        start = int(counter.get("start", 0))
        for owner in names if counter.get("owner") == "player" else ["table"]:
            counters[owner][counter_id] = start if per_key is None else dict.fromkeys(per_key, start)
    state: State = {
        "format": FORMAT,
        "pack": rules.pack_id,
        "pack_version": rules.fingerprint,
        "seed": int(seed),
        "players": names,
        "params": rules.parameters(len(names)),
        "rng": {},
        "zones": zones,
        "loc": loc,
        "orient": [0] * len(rules.instances),
        "shown": {},
        "known": {},
        "counters": counters,
        "flags": {p: {} for p in names + ["table"]},
        "used": {p: {} for p in names},
        "turn": {"player": names[0], "number": 0, "acted": False, "used": {}, "closing": False, "round": 0},
        "out": {},
        "stage": "setup",
        "stack": [],
        "pending": None,
        "ending": None,
        "attempt": None,
        "dead": [],
        "undone": {},
        "result": None,
        "max_turns": max_rounds * (1 if rules.in_rounds else len(names)),
        "log": [],
        "history": [],
        "steps": 0,
    }
    on_cards = [c for c, spec in rules.counters.items() if spec.get("owner") == "card"]
    if on_cards:  # only in packs that keep numbers on cards: every other game's state stays as it was
        state["card_counters"] = {c: {} for c in on_cards}
    return state
