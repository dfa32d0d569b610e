"""What never changes about a game's zones and cards, worked out once so the table reads it with one lookup.

The state keeps zones by key (`hand:P1`) and cards by number; the pack's documents say what each zone is
(its kind, owner, visibility, slots, capacity, name). Asking the documents on every read (split the key,
look the zone id up, read the field, fall back) was the runtime's most frequent work. A `ZoneLayout`
answers the same questions from dicts and sets keyed by zone key, built once per pack and seating (the
zone keys of a game never change: persist.py refuses a save whose zones are not the pack's) and shared by
every game, clone and loaded save of that seating. It holds no cards and no state: where cards lie is
read from the state each time, so nothing here can go stale when cards move, a game is cloned or loaded,
or an undone action puts the old state back.

`cards_by_number` and `card_names` are the card side: each card number's definition and name, in lists;
`id_names` the name of each action and card id.
"""

from __future__ import annotations

PUBLIC, OWNER, TOP, HIDDEN = range(4)  # who sees a card in a zone (besides what `shown` adds)


class ZoneLayout:
    """Facts by zone key for every key of one seating, and by zone id for the pack's zones; computed
    with the very rules Table uses for keys it does not know (table.py), so both always agree."""

    def __init__(self, rules, players: tuple, keys: tuple):
        zones = rules.zones
        known = list(keys) + [z for z in zones if z not in keys]
        self.keys = frozenset(keys)  # the zones of the state
        self.order = keys  # ... in the state's order
        self.defs = {key: zone_def_of(rules, key) for key in known}
        self.slotted = frozenset(key for key, zone in self.defs.items() if is_slotted(zone))
        self.capacity = {
            key: int(zone["capacity"]) for key, zone in self.defs.items() if zone.get("capacity") is not None
        }
        self.owner = {key: key.split(":")[1] if ":" in key else None for key in known}
        # the zones whose cards count together against a capacity: every player's zone of that id
        self.place = {
            key: tuple(k for k in keys_of(rules, players, key.split(":")[0]) if k in self.keys)
            if ":" in key
            else (key,)
            if key in self.keys
            else ()
            for key in known
        }
        self.sight = {key: sight_of(rules, key) for key in known}
        self.names = {key: name_of(rules, key) for key in known}
        # a per-player zone id made concrete for each player (Table.zone_key)
        self.own = {
            zone_id: {p: f"{zone_id}:{p}" for p in players}
            for zone_id, zone in zones.items()
            if zone.get("owner") == "player"
        }
        self.key_lists = {zone_id: tuple(keys_of(rules, players, zone_id)) for zone_id in zones}
        self.seat_bits = {p: 1 << i for i, p in enumerate(players)}  # each seat's bit in a mask (log_words.seat_bits)
        self._unseen: dict[str, tuple[tuple[str, bool], ...]] = {}  # unseen_zones, by player

    def unseen_zones(self, player) -> tuple[tuple[str, bool], ...]:
        """The zones of the state, in its order, whose cards `player` does not see by the zone alone (hidden_by_zone),
        each with whether it shows its top card: the zones a bot's imagined deal re-deals (imagine._unseen_runs).
        Worked out once a player: it reads only the layout."""
        found = self._unseen.get(player)
        if found is None:
            found = self._unseen[player] = tuple(
                (key, self.sight[key][0] == TOP) for key in self.order if hidden_by_zone(self.sight[key], player)
            )
        return found


def zone_def_of(rules, key: str) -> dict:
    return rules.zones.get(key.split(":")[0], {})


def is_slotted(zone: dict) -> bool:
    return zone.get("type") == "row" and bool(zone.get("slots"))


def keys_of(rules, players, zone_id: str) -> list[str]:
    if rules.zones.get(zone_id, {}).get("owner") == "player":
        return [f"{zone_id}:{p}" for p in players]
    return [zone_id]


def sight_of(rules, key: str) -> tuple:
    """(rule, owner): how the zone's place decides who sees a card in it (Table.can_see)."""
    owner = key[key.rindex(":") + 1 :] if ":" in key else None
    if key.startswith("_drawn:"):
        return OWNER, owner
    visibility = zone_def_of(rules, key).get("visibility", "public") if not key.startswith("_") else "public"
    if visibility == "public":
        return PUBLIC, None
    if visibility == "owner":
        return OWNER, owner
    if visibility == "top":
        return TOP, None
    return HIDDEN, None


def hidden_by_zone(sight: tuple, player) -> bool:
    """Whether a zone of this `sight` (sight_of) hides some of its cards from `player`: all but a public zone and the
    player's own zone (Table.can_see; the cards shown, `shown`, aside)."""
    rule, owner = sight
    return not (rule == PUBLIC or (rule == OWNER and owner is not None and owner == player))


BACKS_VISIBLE, BACKS_TOP, BACKS_HIDDEN = "visible", "top", "hidden"
# which backs of a zone's face-down cards everyone sees, when the zone does not say (`backs:`): a stack shows
# its top card's back, a bag none, cards spread out (a hand, a tableau, a row) all of theirs
_DEFAULT_BACKS = {"deck": BACKS_TOP, "pile": BACKS_TOP, "bag": BACKS_HIDDEN}


def backs_of(rules, key: str) -> str:
    """Which backs of the face-down cards in zone `key` everyone sees: `visible`, `top` or `hidden`."""
    if key == "_removed":
        return BACKS_HIDDEN
    if key.startswith("_"):  # a play area: the cards lie in the open
        return BACKS_VISIBLE
    zone = zone_def_of(rules, key)
    return zone.get("backs") or _DEFAULT_BACKS.get(zone.get("type", ""), BACKS_VISIBLE)


def name_of(rules, key: str) -> str:
    """A zone key in words: "P1's hand", "Market", "out of the game"."""
    if key.startswith("_drawn:"):
        return f"{key.split(':')[1]}'s play area"
    if key == "_removed":
        return "out of the game"
    name = zone_def_of(rules, key).get("name") or key.split(":")[0]
    return f"{key.split(':')[1]}'s {name.lower()}" if ":" in key and not key.startswith("_") else name


def zone_layout(rules, players, keys) -> ZoneLayout:
    """The layout of one seating (players in order) and its zone keys, built once per pack and kept on
    the rules, as `Ruleset.card_values` keeps its tables."""
    players, keys = tuple(players), tuple(keys)
    cache = rules.__dict__.setdefault("_zone_layouts", {})
    layout = cache.get((players, keys))
    if layout is None:
        layout = cache[(players, keys)] = ZoneLayout(rules, players, keys)
    return layout


def cards_by_number(rules) -> list[dict]:
    """Each card number's definition (the card document of its id)."""
    defs = rules.__dict__.get("_cards_by_number")
    if defs is None or len(defs) != len(rules.instances):
        defs = rules.__dict__["_cards_by_number"] = [rules.cards[def_id] for def_id in rules.instances]
    return defs


def card_names(rules) -> list[str]:
    """Each card number's name as the log and views print it (its id when it has none)."""
    names = rules.__dict__.get("_card_names")
    if names is None or len(names) != len(rules.instances):
        names = rules.__dict__["_card_names"] = [
            card.get("name") or def_id for card, def_id in zip(cards_by_number(rules), rules.instances, strict=True)
        ]
    return names


def id_names(rules) -> dict[str, str]:
    """The name of each action id and card id (an action's when both have it), as `Table.label` words them."""
    names = rules.__dict__.get("_id_names")
    if names is None:
        names = {
            def_id: doc.get("name") or def_id for table in (rules.cards, rules.actions) for def_id, doc in table.items()
        }
        rules.__dict__["_id_names"] = names
    return names
