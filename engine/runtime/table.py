"""The table of a game in progress: where cards lie, counters, who sees what, and the log.

`Game` (game.py) inherits these; they read and write `self.state` and know nothing of turns,
decisions or effects, which is what the DSL's functions and verbs build on.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from .errors import ContentError, not_a_card
from .layout import (
    BACKS_TOP,
    BACKS_VISIBLE,
    OWNER,
    PUBLIC,
    TOP,
    ZoneLayout,
    backs_of,
    card_names,
    cards_by_number,
    id_names,
    is_slotted,
    keys_of,
    name_of,
    sight_of,
    zone_def_of,
    zone_layout,
)
from .log_words import card_text, lines_for, seen_by
from .places import capacity_of, check_capacity
from .state import SETUP_STAGES, card_counter_max, plain_copy

if TYPE_CHECKING:  # for the annotations only: importing the rules here would load the compiler early
    from .rng import Streams
    from .rules import Ruleset
    from .state import State

# what a value of an owner's map of counters may be for the map to be copied by itself (`_own_counters`): nothing that
# changes in place (a counter with `keys` holds a map)
_UNCHANGING = frozenset((int, bool, float, str, type(None)))


class Table:
    """Mixed into `Game`: needs `self.rules`, `self.state`, `self.params`, `self.rng`, `self.held_memo`.

    Facts about zones and cards come from tables computed once per pack and seating (layout.py); a key
    those tables do not know (a state built by hand) is answered from the pack's documents as before."""

    # what the game mixing this in provides (Game.__init__)
    rules: Ruleset
    state: State
    params: dict[str, Any]
    rng: Streams
    held_memo: dict[Any, Any]  # facts that depend only on where cards lie; emptied by every move
    # this game's zone and card tables (bind_tables)
    layout: ZoneLayout
    _zone_defs: dict[str, dict]
    _slotted: frozenset[str]
    _capacity: dict[str, int]
    _sight: dict[str, tuple]
    _zone_names: dict[str, str]
    _zone_owner: dict[str, str | None]
    _own_keys: dict[str, dict[str, str]]
    _card_defs: list[dict]
    _card_names: list[str]
    _text_names: dict[str, str]  # what `label` calls a text: a zone key's or zone id's name, else an action's or card's
    _counter_limits: dict[str, tuple]
    sight_masks: dict[str, int | None]  # who sees a zone's cards by the zone alone (log_words._zone_sight)
    # A copy of the state as it is now that nothing changes while the next answer is played (a bot's imagined deal,
    # agents.GreedyAgent): an action that answer starts keeps it as its undo snapshot instead of copying the state
    # again (driver.start_action, which takes it for that answer only). None: the snapshot is a copy.
    undo_base: State | None = None
    # The undo snapshot driver.start_action last took by a copy, which shares the state's zone lists and the owners'
    # maps of counters instead of copying them (most of them an action does not change): a list or map of the state
    # that is that snapshot's too is copied before it is changed (`own_zone`, `_own_counters`, and `move` and
    # `set_counter` without their calls), so the snapshot keeps what it held. Every one the state shares with any
    # snapshot is that snapshot's: only start_action shares them, and a state put back by an undo, loaded or cloned
    # holds its own; but a bot's copy of its imagined deal for an option (imagine.clone `sharing_lists`), which holds
    # the deal's and has the deal's state here until an action's start copies the state for its snapshot. None:
    # nothing shared.
    sharing_snapshot: dict[str, Any] | None

    def bind_tables(self):
        """Look up this game's zone and card tables (Game.__init__ calls it: a new, cloned or loaded game)."""
        layout = zone_layout(self.rules, self.state["players"], self.state["zones"])
        self.layout = layout
        self._zone_defs = layout.defs
        self._slotted = layout.slotted
        self._capacity = layout.capacity
        self._sight = layout.sight
        self._zone_names = layout.names
        self._zone_owner = layout.owner
        self._own_keys = layout.own
        self._card_defs = cards_by_number(self.rules)
        self._card_names = card_names(self.rules)
        self._text_names = text_names(self.rules, layout)
        self._counter_limits = counter_limits(self.rules)
        self.sight_masks = {}  # filled by log_words._zone_sight as zones are met

    # ------------------------------------------------------------------ helpers the DSL uses
    def card_def(self, card) -> dict:
        if type(card) is int:
            if not 0 <= card < len(self._card_defs):
                raise not_a_card(card, len(self._card_defs))
            return self._card_defs[card]
        return self.rules.cards[self.rules.instances[card]] if isinstance(card, int) else self.rules.cards[card]

    def tags_of(self, card):
        defs = self._card_defs
        if type(card) is int and 0 <= card < len(defs):  # `card_def` without its call: asked for most cards
            card_doc: dict = defs[card]
            return card_doc.get("tags") or ()
        if card is None:
            return ()
        return self.card_def(card).get("tags") or ()

    def zone_def(self, key: str) -> dict:
        found = self._zone_defs.get(key)
        return found if found is not None else zone_def_of(self.rules, key)

    def zone_keys(self, zone_id: str) -> list[str]:
        keys = self.layout.key_lists.get(zone_id)
        return list(keys) if keys is not None else keys_of(self.rules, self.state["players"], zone_id)

    def zone_key(self, value, player) -> str:
        """A zone named in content, made concrete: a per-player zone without a player is `player`'s."""
        if type(value) is not str and not isinstance(value, str):
            raise ContentError(f"expected a zone, got {value!r}", code="X107")
        if value in self.state["zones"]:
            return value
        own = self._own_keys.get(value)
        if own is not None:
            key = own.get(player)
            return key if key is not None else f"{value}:{player}"
        if self.rules.zones.get(value, {}).get("owner") == "player":
            return f"{value}:{player}"
        raise ContentError(f"`{value}` is not a zone", code="X107")

    def slotted(self, key: str) -> bool:
        """A row with numbered places: its list keeps a None for each empty place."""
        if key in self._zone_defs:
            return key in self._slotted
        return is_slotted(self.zone_def(key))

    def items_of(self, value) -> list:
        """Any value as a new list (the caller may keep or change it): a zone's cards, a list, one card or
        player, or nothing."""
        if type(value) is str:
            zones: dict = self.state["zones"]
            zone = zones.get(value)
            if zone is not None:
                return [x for x in zone if x is not None] if value in self._slotted else zone[:]
        elif type(value) is list:
            return [x for x in value if x is not None] if None in value else value[:]
        return self._items_other(value)

    def items_read(self, value) -> list:
        """`items_of` for a caller that only reads: a zone's or a list's own list when it has no gaps.
        Never keep it nor change it (a `for` keeps its items: it needs `items_of`)."""
        if type(value) is str:
            zones: dict = self.state["zones"]
            zone = zones.get(value)
            if zone is not None:  # a row without an empty place is read as it is, as a pile
                return [x for x in zone if x is not None] if value in self._slotted and None in zone else zone
        elif type(value) is list:
            return [x for x in value if x is not None] if None in value else value
        return self._items_other(value)

    def _items_other(self, value) -> list:
        if value is None:
            return []
        if isinstance(value, list):
            return [x for x in value if x is not None]
        if isinstance(value, str):
            zone = self.state["zones"].get(value)
            if zone is None and self.rules.zones.get(value, {}).get("owner") == "player":
                raise ContentError(f"the zone `{value}` belongs to each player: write `{value}(me)`", code="X110")
            if zone is not None:
                return [x for x in zone if x is not None]
        return [value]

    def owner_of(self, card):
        if not isinstance(card, int):
            return None
        zone = self.state["loc"][card]
        owners: dict = self._zone_owner
        owner = owners.get(zone, False)
        if owner is not False:
            return owner
        return zone.split(":")[1] if ":" in zone else None

    def players_from(self, player) -> list[str]:
        order = self.state["players"]
        i = order.index(player) if player in order else 0
        return order[i:] + order[:i]

    def in_play_from(self, player) -> list[str]:
        """`players_from(player)` less the players out of the game or the round (`eliminate`)."""
        state = self.state
        order = state["players"]  # (`players_from` without its call: `players` and `opponents` ask it again and again)
        try:  # (no `in` before: one walk of the seats, not two)
            i = order.index(player)
        except ValueError:  # nobody seated, or no seat: from the first
            i = 0
        out = state.get("out")
        if i == 0:  # the first seat: the seats in order, one list made (a new one: callers may keep or change it)
            return [p for p in order if p not in out] if out else order[:]
        seats = order[i:] + order[:i]
        return [p for p in seats if p not in out] if out else seats

    def counter(self, owner, counter_id):
        counters: dict = self.state["counters"]  # (a dict to Cython: `get` called in C; an owner's may be no dict)
        values = counters.get(owner)
        if values is not None and counter_id in values:
            return values[counter_id]
        return counters["table"].get(counter_id, 0)  # a shared counter, read by anyone

    def counter_at(self, owner, counter_id, key):
        """The number at `key` of a counter with `keys` (state.counter_keys)."""
        values = self.counter(owner, counter_id)
        return values[_key_in(values, counter_id, key, "read it without one")]

    def card_counter(self, card, counter_id):
        """The number of a counter with `owner: card` on one card (its `start` where none was kept)."""
        spec = self.rules.counters.get(counter_id)
        if spec is None or spec.get("owner") != "card":
            raise ContentError(f"`{counter_id}` is not a counter kept on cards", code="X107")
        if type(card) is not int or not 0 <= card < len(self.state["loc"]):
            raise ContentError(f"`{counter_id}` is kept on a card, and {self.label(card)} is not one", code="X107")
        held = self.state.get("card_counters", {}).get(counter_id, {})
        return held.get(str(card), int(spec.get("start", 0)))

    def set_card_counter(self, card, counter_id, value) -> int:
        """Set a counter with `owner: card` on one card, within `min`, `max` and the card's `max_from` stat;
        only a number that is not `start` is kept. Returns the change."""
        old = self.card_counter(card, counter_id)
        spec = self.rules.counters[counter_id]
        low, high = spec.get("min"), card_counter_max(self.rules, spec, card)
        if high is not None:
            value = min(int(high), value)
        if low is not None:
            value = max(int(low), value)
        if spec.get("monotonic") and value < old:
            raise ContentError(f"`{counter_id}` only goes up; it cannot go from {old} to {value}", code="X111")
        held = self.state.setdefault("card_counters", {}).setdefault(counter_id, {})
        if value == int(spec.get("start", 0)):
            held.pop(str(card), None)
        else:
            held[str(card)] = value
        return value - old

    def counter_lines(self, counter_id):
        counter = self.rules.counters.get(counter_id, {})
        if counter.get("lines_parameter"):
            return self.params.get(counter["lines_parameter"]) or []
        return counter.get("lines") or []

    # ------------------------------------------------------------------ changing the state
    def set_counter(self, owner, counter_id, value, key=None):
        """Set a counter (of a counter with `keys`, the number at `key`); returns the change. A counter of one number
        kept by a player or the table reads its limits from `counter_limits` (once per pack), not from its document."""
        limits = self._counter_limits.get(counter_id)
        if limits is None or key is not None:
            return self._set_counter(owner, counter_id, value, key)
        by_player, low, high, monotonic = limits
        if not by_player:
            owner = "table"
        if low is not None:
            value = max(low, value)
        if high is not None:
            value = min(high, value)
        held = self.state["counters"][owner]
        sharing = self.sharing_snapshot
        if sharing is not None and held is sharing["counters"].get(owner):
            held = self._own_counters(owner)
        old = held.get(counter_id, 0)
        if type(old) is int:  # the commonest: one number (`_set_one` without its call)
            if value < old and monotonic:
                raise ContentError(f"`{counter_id}` only goes up; it cannot go from {old} to {value}", code="X111")
            held[counter_id] = value
            return value - old
        return self._set_keyed(self.rules.counters[counter_id], counter_id, held, value, key)

    def _set_counter(self, owner, counter_id, value, key):
        """`set_counter` read from the counter's document: a counter with `keys`, one not kept by a player or the table
        (or no counter), limits that are not numbers (the errors they raise)."""
        spec = self.rules.counters.get(counter_id)
        if spec is None:
            raise ContentError(f"`{counter_id}` is not a counter", code="X107")
        kept_by = spec.get("owner")
        if kept_by != "player":
            if kept_by == "card":
                raise ContentError(f"`{counter_id}` is kept on each card: say which with `on CARD`", code="X107")
            owner = "table"
        low = spec.get("min")
        if low is not None:
            value = max(int(low), value)
        high = spec.get("max")
        if high is not None:
            value = min(int(high), value)
        held = self._own_counters(owner)
        if key is None:
            old = held.get(counter_id, 0)
            if type(old) is int:  # the commonest: one number (`_set_one` without its call)
                if value < old and spec.get("monotonic"):
                    raise ContentError(f"`{counter_id}` only goes up; it cannot go from {old} to {value}", code="X111")
                held[counter_id] = value
                return value - old
        return self._set_keyed(spec, counter_id, held, value, key)

    def _own_counters(self, owner) -> dict:
        """The state's map of `owner`'s counters, to set a number of it: a copy of it first (a deep one: a counter with
        `keys` holds a map) if the undo snapshot holds that very map (`sharing_snapshot`). A map of numbers alone (the
        commonest) is copied in C by itself, not by marshal's round trip: the same copy, some times faster."""
        counters, sharing = self.state["counters"], self.sharing_snapshot
        held = counters[owner]
        if sharing is not None and held is sharing["counters"].get(owner):
            numbers_only = _UNCHANGING.issuperset(map(type, held.values()))
            held = counters[owner] = held.copy() if numbers_only else plain_copy(held)
        return held

    def _set_keyed(self, spec, counter_id, held, value, key) -> int:
        """`set_counter` of a counter with `keys` (at `key`, else at every key), or of a value of another kind."""
        values = held.get(counter_id)
        if key is not None:
            word = _key_in(values, counter_id, key, "change it without `at`")
            return self._set_one(spec, counter_id, values, word, value)
        if isinstance(values, dict):  # every key at once: `set progress to 0`
            return sum([self._set_one(spec, counter_id, values, word, value) for word in values])
        return self._set_one(spec, counter_id, held, counter_id, value)

    @staticmethod
    def _set_one(spec, counter_id, held, word, value) -> int:
        old = held.get(word, 0)
        if spec.get("monotonic") and value < old:
            raise ContentError(f"`{counter_id}` only goes up; it cannot go from {old} to {value}", code="X111")
        held[word] = value
        return value - old

    def move(self, card, target: str, slot=None):  # (`card` unannotated, as log_words.remember's)
        state: dict = self.state  # type: ignore[assignment]  # (a dict to Cython: `get` called in C)
        if self.held_memo:
            self.held_memo = {}
        loc = state["loc"]  # (no type for Cython: a list of its own kind may stand in for it, and be written as one)
        known_zones: dict = self._zone_defs
        source = loc[card]
        target_known = target in known_zones
        # a place that holds only so many (capacity_of; a zone of the layout without one is most moves)
        if (not target_known or target in self._capacity) and capacity_of(self, target) is not None:
            check_capacity(self, target, source)
        zones: dict = state["zones"]
        slotted, sharing = self._slotted, self.sharing_snapshot
        cards: list = zones[source]
        if sharing is not None:  # (`own_zone` without its call)
            sharing = sharing["zones"]
            if cards is sharing.get(source):
                cards = zones[source] = cards.copy()
        if source in slotted if source in known_zones else self.slotted(source):  # (`slotted` without its call)
            cards[cards.index(card)] = None
        else:
            cards.remove(card)
        dest: list = zones[target]
        if sharing is not None and dest is sharing.get(target):
            dest = zones[target] = dest.copy()
        if target in slotted if target_known else self.slotted(target):
            if slot is not None and 1 <= slot <= len(dest) and dest[slot - 1] is None:
                dest[slot - 1] = card
            elif None in dest:
                dest[dest.index(None)] = card
            else:
                dest.append(card)
        elif slot is not None:  # a place in a pile: 1 is the bottom
            dest.insert(max(0, min(len(dest), slot - 1)), card)
        else:
            dest.append(card)
        loc[card] = target
        state["orient"][card] = 0
        shown: dict = state["shown"]
        known: dict | None = state.get("known")
        if shown or known:  # (mostly none is shown; who knows where some card lies, mostly)
            text = card_text(card)
            if shown:
                shown.pop(text, None)
            if known:  # who knew where it lay no longer does, unless they see it move (verbs._move_logged)
                known.pop(text, None)

    def own_zone(self, key: str) -> list:
        """The state's list of the cards of zone `key`, to change in place: a copy of it first if the undo snapshot
        holds that very list (`sharing_snapshot`)."""
        zones, sharing = self.state["zones"], self.sharing_snapshot
        cards = zones[key]
        if sharing is not None and cards is sharing["zones"].get(key):
            cards = zones[key] = cards.copy()
        return cards

    def refill(self, key: str) -> bool:
        """Rebuild an empty deck from its `refill_from` zone, shuffled. Whether any card came back."""
        source = self.zone_def(key).get("refill_from")
        if not source:
            return False
        source_key = self.zone_key(source, key.split(":")[1] if ":" in key else None)
        if self.zone_def(source_key).get("type") == "row":
            return False
        cards = [x for x in self.state["zones"][source_key] if x is not None]
        if not cards:
            return False
        for card in cards:
            self.move(card, key)
        self.rng.shuffle(f"shuffle:{key}", self.own_zone(key))
        self.log(f"{self.zone_name(source_key)} is shuffled to form a new {self.zone_name(key)}")
        return True

    # ------------------------------------------------------------------ who sees what
    def can_see(self, card: int, player) -> bool:
        state = self.state
        zone = state["loc"][card]
        if state["shown"]:
            shown = state["shown"].get(str(card))
            if shown == "all" or (shown and player in shown):
                return True
        rule, owner = self._sight.get(zone) or sight_of(self.rules, zone)
        if rule == PUBLIC:
            return True
        if rule == OWNER:
            return owner is not None and owner == player
        if rule == TOP:
            cards = state["zones"][zone]
            return bool(cards) and cards[-1] == card
        return False

    def sees_back(self, card: int, player) -> bool:
        """Whether `player` (None: everyone) sees the back of `card` where it lies: its face is seen, or the zone
        shows that back (`backs:` of zones, layout.backs_of). A card without a `back` shows nothing."""
        if player is not None and self.can_see(card, player):
            return True
        zone = self.state["loc"][card]
        rule = backs_of(self.rules, zone)
        if rule == BACKS_VISIBLE:
            return True
        if rule == BACKS_TOP:
            cards = [x for x in self.state["zones"][zone] if x is not None]
            return bool(cards) and cards[-1] == card
        return False

    def back_words(self, card: int, player) -> str:
        """The words after "a face-down card" whose back `player` sees: " (forest back)"; else ""."""
        back = self.card_def(card).get("back")
        return f" ({back} back)" if back and self.sees_back(card, player) else ""

    def discard_pile(self, card: int) -> str:
        """Where a discarded card goes: its home deck's discard pile, else the discard pile of its zone."""
        home = self.card_def(card).get("deck")
        for zone_id in (home, self.state["loc"][card].split(":")[0]):
            # a card without a deck looks up None: no zone has that id, so {}
            pile = self.rules.zones.get(zone_id, {}).get("discard")  # type: ignore[arg-type]
            if pile:
                return self.zone_key(pile, self.owner_of(card))
        raise ContentError(
            f"{self.card_label(card, None)} has no discard pile: give its deck a `discard` zone", code="X114"
        )

    def public_label(self, values, cards: bool) -> str:
        if not cards:
            return self.label(values)
        words = []  # (a plain loop: compiled, a generator of a generator cost a closure and two calls a card)
        for x in values:
            if not isinstance(x, int) or isinstance(x, bool):
                words.append(self.label(x))
            elif self.seen_by_everyone(x):  # a card every seat sees is named
                words.append(self.card_label(x, None))
            else:
                words.append("a card" + self.back_words(x, None))
        return ", ".join(words)

    def seen_by_everyone(self, card: int) -> bool:
        """Whether every seat sees `card` now: `can_see` for each seat at once (`seen_by`'s mask of them all). A log
        line worded later asks it of the seats' sight kept when the line was made (log_words._SeenThen)."""
        everyone = (1 << len(self.state["players"])) - 1
        return seen_by(self, card) & everyone == everyone

    def card_label(self, card, player) -> str:
        if card is None:
            return "nothing"
        if not isinstance(card, int):
            return self.label(card, player)
        if player is None or self.can_see(card, player):
            return (
                self._card_names[card]
                if type(card) is int
                else self.card_def(card).get("name") or self.rules.instances[card]
            )
        return "a face-down card" + self.back_words(card, player)

    def zone_name(self, key: str) -> str:
        name = self._zone_names.get(key)
        return name if name is not None else name_of(self.rules, key)

    def label(self, value, player=None) -> str:
        if type(value) is str:  # the commonest: a zone's name, an action's or a card's, else the text
            name = self._text_names.get(value)  # (`text_names`: one lookup, not one a table)
            return name if name is not None else value
        if type(value) is int:  # a number in a line of words (not a bool: its type is bool)
            return str(value)
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, int):
            return str(value)
        if value is None:
            return "nothing"
        if isinstance(value, list):
            return ", ".join(self.label(v, player) for v in value) or "nothing"
        if isinstance(value, dict):
            return json.dumps(value)
        if value in self.state["zones"] or value in self.rules.zones:
            return self.zone_name(value)
        for table in (self.rules.actions, self.rules.cards):
            if value in table:
                return table[value].get("name") or value
        return str(value)

    def log(self, public: str, private: dict | None = None):
        """A line of the log; `private` gives some players their own wording (they saw more). Lines of the
        setup say so ("Setup: ..."): they are nobody's turn."""
        state = self.state
        if state["turn"]["number"] == 0 and state["stage"] in SETUP_STAGES:  # (`in_setup` without its call)
            public = f"Setup: {public}"
            private = {player: f"Setup: {text}" for player, text in (private or {}).items()}
        entry = [public] if not private else [public, private]
        state["log"].append(entry)

    def in_setup(self) -> bool:
        """Before the first turn (or round): what happens now is the game's setup, whoever `me` is."""
        return self.state["turn"]["number"] == 0 and self.state["stage"] in SETUP_STAGES

    def log_for(self, player) -> list[str]:
        """The log as `player` reads it (None: what everyone may read), worded now (log_words.py)."""
        return lines_for(self, player)


def text_names(rules, layout: ZoneLayout) -> dict[str, str]:
    """What `Table.label` calls a text, worked out once per layout: the name of each zone key of the seating and zone id
    of the pack (`ZoneLayout.names`), else of each action id and card id (`id_names`). A zone key of the state is
    always one of the layout's (the zone keys of a game never change), so a text this does not name is no zone's:
    `label` reads one dict for the texts of a log line (a pack's `words(...)`: issue 16), not two and the state's zones."""
    # kept on the rules beside the layouts, not on a layout: an attribute added to one after it is made would slow the
    # reads of all its others (CPython reads them at fixed places while none is added)
    cache = rules.__dict__.setdefault("_text_names", {})
    names = cache.get(layout)
    if names is None:
        names = cache[layout] = {**id_names(rules), **layout.names}
    return names


def counter_limits(rules) -> dict[str, tuple]:
    """(kept by a player, `min`, `max`, `monotonic`) of each counter kept by a player or the table whose limits are
    numbers, worked out once per pack: what `Table.set_counter` reads of a counter at each change (issue 16)."""
    limits = rules.__dict__.get("_counter_limits")
    if limits is None:
        limits = {}
        for counter_id, spec in rules.counters.items():
            kept_by, low, high = spec.get("owner"), spec.get("min"), spec.get("max")
            if kept_by == "card":
                continue
            try:
                low, high = (None if low is None else int(low)), (None if high is None else int(high))
            except (TypeError, ValueError):  # (an error each change raises as before: read from the document)
                continue
            limits[counter_id] = (kept_by == "player", low, high, bool(spec.get("monotonic")))
        rules.__dict__["_counter_limits"] = limits
    return limits


def _key_in(values, counter_id: str, key, without: str) -> str:
    """`key` as the state writes the keys of a counter with `keys` (`7` and `wood` as texts), once it is known
    to be one of `values`' keys; `without`: what to do instead, for a counter without keys."""
    if not isinstance(values, dict):
        raise ContentError(f"`{counter_id}` has no keys: {without}", code="X107")
    if isinstance(key, bool) or not isinstance(key, (int, str)):
        raise ContentError(f"a counter's key is a name or a number, not {key!r}", code="X107")
    word = str(key)
    if word not in values:
        raise ContentError(f"{word} is not a key of `{counter_id}` (its keys: {', '.join(values)})", code="X107")
    return word
