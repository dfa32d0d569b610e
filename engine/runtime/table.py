"""The table of a game in progress: where cards lie, counters, who sees what, and the log.

`Game` (game.py) inherits these; they read and write `self.state` and know nothing of turns,
decisions or effects, which is what the DSL's functions and verbs build on.
"""
from __future__ import annotations

import json

from .errors import ContentError
from .places import check_capacity


class Table:
    """Mixed into `Game`: needs `self.rules`, `self.state`, `self.params`, `self.rng`, `self.held_memo`."""

    # ------------------------------------------------------------------ helpers the DSL uses
    def card_def(self, card) -> dict:
        return self.rules.cards[self.rules.instances[card]] if isinstance(card, int) else self.rules.cards[card]

    def tags_of(self, card):
        if card is None:
            return ()
        return self.card_def(card).get("tags") or ()

    def zone_def(self, key: str) -> dict:
        found = self._zone_defs.get(key)
        return found if found is not None else self.rules.zones.get(key.split(":")[0], {})

    def zone_keys(self, zone_id: str) -> list[str]:
        if self.rules.zones.get(zone_id, {}).get("owner") == "player":
            return [f"{zone_id}:{p}" for p in self.state["players"]]
        return [zone_id]

    def zone_key(self, value, player) -> str:
        """A zone named in content, made concrete: a per-player zone without a player is `player`'s."""
        if not isinstance(value, str):
            raise ContentError(f"expected a zone, got {value!r}")
        if value in self.state["zones"]:
            return value
        if self.rules.zones.get(value, {}).get("owner") == "player":
            return f"{value}:{player}"
        raise ContentError(f"`{value}` is not a zone")

    def slotted(self, key: str) -> bool:
        """A row with numbered places: its list keeps a None for each empty place."""
        zone = self.zone_def(key)
        return zone.get("type") == "row" and bool(zone.get("slots"))

    def items_of(self, value) -> list:
        """Any value as a list: a zone's cards, a list, one card or player, or nothing."""
        if value is None:
            return []
        if isinstance(value, list):
            return [x for x in value if x is not None]
        if isinstance(value, str):
            zone = self.state["zones"].get(value)
            if zone is None and self.rules.zones.get(value, {}).get("owner") == "player":
                raise ContentError(f"the zone `{value}` belongs to each player: write `{value}(me)`")
            if zone is not None:
                return [x for x in zone if x is not None]
        return [value]

    def owner_of(self, card):
        if not isinstance(card, int):
            return None
        zone = self.state["loc"][card]
        return zone.split(":")[1] if ":" in zone else None

    def players_from(self, player) -> list[str]:
        order = self.state["players"]
        i = order.index(player) if player in order else 0
        return order[i:] + order[:i]

    def counter(self, owner, counter_id):
        values = self.state["counters"].get(owner, {})
        if counter_id in values:
            return values[counter_id]
        return self.state["counters"]["table"].get(counter_id, 0)    # a shared counter, read by anyone

    def counter_lines(self, counter_id):
        counter = self.rules.counters.get(counter_id, {})
        if counter.get("lines_parameter"):
            return self.params.get(counter["lines_parameter"]) or []
        return counter.get("lines") or []

    # ------------------------------------------------------------------ changing the state
    def set_counter(self, owner, counter_id, value):
        spec = self.rules.counters.get(counter_id)
        if spec is None:
            raise ContentError(f"`{counter_id}` is not a counter")
        if spec.get("owner") != "player":
            owner = "table"
        low, high = spec.get("min"), spec.get("max")
        if low is not None:
            value = max(int(low), value)
        if high is not None:
            value = min(int(high), value)
        old = self.state["counters"][owner].get(counter_id, 0)
        if spec.get("monotonic") and value < old:
            raise ContentError(f"`{counter_id}` only goes up; it cannot go from {old} to {value}")
        self.state["counters"][owner][counter_id] = value
        return value - old

    def move(self, card: int, target: str, slot=None, *, top=True):
        state = self.state
        if self.held_memo:
            self.held_memo = {}
        source = state["loc"][card]
        if self.zone_def(target).get("capacity") is not None:      # a place that holds only so many
            check_capacity(self, target, source)
        cards = state["zones"][source]
        if self.slotted(source):
            cards[cards.index(card)] = None
        else:
            cards.remove(card)
        dest = state["zones"][target]
        if self.slotted(target):
            if slot is not None and 1 <= slot <= len(dest) and dest[slot - 1] is None:
                dest[slot - 1] = card
            elif None in dest:
                dest[dest.index(None)] = card
            else:
                dest.append(card)
        elif slot is not None:                 # a place in a pile: 1 is the bottom
            dest.insert(max(0, min(len(dest), slot - 1)), card)
        elif top:
            dest.append(card)
        else:
            dest.insert(0, card)
        state["loc"][card] = target
        state["orient"][card] = 0
        state["shown"].pop(str(card), None)

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
        self.rng.shuffle(f"shuffle:{key}", self.state["zones"][key])
        self.log(f"{self.zone_name(source_key)} is shuffled to form a new {self.zone_name(key)}")
        return True

    # ------------------------------------------------------------------ who sees what
    def can_see(self, card: int, player) -> bool:
        zone = self.state["loc"][card]
        shown = self.state["shown"].get(str(card))
        if shown == "all" or (shown and player in shown):
            return True
        if zone.startswith("_drawn:"):
            return zone.endswith(f":{player}")
        visibility = self.zone_def(zone).get("visibility", "public") if not zone.startswith("_") else "public"
        if visibility == "public":
            return True
        if visibility == "owner":
            return zone.endswith(f":{player}")
        if visibility == "top":
            cards = self.state["zones"][zone]
            return bool(cards) and cards[-1] == card
        return False

    def discard_pile(self, card: int) -> str:
        """Where a discarded card goes: its home deck's discard pile, else the discard pile of its zone."""
        home = self.card_def(card).get("deck")
        for zone_id in (home, self.state["loc"][card].split(":")[0]):
            pile = self.rules.zones.get(zone_id, {}).get("discard")
            if pile:
                return self.zone_key(pile, self.owner_of(card))
        raise ContentError(f"{self.card_label(card, None)} has no discard pile: give its deck a `discard` zone")

    def public_label(self, values, cards: bool) -> str:
        if not cards:
            return self.label(values)
        return ", ".join(self.label(x) if not isinstance(x, int) or isinstance(x, bool) else
                         self.card_label(x, None) if all(self.can_see(x, p) for p in self.state["players"])
                         else "a card" for x in values)

    def card_label(self, card, player) -> str:
        if card is None:
            return "nothing"
        if not isinstance(card, int):
            return self.label(card, player)
        if player is None or self.can_see(card, player):
            name = self.card_def(card).get("name") or self.rules.instances[card]
            return name
        return "a face-down card"

    def zone_name(self, key: str) -> str:
        if key.startswith("_drawn:"):
            return f"{key.split(':')[1]}'s play area"
        if key == "_removed":
            return "out of the game"
        zone = self.zone_def(key)
        name = zone.get("name") or key.split(":")[0]
        return f"{key.split(':')[1]}'s {name.lower()}" if ":" in key and not key.startswith("_") else name

    def label(self, value, player=None) -> str:
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
        if self.in_setup():
            public = f"Setup: {public}"
            private = {player: f"Setup: {text}" for player, text in (private or {}).items()}
        entry = [public] if not private else [public, private]
        self.state["log"].append(entry)

    def in_setup(self) -> bool:
        """Before the first turn (or round): what happens now is the game's setup, whoever `me` is."""
        return self.state["turn"]["number"] == 0 and self.state["stage"] in ("setup", "next")

    def log_for(self, player) -> list[str]:
        lines = []
        for entry in self.state["log"]:
            if len(entry) > 1 and player in entry[1]:
                lines.append(entry[1][player])
            else:
                lines.append(entry[0])
        return lines
