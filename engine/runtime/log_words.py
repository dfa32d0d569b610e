"""The game log kept as compact plain data and worded only when someone reads it.

Most lines of a log say that cards moved or that a counter changed, and each seat may read them
differently (a card's name only for those who saw it). Wording every line for everyone as it happens
cost a quarter of a game's time; so a move is kept as its facts — who, which cards, from where to where —
with, for each card, the seats that could see it before or after it moved (a bit mask by seat order,
recorded then: who can see a card changes later). `word` makes the line a seat reads from those facts
and the pack's names.

Entries of `state["log"]` (all plain lists):
    [text]                              the same line for everyone
    [text, {seat: text}]                a line, and their own wording for some seats
    ["move", setup, actor, verb, source, target, [card, ...], [mask, ...]]
    ["count", setup, owner, counter, change]
    ["together", setup, [[seat, label, mask], ...]]   picks told together; a label only for `mask`
    ["reveal", setup, actor, to, [card, ...], [mask, ...]]   cards shown to `to` (seats; None: everyone),
                                        named only for the seats of each card's mask (who saw it then)
    ["choice", setup, by, prompt, name, forced, of_cards, chosen, labels, shape, [card, ...], [mask, ...], backs]
                                        what `by` chose (`log_choice`), with what wording it needs from then
`setup` is 0 in play, 1 for a line of the setup, 2 for a setup move that is nobody's act.
"""

from __future__ import annotations

import copy
from weakref import WeakKeyDictionary

from .counter_visibility import change_line
from .functions import option_words
from .layout import BACKS_VISIBLE, OWNER, PUBLIC, TOP, backs_of, sight_of
from .state import SETUP_STAGES

MOVE, COUNT, TOGETHER, REVEAL, CHOICE = "move", "count", "together", "reveal", "choice"
SETUP = "Setup: "
HIDDEN_CARD = "a card"
# a move of the setup that is nobody's act: "Setup: 3 cards drawn from ..."
SETUP_WORDS = {"draws": "drawn", "moves": "moved", "takes": "taken", "discards": "discarded", "removes": "removed"}
MOVE_VERBS = ("draws", "moves", "takes", "discards", "removes")  # and "gives <seat>"
# the text of the card numbers below so many, the keys of `known` and `shown` made once: `str(card)` makes a new string
# at each call (and its hash again at each lookup), which cost a third of forgetting who knew where a moved card lay
CARD_TEXTS = tuple(map(str, range(4096)))


def card_text(card) -> str:
    """A card's key in `known` and `shown`: its number's text, the one made once below 4,096 (`str(card)` else, a yes/no
    standing for a card included)."""
    texts: tuple = CARD_TEXTS
    return texts[card] if type(card) is int and 0 <= card < len(texts) else str(card)


# ------------------------------------------------------------------------------------------- who sees
def seat_bits(g) -> dict:
    """Each seat's bit in a mask (P1 is 1, P2 is 2, P3 is 4, ...), of the seating's layout (only read): not kept on the
    game, whose attributes are as few as CPython lays out in place for every game (Game.__init__)."""
    return g.layout.seat_bits


def _zone_sight(g, zone: str):
    """Who sees any card of `zone` by the zone alone, as a mask of seats, or None for a `top` zone (only its
    top card is seen, by everyone): the layout's rule for the zone (layout.sight_of, what `Table.can_see`
    reads), turned into a mask once per zone and game."""
    cache = g.sight_masks  # kept on the game (Table.bind_tables): the zones' rules do not change
    sight = cache.get(zone, -1)
    if sight != -1:
        return sight
    bits = seat_bits(g)
    rule, owner = g._sight.get(zone) or sight_of(g.rules, zone)
    if rule == PUBLIC:
        sight = (1 << len(bits)) - 1
    elif rule == OWNER:
        sight = bits.get(owner, 0) if owner is not None else 0
    elif rule == TOP:
        sight = None
    else:
        sight = 0
    cache[zone] = sight
    return sight


def seen_by(g, card: int) -> int:
    """The mask of the seats that can see `card` now (`Table.can_see` for every seat at once)."""
    state = g.state
    zone = state["loc"][card]
    sight = g.sight_masks.get(zone, -1)  # `_zone_sight`, looked up here first: this runs for every card moved
    if sight == -1:
        sight = _zone_sight(g, zone)
    if sight is None:
        cards = state["zones"][zone]
        sight = (1 << len(state["players"])) - 1 if cards and cards[-1] == card else 0
    if state["shown"]:
        shown = state["shown"].get(str(card))
        if shown == "all":
            return (1 << len(state["players"])) - 1
        if shown:
            bits = seat_bits(g)
            for seat in shown:
                sight |= bits.get(seat, 0)
    return sight


def remember(g, card, mask: int) -> None:  # (`card` unannotated: compiled, `card: int` would let a bool pass as an int)
    """The seats of `mask` saw `card` go where they cannot see it: they know where it lies (the state's
    `known`, what a player's information set keeps: imagine.determinized leaves such cards in place) until
    it moves again (Table.move forgets it) or its pile is shuffled (`forget_all`)."""
    state: dict = g.state  # (a dict to Cython: `get` called in C)
    known: dict | None = state.get("known")
    if known is None:  # a game saved before players' knowledge was kept: it keeps none
        return
    bits: dict = g.layout.seat_bits  # (`seat_bits` without its call)
    known[card_text(card)] = [p for p, bit in bits.items() if mask & bit]


def forget_all(g, cards) -> None:
    known = g.state.get("known")
    if known:
        for card in cards:
            if card is not None:
                known.pop(str(card), None)


def knows(g, card: int, player) -> bool:
    """Whether `player` knows where `card` lies although they cannot see it there (`remember`)."""
    known = g.state.get("known")
    return bool(known) and player in known.get(str(card), ())


# ------------------------------------------------------------------------------------------- recording
def setup_flag(g, by_nobody: bool = False) -> int:
    state = g.state  # (`in_setup` without its call)
    if state["turn"]["number"] != 0 or state["stage"] not in SETUP_STAGES:
        return 0
    return 2 if by_nobody else 1


def unread_log(public, private=None) -> None:
    """`Table.log` of a bot's imagined game (agents.GreedyAgent.act): the game is scored by its counters and thrown
    away, and nothing it plays reads its log (undo.fail only cuts it back), so its lines are not worded nor kept; nor
    are the entries below that cost to gather (`log_counted`, `log_choice`: `g.log is unread_log`)."""


def log_counted(g, owner, counter: str, change: int) -> None:
    """(`setup_flag` without its call: this runs for every change of a counter.)"""
    if g.log is unread_log:  # a bot's imagined game: nobody reads its log
        return
    state = g.state  # (`in_setup` without its call)
    setup = 1 if state["turn"]["number"] == 0 and state["stage"] in SETUP_STAGES else 0
    state["log"].append([COUNT, setup, owner, counter, change])


def log_card_counted(g, card: int, counter: str, change: int) -> None:
    """A change of a counter kept on a card (`owner: card`), worded now for who sees the card then: "P1's
    Warrior gains 2 wounds" for them, "a card of P1 gains 2 wounds" for the others (the card's owner, if any,
    is public: where it lies is). Nothing is logged for a change by nothing."""
    if not change:
        return
    owner = g.owner_of(card)
    sight = seen_by(g, card)
    everyone = (1 << len(g.state["players"])) - 1
    amount = f"{'gains' if change > 0 else 'loses'} {abs(change)} {counter}"
    name = g.card_label(card, None)
    named = f"{owner}'s {name} {amount}" if owner else f"{name} {amount}"
    if sight == everyone:
        g.log(named)  # "Setup: " before it in the setup
        return
    hidden = f"{HIDDEN_CARD} of {owner} {amount}" if owner else f"{HIDDEN_CARD} {amount}"
    g.log(hidden, {p: named for p, bit in seat_bits(g).items() if sight & bit})


def log_unchanged(g, owner, counter: str, sign: int) -> None:
    """A gain or loss (`sign`) of nothing of a counter not everyone may read: logged as a change would be,
    worded now, so that those who may not read it cannot tell it from a real change (counter_visibility.py)."""
    prefix = SETUP if setup_flag(g) else ""
    public = prefix + change_line(g, owner, counter, 0, g.state["players"], sign)
    own = {
        p: text for p in g.state["players"] if (text := prefix + change_line(g, owner, counter, 0, [p], sign)) != public
    }
    g.state["log"].append([public, own] if own else [public])


def log_together(g, picks: list) -> None:
    g.state["log"].append([TOGETHER, setup_flag(g), picks])


def log_revealed(g, actor, to: list | None, cards: list) -> None:
    """Cards shown to the seats `to` (None: everyone), with who can see each now: worded when read, the
    names only for them ("P2 shows Amber to P1"; a bystander reads "P2 shows a card to P1")."""
    g.state["log"].append([REVEAL, setup_flag(g), actor, to, list(cards), [seen_by(g, x) for x in cards]])


def log_choice(g, by, prompt, name, forced: bool, of_cards: bool, chosen: list, labels, shape) -> None:
    """What `by` chose (the values `chosen`), kept as facts and worded when read (`_word_choice`), as the
    options were worded at once before: `prompt` or `name` the question answered, `forced` when there was
    only one option, `labels` the options' `showing` labels (worked out now: they read the state), `shape`
    which places of list options hold plain numbers. When the options are cards (`of_cards`) the chooser reads
    the cards they see by name, the others those everyone sees; so each card the words may name is kept with
    the seats that see it now and, in `backs`, whether its back shows where it lies (a "face-down card
    (forest back)"): where it lies and who sees it change later, the line does not."""
    if g.log is unread_log:  # a bot's imagined game: nobody reads its log, so nobody's sight of the cards is read
        return
    # card numbers or names, most often (a loop: compiled, it costs less than a set of a `map` of `type`)
    flat = numbers = True
    for value in chosen:
        if type(value) is not int:
            numbers = False
            if type(value) is not str:
                flat = False
                break
    if not of_cards:
        cards = []
    elif numbers:  # card numbers alone: each named once (`cards_named` without its call)
        cards = list(chosen) if len(chosen) < 2 else list(dict.fromkeys(chosen))
    else:
        cards = cards_named(chosen, len(g.rules.instances))
    state = g.state  # (read below as `in_setup` reads it, without its call)
    everyone = (1 << len(state["players"])) - 1
    seen, backs = [], []
    for card in cards:
        sight = seen_by(g, card)
        seen.append(sight)
        if sight != everyone and g.card_def(card).get("back") and g.sees_back(card, None):
            backs.append(card)
    if flat:  # a copy of the list is enough
        kept = list(chosen)
    else:
        kept = [value if type(value) is int or type(value) is str else copy.deepcopy(value) for value in chosen]
    setup = 1 if state["turn"]["number"] == 0 and state["stage"] in SETUP_STAGES else 0
    state["log"].append([CHOICE, setup, by, prompt, name, forced, of_cards, kept, labels, shape, cards, seen, backs])


def cards_named(chosen: list, total: int) -> list[int]:
    """The card numbers the words of a choice of cards may name, each once: every whole number chosen (read
    as a card, as `Table.public_label` and `card_label` read it: yes/no too) and the card numbers (below
    `total`) inside list options."""
    found: dict[int, None] = {}
    for value in chosen:
        if isinstance(value, int):
            found[int(value)] = None
        elif isinstance(value, list):
            _cards_inside(value, total, found)
    return list(found)


def _cards_inside(value: list, total: int, found: dict) -> None:
    for part in value:
        if type(part) is int and 0 <= part < total:
            found[part] = None
        elif isinstance(part, list):
            _cards_inside(part, total, found)


def worded_log(g) -> list:
    """The whole log in the form the state's hash is taken over (see `worded`)."""
    return [worded(g, entry) for entry in g.state["log"]]


# ------------------------------------------------------------------------------------------- wording
def word(g, entry: list, reader) -> str:
    """The line `reader` (a seat; None or anyone else: what everyone may read) reads for `entry`."""
    kind = entry[0]
    if len(entry) <= 2:  # worded when it happened
        if len(entry) == 2 and reader in entry[1]:
            return entry[1][reader]
        return kind
    bits = seat_bits(g)
    everyone = (1 << len(bits)) - 1
    mask = bits.get(reader, everyone) if reader is not None else everyone
    if kind == MOVE:
        text = _word_move(g, entry, mask)
    elif kind == COUNT:
        viewers = [reader] if reader in bits else g.state["players"]
        text = change_line(g, entry[2], entry[3], entry[4], viewers)
    elif kind == REVEAL:
        text = _word_reveal(g, entry, mask)
    elif kind == CHOICE:
        text = _word_choice(g, entry, reader)
    else:
        told: dict[str, list[str]] = {}  # a seat's several picks (`taking`) read "P1 Amber + a card"
        for seat, label, seen in entry[2]:
            told.setdefault(seat, []).append(label if mask & seen == mask else HIDDEN_CARD)
        text = "Chosen together: " + ", ".join(f"{seat} {' + '.join(labels)}" for seat, labels in told.items())
    return SETUP + text if entry[1] else text


def _backs_told(g, source: str, target: str) -> bool:
    """Whether a move's line names the backs of the face-down cards it moves: when they come from, or go to, a
    zone where every back is seen (`backs: visible`, layout.backs_of); a deck's order of backs stays unsaid."""
    return BACKS_VISIBLE in (backs_of(g.rules, source), backs_of(g.rules, target))


def _hidden_cards(g, hidden: list[int], told: bool) -> str:
    """Face-down cards moved together: "3 cards", or with their backs "3 cards (forest, river, danger backs)"."""
    backs = [g.card_def(card).get("back") for card in hidden] if told else []
    if backs and all(backs):
        return f"{len(hidden)} cards ({', '.join(backs)} backs)"
    return f"{len(hidden)} cards"


def _names(g, cards, seen, mask, told: bool, grouped: bool) -> str:
    """The cards of a move or a reveal as `mask` reads them: named where every seat of it saw them, else "a
    card" (with its back when `told`); `grouped`: several cards none of them named read "3 cards"."""
    if grouped and len(cards) > 1 and all(mask & sight != mask for sight in seen):
        return _hidden_cards(g, cards, told)
    return ", ".join(
        g.card_label(card, None)
        if mask & sight == mask
        else f"{HIDDEN_CARD} ({back} back)"
        if told and (back := g.card_def(card).get("back"))
        else HIDDEN_CARD
        for card, sight in zip(cards, seen, strict=True)
    )


def _word_move(g, entry, mask) -> str:
    _, setup, actor, verb, source, target, cards, seen = entry
    told = _backs_told(g, source, target)
    where = f"from {g.zone_name(source)} to {g.zone_name(target)}"
    if setup == 2 or actor is None:  # nobody's act: "3 cards drawn from ..." (setup), "Axe is discarded from ..."
        shown = _names(g, cards, seen, mask, told, grouped=True)
        done = f"given to {verb[6:]}" if verb.startswith("gives ") else SETUP_WORDS.get(verb, verb)
        return f"{shown} {done} {where}" if setup else f"{shown} {'are' if len(cards) > 1 else 'is'} {done} {where}"
    return f"{actor} {verb} {_names(g, cards, seen, mask, told, grouped=False)} {where}"


def _word_reveal(g, entry, mask) -> str:
    _, _setup, actor, to, cards, seen = entry
    shown = _names(g, cards, seen, mask, told=False, grouped=True)
    who = f"{actor} " if actor is not None else ""
    if to is None:
        return f"{who}reveals {shown}" if who else f"{shown} revealed"
    if to == [actor]:
        return f"{actor} looks at {shown}"
    return f"{who}shows {shown} to {', '.join(to)}" if who else f"{shown} shown to {', '.join(to)}"


def _word_choice(g, entry, reader) -> str:
    """A choice's line as the chooser (`reader` is `by`) or anyone else reads it: the options worded as
    `views.option_label` words them, by the game's own functions, with the table as it was seen then."""
    _, _setup, by, prompt, name, forced, of_cards, chosen, labels, shape, cards, seen, backs = entry
    own = reader == by
    reader = by if own and of_cards else None  # only cards read otherwise for their chooser
    table = _SeenThen(g, dict(zip(cards, seen, strict=True)), backs) if of_cards else g
    pending = {"kind": "choose", "cards": of_cards, "shape": shape, "options": chosen}
    if labels is not None:
        pending["labels"] = labels
    words = ", ".join(
        option_words(table, pending, i, value, reader)
        or (table.public_label([value], of_cards) if reader is None else table.card_label(value, reader))
        for i, value in enumerate(chosen)
    )
    line = _answered(by, prompt, name, words)
    return line + " (only one option)" if own and forced else line


def _answered(player, prompt, name, answer) -> str:
    """The log line of a choice, with the question it answered: the pack's own wording when it gave one
    (`with "..."`), else the name the answer is kept under (`as victim`)."""
    if prompt:
        return f'{player}, asked "{prompt}", chooses {answer}'
    if name:
        return f"{player} chooses {str(name).replace('_', ' ')}: {answer}"
    return f"{player} chooses {answer}"


class _SeenThen:
    """The game as the readers of a choice saw it when it was made: who could see each card it names
    (`sight`: card -> mask of seats) and whose back showed where it lay (`backs`) as recorded then; the rest
    (names, labels, the pack) from the game, which does not change them. The wording methods of the game
    run on it, so that they read `can_see` and `sees_back` here."""

    def __init__(self, g, sight: dict, backs: list):
        self._game, self._sight, self._backs = g, sight, set(backs)
        self._bits = seat_bits(g)

    def __getattr__(self, name):
        return getattr(self._game, name)

    def can_see(self, card, player) -> bool:
        return bool(self._sight[card] & self._bits.get(player, 0))

    def sees_back(self, card, player) -> bool:
        return (player is not None and self.can_see(card, player)) or card in self._backs

    def seen_by_everyone(self, card) -> bool:
        everyone = (1 << len(self._bits)) - 1
        return self._sight[card] & everyone == everyone

    def back_words(self, card, player) -> str:
        return type(self._game).back_words(self, card, player)

    def card_label(self, card, player) -> str:
        return type(self._game).card_label(self, card, player)

    def public_label(self, values, cards: bool) -> str:
        return type(self._game).public_label(self, values, cards)


def worded(g, entry: list) -> list:
    """The entry as it was kept before moves were worded on reading: `[public]`, or `[public, {seat:
    own}]` for the seats that read it otherwise. The state's hash is taken over this form, so a game's
    fingerprint (and every log file's `final_hash`) does not depend on how the log is kept."""
    if len(entry) <= 2:
        return entry
    public = word(g, entry, None)
    own = {p: text for p in g.state["players"] if (text := word(g, entry, p)) != public}
    return [public, own] if own else [public]


# game -> (its log, reader -> (lines worded, the last entry worded)): kept beside the game, not on it, whose attributes
# stay as few as CPython lays out in place (Game.__init__); gone with the game
_WORDED: WeakKeyDictionary[object, tuple[list, dict]] = WeakKeyDictionary()


def lines_for(g, reader) -> list[str]:
    """Every line of the log as `reader` reads it. Worded lines are kept per reader on the game and only
    the new entries are worded: the log only grows, except when an undone action cuts it back (a new
    list), which starts the wording again."""
    log = g.state["log"]
    cache = _WORDED.get(g)
    if cache is None or cache[0] is not log:
        cache = _WORDED[g] = (log, {})
    lines, upto = cache[1].get(reader, ((), None))
    done = len(lines)
    if done > len(log) or (done and log[done - 1] is not upto):  # cut back or changed in place
        lines, done = [], 0
    if done < len(log):
        lines = list(lines) + [word(g, entry, reader) for entry in log[done:]]
        cache[1][reader] = (lines, log[-1])
    return list(lines)
