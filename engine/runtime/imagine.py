"""Imagined games, for search and for the bots' look-ahead: an independent copy of a game (`clone`), and
a copy re-dealt as one player could imagine it (`determinized`). Neither touches the real game."""

from __future__ import annotations

import random
from itertools import repeat

from .layout import TOP, cards_by_number, hidden_by_zone, sight_of
from .protocol import DONE
from .rng import Streams
from .state import APPEND_ONLY, copy_state


def clone(g, *, sharing_lists: bool = False):
    """An independent copy, for search and for agents' imagined games. The log and the history only
    grow and their entries are never changed, so the copy shares the entries (long games carry
    thousands of them) and copies the rest. The undo snapshot of the action under way is shared too:
    nothing changes it once taken (undo.fail restores a copy of it), and it is as large as the state. So are the
    pack's parameters, fixed for the game (the undo snapshot shares them too).
    `sharing_lists`: the copy holds `g`'s zone lists and owners' maps of counters, not copies, and copies each before
    it changes it, as it does those an undo snapshot shares (`Table.sharing_snapshot`, here `g`'s state): for a copy
    played and thrown away while `g` is left as it is (a bot's option tried on its imagined deal, agents.GreedyAgent),
    which changes only a few of them. `g` must not change while the copy is played."""
    state = g.state
    if sharing_lists:  # the maps of zones and of owners' counters its own, for the lists and maps it copies
        copied = copy_state(state, shared=_SHARED_BY_COPY)
        copied["zones"], copied["counters"] = state["zones"].copy(), state["counters"].copy()
    else:
        copied = copy_state(state, shared=(*APPEND_ONLY, "attempt", "params"))  # in the state's order of keys
    for key in APPEND_ONLY:
        copied[key] = list(state[key])
    attempt = state["attempt"]
    if attempt is not None:
        attempt = {**attempt, "path": list(attempt["path"]), "counts": list(attempt["counts"])}
    copied["attempt"] = attempt
    copy = type(g)(g.rules, copied, g)  # the same seating and zones: g's tables (Game._take_tables)
    if sharing_lists:
        copy.sharing_snapshot = state
    return copy


# what clone's copy `sharing_lists` keeps of its source's state as it is: the zones' and counters' maps then copied apart
_SHARED_BY_COPY = (*APPEND_ONLY, "attempt", "params", "zones", "counters")


def determinized(g, player, seed: int):
    """A copy in which everything `player` cannot see is re-dealt at random: hidden cards trade places
    with hidden cards from the same home deck (where a card came from is public: the log says which
    deck was drawn). Its view for `player` is the same as the real game's (tests check this). The state from
    before an action under way (the undo snapshot) is re-dealt the same way, card for card: an undo in the
    imagined game brings back imagined cards, not the true ones."""
    copy = g.clone()
    rnd = random.Random(seed)
    state = copy.state
    # (home deck, seat[, back seen]): the runs of places whose cards trade places, each as `_unseen_runs` gives it
    # (home, zone key, first place, how many)
    groups: dict[tuple, list[tuple]] = {}
    for run in _unseen_runs(copy, player):
        runs = groups.get(run[0])
        if runs is None:
            groups[run[0]] = [run]
        else:
            runs.append(run)
    zones, loc = state["zones"], state["loc"]
    imagined: dict[int, int] = {}  # a true card -> the card imagined in its place, for the undo snapshot's re-deal
    for runs in groups.values():
        if len(runs) == 1:  # one run (a deck): its cards trade places among themselves, in the same zone
            _, key, first, count = runs[0]
            cards = zones[key]  # (the copy's own list: `clone`)
            if count == len(cards):  # the whole zone: shuffled where it lies, with no slice taken and put back
                true = cards[:] if state["attempt"] is not None else None
                shuffle(rnd, cards)
            else:
                cards = cards[first : first + count]
                true = cards[:] if state["attempt"] is not None else None
                shuffle(rnd, cards)
                zones[key][first : first + count] = cards
        else:
            cards = []  # a run of one card (a hidden card in a hand, among cards of other homes) read and dealt alone
            for _, key, first, count in runs:
                if count == 1:
                    cards.append(zones[key][first])
                else:
                    cards += zones[key][first : first + count]
            true = cards[:] if state["attempt"] is not None else None
            shuffle(rnd, cards)
            at = 0
            for _, key, first, count in runs:
                if count == 1:
                    card = zones[key][first] = cards[at]
                    loc[card] = key
                    at += 1
                    continue
                dealt = cards[at : at + count]
                zones[key][first : first + count] = dealt
                for card in dealt:  # each card dealt there lies there (compiled, a loop costs less than a map of
                    loc[card] = key  # `loc.__setitem__`, a call of a method wrapper a card)
                at += count
        if (
            true is not None and len(cards) > 1
        ):  # a card imagined in its own place maps to itself: the snapshot keeps it
            for card, instead in zip(true, cards, strict=True):  # (compiled, a loop: no pair made for an update)
                imagined[card] = instead
    if imagined:
        _redeal_snapshot(state["attempt"], imagined)
    pending = state["pending"]
    if pending is not None and pending.get("answers"):  # others' secret answers are not known yet
        for other in [p for p in pending["answers"] if p != player]:
            del pending["answers"][other]
            pending["by"].append(other)
    if pending is not None and pending["kind"] == "secret":
        _forget_earlier_picks(state, pending, player)
    # each stream a new seed, drawn in the order of the streams (in C: zip takes a name, then a draw)
    streams = state["rng"]
    state["rng"] = dict(zip(streams, map(rnd.getrandbits, repeat(64, len(streams))), strict=True))
    state["seed"] = rnd.getrandbits(32)
    copy.rng = Streams(state["rng"], state["seed"])
    return copy


def shuffle(rnd: random.Random, cards: list) -> None:
    """`rnd.shuffle(cards)`, the very same order from the very same draws, without its call per card: the imagined
    deal shuffles every hidden card of the table, and a bot imagines one for each decision (issue 16). Each place from
    the last down takes a card from those left (random.Random.shuffle and _randbelow_with_getrandbits: as many bits
    as the count of cards left needs, drawn again while they name no card; tests/test_runtime_speed_n_table.py holds
    it to `random.Random.shuffle`). The bits a draw for each place takes are read from a tuple (`_BITS`); the draws
    themselves are made in C by `_shuffled`."""
    count = len(cards)
    widths = _BITS.get(count)
    if widths is None:  # the bits a draw for each place takes (place i: a card of the i + 1 left)
        widths = _BITS[count] = tuple(map(int.bit_length, range(1, count + 1)))
    _shuffled(rnd.getrandbits, cards, widths)


def _shuffled(bits, cards: list, widths: tuple) -> None:
    """`shuffle`'s places. `getrandbits(k)` for k <= 32 is the top k bits of the generator's next word of 32, and
    `getrandbits(32 * n)` its next n words, the first the lowest (CPython's _random.Random.getrandbits, on either byte
    order): each place takes at least one word, so a word for each place is drawn at once, in one call, and read here;
    a draw again for a place (its bits named no card) takes the next word, and once they are used up each word is
    drawn alone, as `getrandbits` draws it. The generator is left where the draws one by one leave it. Compiled
    (imagine.pxd), the words are read and their bits taken in C, with no call and no number made a card (issue 16: a
    call of `getrandbits` a draw, some two draws a card, cost some 770 instructions a card)."""
    count = len(cards)
    if count < 2:
        return
    words = bits(32 * (count - 1)).to_bytes(4 * (count - 1), "little")
    end = len(words)
    at = 0
    for i in range(count - 1, 0, -1):  # place i: a card of the i + 1 left, drawn from `width` bits
        width = widths[i]
        j = i + 1
        while j > i and at < end:
            word = words[at + 3]  # (the word's four bytes, the lowest first)
            word = word << 8 | words[at + 2]
            word = word << 8 | words[at + 1]
            word = word << 8 | words[at]
            at += 4
            j = word >> (32 - width)
        while j > i:  # (the words drawn together used up)
            j = bits(width)
        card = cards[j]
        cards[j] = cards[i]
        cards[i] = card


_BITS: dict[int, tuple[int, ...]] = {}  # shuffle's bits a draw for each place, by the count of cards: a few dozen


def _unseen_runs(g, player):
    """The cards `player` can neither see (Table.can_see) nor place (log_words.knows), each with its home, whose
    hidden cards it trades places with (_homes; and with backs, the back `player` sees there): (home, zone key,
    first place, how many), the places of a zone in runs of one home, in the order of the zones and their cards.
    Who sees a card is its zone's rule (layout.sight_of) unless it is shown: the rule is read once a zone, the zones
    `player` sees are skipped whole, and a zone hiding every card it holds from one home (a deck) is one run,
    worked out in C, not card by card (issue 16; tests/test_runtime_speed_h_greedy.py holds it to the
    card-by-card re-deal of before)."""
    state, rules = g.state, g.rules
    placed = {int(card) for card, seen in state["shown"].items() if seen == "all" or (seen and player in seen)}
    placed.update(int(card) for card, seats in (state.get("known") or {}).items() if player in seats)
    (homes, home_numbers), with_backs, zones = _homes(rules), _has_backs(rules), state["zones"]
    home_cards = _cards_of_homes(rules)
    if tuple(zones) == g.layout.order:  # the zones the layout was worked out for (Table.bind_tables), as ever
        hidden = g.layout.unseen_zones(player)
    else:  # a state built by hand: each zone's rule read here
        sights = [(key, g._sight.get(key) or sight_of(rules, key)) for key in zones]
        hidden = tuple((key, sight[0] == TOP) for key, sight in sights if hidden_by_zone(sight, player))
    for key, top in hidden:
        cards = zones[key]
        end = len(cards) - 1 if top else len(cards)  # a zone that shows its top card: the last of its list
        if end <= 0:
            continue
        # every card hidden, no gap (None, the top card's read apart) and all of one home: one run; a gap below the top
        # is found by the homes read, which have none for it (not by a scan of the list for None, a compare a card)
        if not with_backs and (not placed or placed.isdisjoint(cards)) and (not top or cards[end] is not None):
            try:  # the cards of the first card's home hold them all (a gap, None, is of no home)
                whole = home_cards[home_numbers[cards[0]]].issuperset(cards if end == len(cards) else cards[:end])
            except TypeError:  # (a gap first)
                whole = False
            if whole:
                yield homes[cards[0]], key, 0, end
                continue
        for i in range(end):
            card = cards[i]
            if card is not None and card not in placed:
                home = homes[card]
                if with_backs:  # a back everyone sees stays: only cards with that same back come there
                    home += (g.card_def(card).get("back") if g.sees_back(card, player) else _UNSEEN,)
                yield home, key, i, 1


def _homes(rules) -> tuple[list[tuple], list[int]]:
    """Each card number's home, whose hidden cards it may trade places with: (its deck, the seat of its per-player
    set or None: a per-player set's cards trade places only with cards of the same set); and each card's home as a
    number, the same for the same home: whether a zone's cards are all of one home is then a set of small numbers,
    not of tuples hashed and compared card by card (issue 16). Worked out once per pack (as
    layout.cards_by_number: anew if the pack's cards change in number)."""
    found = rules.__dict__.get("_imagined_homes")
    if found is None or len(found[0]) != len(rules.instances):
        homes = [
            (card.get("deck") or "", start[2]) for card, start in zip(cards_by_number(rules), rules.start, strict=True)
        ]
        numbers: dict[tuple, int] = {}
        found = rules.__dict__["_imagined_homes"] = (homes, [numbers.setdefault(home, len(numbers)) for home in homes])
    return found


def _cards_of_homes(rules) -> list[frozenset]:
    """The card numbers of each home, by the home's number (`_homes`): a zone's cards are all of one home when the
    first one's home holds them all, a test in C with no call a card (compiled, `map` of a method wrapper costs some
    hundred instructions a card). Worked out once per pack, anew with `_homes`."""
    numbers = _homes(rules)[1]
    found = rules.__dict__.get("_imagined_home_cards")
    if found is None or found[0] is not numbers:
        cards: list[set] = [set() for _ in range(max(numbers, default=-1) + 1)]
        for card, number in enumerate(numbers):
            cards[number].add(card)
        found = rules.__dict__["_imagined_home_cards"] = (numbers, [frozenset(held) for held in cards])
    return found[1]


def _redeal_snapshot(attempt, imagined: dict[int, int]) -> None:
    """Put in the snapshot (a copy: clones share it) the card imagined in each true card's place. The re-dealt
    cards are those `player` can neither see nor place now, a set each card of the snapshot is in or not, so the
    snapshot still holds every card once. Each card's new place, and the zones that held re-dealt cards, in one loop:
    compiled, it costs a third of maps of `loc.__setitem__` and `was_at.__getitem__` (a method wrapper's call a card;
    issue 16: a bot imagines a deal at every decision, a hundred cards and more; tests/test_runtime_speed_z_look_ahead.py
    holds it to the re-deal of before)."""
    was_at = attempt["snap"]["loc"]
    if type(was_at) is not list:  # a state built by hand
        snap = copy_state(attempt["snap"], shared=("params", "pending"))
        loc = snap["loc"]
        zones = snap["zones"]
    else:
        # a snapshot is never changed, only copied (undo.fail): the copy shares its parts but `loc` and the lists of the
        # zones that held re-dealt cards, new ones, in a map of zones of its own
        snap = attempt["snap"].copy()
        loc = snap["loc"] = was_at.copy()
        zones = snap["zones"] = snap["zones"].copy()
    held = set()  # the zones that held re-dealt cards; the others stay as copied
    last = None  # (the cards of a zone come together: its name is added once for them)
    for card, instead in imagined.items():  # each imagined card where its true card was, the others as they were
        loc[instead] = key = was_at[card]
        if key is not last:
            held.add(key)
            last = key
    get = imagined.get
    for key in held:
        zones[key] = [get(card, card) for card in zones[key]]  # an empty place (None) stays empty
    attempt["snap"] = snap


_UNSEEN = "?"  # the back of a card where its back is not seen (deep in a deck): anything may lie there


def _has_backs(rules) -> bool:
    """Whether any card of the pack has a `back` (worked out once per pack): without backs the re-deal is as it
    always was, so the bots of packs without backs imagine the same games."""
    found = rules.__dict__.get("_has_backs")
    if found is None:
        found = rules.__dict__["_has_backs"] = any(card.get("back") for card in rules.cards.values())
    return found


def _forget_earlier_picks(state, pending, player) -> None:
    """A secret choice of several picks each (`choose_secretly ... taking N`, verbs.ChooseSecretly) asks them in
    rounds; what the others picked in the rounds before is not known yet either: in the imagined game they
    pick again from the start."""
    wait = state["stack"][-1]["wait"] if state["stack"] else None
    if not wait or "first" not in wait:
        return
    done = len(wait["options"])
    for other, picks in wait["picks"].items():
        if other == player or not picks or other not in wait["first"]:
            continue
        offer, allowed = wait["first"][other]
        wait["picks"][other] = []
        wait["offer"][other] = list(offer)
        pending["allowed"][other] = list(allowed)
        if done in allowed and len(pending["options"]) == done:
            pending["options"].append(DONE)
        if other not in wait["order"]:
            wait["order"].append(other)
            pending["order"].append(other)
        if other not in pending["by"]:
            pending["by"].append(other)
