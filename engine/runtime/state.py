"""The game state: plain data (dicts, lists, text, numbers) that is JSON at every decision (DESIGN §6).

The TypedDicts below name each part of it; they match `schemas/runtime/save.schema.json` (a test holds
them to it, and holds the state of real games to them). `first_state` is a new game's state, before its
setup effects run. Only `Game` and `Table` (and what they delegate to) write it; the rest reads it
through the names `Game` gives (`g.pending`, `g.turn`, ...).
"""

# no `from __future__ import annotations` here: TypedDict of Python 3.11 sees NotRequired only when the
# annotations are evaluated
import marshal
from functools import partial
from operator import itemgetter
from typing import Any, Literal, NotRequired, TypedDict

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


_dumps, _loads = marshal.dumps, marshal.loads


def plain_copy(data):
    """A deep copy of plain data (dicts, lists, text, numbers): marshal does it in C, far faster than
    copy.deepcopy."""
    return marshal.loads(marshal.dumps(data))


_FLAT_LISTS = ("loc", "orient")  # a state's lists of numbers and texts only: a slice is their deep copy
_SCALARS = frozenset((str, int, bool, float, type(None)))  # immutable: a copy may share them


def copy_state(data: dict, shared: tuple = (), skip: tuple = ()) -> dict:
    """`plain_copy` of a state (or of part of one), the same keys in the same order. Its largest parts hold only
    numbers and texts one level down: the zones (lists of card numbers), `loc` and `orient`; a slice of each list is
    its deep copy and costs a fraction of marshal's round trip. The rest goes through marshal in one round trip, as
    a tuple of the parts in the state's order (an itemgetter's, in C) in which each part copied apart stands as the
    first part marshal copies (a mere reference in marshal's output): a tuple has no keys for marshal to write and
    read back, and the copy is made of the keys and that tuple at once, before the shared parts and those copied
    apart take their places. The undo snapshot at each action's start (driver.start_action) and `clone` pay for it
    (issue 16).
    `shared`: keys whose values are kept as they are, for a caller that knows nothing changes them; `skip`: keys
    left out of the copy. Which key goes where is worked out once per shape of state (`_copy_plan`)."""
    keys = tuple(data)
    plan = _COPY_PLANS.get((keys, shared, skip))
    if plan is None:
        plan = _copy_plan(keys, shared, skip)
    kept, read, shared_kept, flat_lists, copies_rng, copies_zones = plan
    copied = dict(zip(kept, _loads(_dumps(read(data))), strict=True))  # (plain_copy, less a call)
    for key in shared_kept:
        copied[key] = data[key]
    try:  # (list.copy, dict.values: TypeError on a part of another shape, as in a state built by hand)
        for key in flat_lists:
            copied[key] = list.copy(data[key])
        if copies_rng:
            rng = data["rng"]
            if not _SCALARS.issuperset(map(type, dict.values(rng))):
                raise TypeError
            copied["rng"] = rng.copy()
        if copies_zones:
            zones = data["zones"]
            copied["zones"] = dict(zip(zones, map(list.copy, dict.values(zones)), strict=True))
    except TypeError:
        _copy_apart(data, copied, plan)
    return copied


# (the state's keys, shared, skip) -> how copy_state copies such a state: keyed by all it reads, so never stale; a
# game's states have a handful of shapes (a state built by hand may add more: the plans are dropped past _MOST_PLANS)
_COPY_PLANS: dict[tuple, tuple] = {}
_MOST_PLANS = 64


def _copy_plan(keys: tuple, shared: tuple, skip: tuple) -> tuple:
    """For copy_state: the keys copied (in order); what reads marshal's tuple of their parts; the shared keys and the
    flat lists; whether `rng` and the zones are copied apart. A key both skipped and shared is skipped; a part both
    shared and copied apart is shared."""
    kept = tuple(key for key in keys if key not in skip)
    shared_kept = tuple(key for key in kept if key in shared)
    flat_lists = tuple(key for key in kept if key in _FLAT_LISTS and key not in shared)
    copies_rng, copies_zones = ("rng" in kept and "rng" not in shared), ("zones" in kept and "zones" not in shared)
    apart = (*shared_kept, *flat_lists, *("rng",) * copies_rng, *("zones",) * copies_zones)
    marshalled = [key for key in kept if key not in apart]
    # in place of a part copied apart, the tuple holds the first part marshal copies again (a reference to it, in
    # marshal's output: it costs next to nothing), or None where marshal copies nothing
    stand_in = marshalled[0] if marshalled else None
    read_keys = tuple(key if key in marshalled else stand_in for key in kept)
    read = itemgetter(*read_keys) if stand_in is not None and len(read_keys) > 1 else partial(_read_each, read_keys)
    if len(_COPY_PLANS) >= _MOST_PLANS:
        _COPY_PLANS.clear()
    plan = _COPY_PLANS[keys, shared, skip] = (kept, read, shared_kept, flat_lists, copies_rng, copies_zones)
    return plan


def _read_each(keys: tuple, data: dict) -> tuple:
    """The values of `keys` in `data` as a tuple, None for a key it has not (an itemgetter's tuple, for the plans
    of fewer than two keys or with no part marshal copies)."""
    return tuple(map(data.get, keys))


def _copy_apart(data: dict, copied: dict, plan: tuple) -> None:
    """For copy_state, a state whose flat lists, `rng` or zones are not all of their usual shape (a state built by
    hand): each list sliced, a map of scalars copied, anything else copied by marshal."""
    _, _, _, flat_lists, copies_rng, copies_zones = plan
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
