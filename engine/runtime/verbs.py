"""What each DSL verb does at run time, one class per verb of `engine/dsl/builtins.py`.

A verb's `run` returns None when done, "fail" when the action cannot go on this way, "yield" when
it changed the stack, or a pending decision (plain data). Decision verbs keep their progress in
the frame (`frame["wait"]`) and continue in `resume` with each answer, one small pick at a time.
"""

from __future__ import annotations

from itertools import chain, count, filterfalse, repeat

from engine.dsl.builtins import ORIENTATIONS, VERBS, implemented

from .budget import bounded, bounded_int, out_of_work, spend
from .context import Ctx
from .costs import cost_payable, joker_of
from .counter_visibility import read_by_all
from .driver import NOBODY, triggered
from .errors import ContentError
from .functions import cards_in, composite_words
from .log_words import (
    MOVE,
    forget_all,
    log_card_counted,
    log_choice,
    log_counted,
    log_revealed,
    log_together,
    log_unchanged,
    remember,
    seat_bits,
    seen_by,
    unread_log,
)
from .places import slide
from .protocol import DONE
from .state import SETUP_STAGES

CONSTANT_ARGUMENTS = True  # an expression that is one constant read once when its verb is built (tests: off)


class Fixed:
    """An argument whose value is known when the verb is built: a plain name (`gain 1 vp`: the counter), a number
    or a text as written. Callable as every argument is; a verb binds its value once (`VerbStep.argument`)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __call__(self, c):
        return self.value


def _written(compiler, node):
    """An argument as a function of the context: the value itself when it is written as a number or a plain text
    (what codegen makes of them: `int`, `str`), else the compiled expression."""
    if node[0] == "num":
        return Fixed(int(node[2]))
    if node[0] == "str":
        return Fixed(str(node[2]))
    return compiler.expr(node)


def compile_verb(compiler, node):
    _, at, name, args, clauses = node
    spec = VERBS.get(name)
    if spec is None or name not in IMPLEMENTATIONS:
        raise ContentError(f"the verb `{name}` has no implementation", compiler.key, at, code="X502")
    compiled, raw, binds = {}, {}, []
    if name == "perform" and args and args[0][0] == "call" and args[0][2] in compiler.rules.actions:
        _, _, action, values = args[0]  # `perform suffer(2)`: the action, and the values of its `params`
        compiled["values"] = [compiler.expr(value) for value in values]
        args = [("name", args[0][1], action)]
    for param, arg in zip(spec.params_for(len(args)), args, strict=False):
        raw[param.name] = arg
        if param.type == "name" or param.type == "counter" and _names_counter(compiler, arg):
            compiled[param.name] = Fixed(arg[2])
        else:
            compiled[param.name] = _written(compiler, arg)
    for prep, _offset, value in clauses:
        raw[prep] = value
        if prep == "as":
            compiled["as"] = value[2]
            binds.append(value[2])
        elif (kind := getattr(spec.clauses.get(prep), "type", "")) == "moment" or (  # a word: `until round_end`
            kind == "counter" and _names_counter(compiler, value)
        ):
            compiled[prep] = Fixed(value[2])
        elif prep == "showing":  # worked out per option, `item` the option
            compiled[prep] = compiler.item_expr(value)
        else:
            compiled[prep] = _written(compiler, value)
    if name in ("choose", "choose_secretly"):
        impl = IMPLEMENTATIONS[name](name, compiled, raw, frozenset(compiler.numeric))
        impl.shape = option_shape(raw.get("from"), compiler.numeric, getattr(compiler, "shapes", {}))
    else:
        impl = IMPLEMENTATIONS[name](name, compiled, raw)
    return ("verb", impl), binds


def _names_counter(compiler, node) -> bool:
    """A counter's bare name where a counter is expected names it (`gain 1 round`), though a table counter's
    bare name reads its value elsewhere (`round >= 3`; codegen.py)."""
    return node[0] == "name" and node[2] not in compiler.scope and compiler.rules.categories.get(node[2]) == "counter"


def holds_numbers(node, numeric) -> bool:
    """Whether an expression makes a list of plain numbers: `numbers(...)`, `[1, 2]`, a name bound to one
    by `let`, a pack function whose body makes one (compiler.number_functions), or a sum of such. (Card numbers are whole numbers too; this tells them apart.)"""
    if node[0] == "call":
        if node[2] in ("without", "sort", "unique") and node[3]:  # numbers less one, or reordered: still numbers
            return holds_numbers(node[3][0], numeric)
        if node[2] == "map" and len(node[3]) == 2:  # each a plain number (`map(hand(me), item.vp)`)
            return plain_number(node[3][1], numeric, holds_numbers(node[3][0], numeric))
        return node[2] in ("numbers", "between") or f"(){node[2]}" in numeric  # or a pack function that makes them
    if node[0] == "ifx":
        return holds_numbers(node[3], numeric) and holds_numbers(node[4], numeric)
    if node[0] == "list":
        return all(item[0] == "num" for item in node[2])
    if node[0] == "name":
        return node[2] in numeric
    if node[0] == "op" and node[2] in "+-":
        return holds_numbers(node[3], numeric) and holds_numbers(node[4], numeric)
    if node[0] == "where":  # some of them: still numbers
        return holds_numbers(node[2], numeric)
    return False


def options_are_cards(raw, numeric) -> bool:
    """Whole numbers among a verb's options (`from`) are card numbers, unless the options are numbers by
    their making."""
    source = raw.get("from")
    return not (source is not None and holds_numbers(source, numeric))


def option_shape(node, numeric, shapes) -> list[bool] | None:
    """For options that are lists written in the text (`[[card, 2], ...]`, `map(hand(me), [item, item.vp])`,
    or a name `let` bound to such): which of their places hold plain numbers rather than card numbers (both
    are whole numbers at run time), so that an option reads "Axe + 2", never a card's number. None: no such
    lists."""
    if node is None:
        return None
    kind = node[0]
    if kind == "list" and node[2] and all(inner[0] == "list" for inner in node[2]):
        rows = [[plain_number(x, numeric) for x in inner[2]] for inner in node[2]]
        return [all(i < len(row) and row[i] for row in rows) for i in range(max(map(len, rows)))]
    if kind == "call" and node[2] == "map" and len(node[3]) == 2 and node[3][1][0] == "list":
        inner = holds_numbers(node[3][0], numeric)
        return [plain_number(x, numeric, inner) for x in node[3][1][2]]
    if kind == "call" and node[2] in ("sort", "unique", "without") and node[3]:
        return option_shape(node[3][0], numeric, shapes)
    if kind == "where":
        return option_shape(node[2], numeric, shapes)
    if kind == "name":
        return shapes.get(node[2])
    if kind == "op" and node[2] == "+":
        left, right = (option_shape(x, numeric, shapes) for x in (node[3], node[4]))
        if left is None or right is None:
            return left or right
        return [a and b for a, b in zip(left, right, strict=False)]
    return None


_NUMBER_CALLS = frozenset({"count", "sum", "min", "max", "copies", "requires_held", "lines_between", "slot"})
_NUMBER_CALLS |= {"room", "amount", "compare_dice", "index_of", "has", "contains", "empty", "flagged"}


def plain_number(node, numeric, item_number: bool = False) -> bool:
    """Whether an expression's value is a plain number (or yes/no), never a card's number: `2`, `item.vp`,
    `count(...)`, arithmetic; `item` when the items are numbers."""
    kind = node[0]
    if kind in ("num", "neg", "cmp", "and", "or", "not", "field"):
        return True
    if kind == "op":
        return (
            node[2] in "*/%"
            or plain_number(node[3], numeric, item_number)
            and plain_number(node[4], numeric, item_number)
        )
    if kind == "call":
        return node[2] in _NUMBER_CALLS
    if kind == "name":
        return node[2] == "item" and item_number or node[2] in numeric
    if kind == "ifx":
        return plain_number(node[3], numeric, item_number) and plain_number(node[4], numeric, item_number)
    return False


class VerbStep:
    shape: list[bool] | None = None  # choices: the places of list options that hold plain numbers (option_shape)

    def __init__(self, name, args, raw):
        self.name = name
        self.args = args
        self.raw = raw
        # looked up once, for the verbs every effect runs: `for PLAYER` (compiled), the name `as` binds
        self.for_player = args.get("for")
        self.binds = args.get("as")
        node = raw.get("amount")
        self.binds_one = node is None or (node[0] == "num" and node[2] == 1)

    def value(self, c, key, default=None):
        args: dict = self.args  # (a dict to Cython: `get` called in C, not looked up by name)
        f = args.get(key)
        return f(c) if f is not None else default

    def argument(self, key, default=None) -> tuple:
        """An argument as the hot verbs read it, bound once when the verb is built: (None, its value) when it is
        `Fixed`, an expression that is one constant (codegen `constant_of`: `move X to ZONE`, `perform ACTION`), or not
        given (`default`), else (its function, None). `value` does the same at each call."""
        f = self.args.get(key)
        if f is None:
            return None, default
        if type(f) is Fixed:
            return None, f.value
        constant = getattr(f, "constant", None) if CONSTANT_ARGUMENTS else None
        if constant is not None:
            return None, constant[0]
        return f, None

    def player(self, c):
        """Whom the verb is done for: `for PLAYER`, else the acting player."""
        f = self.for_player
        return c.me if f is None else f(c) or c.me

    def single(self) -> bool:
        """`draw 1 ...`/`choose 1 ...` (or no amount) bind one item; any other amount binds a list."""
        return self.binds_one

    def bind(self, c, value):
        name = self.binds
        if name:
            c.env[name] = value

    def cards(self, c, value):
        if type(value) is int:  # one card, most often
            return [value]
        items = c.g.items_read(value)  # only read: `cards` is a new list
        cards = [x for x in items if type(x) is int]
        if len(cards) != len(items):  # a card's id names a kind of card, never one on the table: say so, not nothing
            named = next((x for x in items if type(x) is str and x in c.g.rules.cards), None)
            if named is not None:
                raise ContentError(
                    f"`{named}` is the id of a kind of card, not a card on the table: `{self.name}` needs cards "
                    f"from a zone (`ZONE where id = {named}`)",
                    code="X107",
                )
        return cards

    def resume(self, g, c, frame, answer):  # pragma: no cover -- only decision verbs are resumed
        raise ContentError(f"`{self.name}` asks nothing", code="X115")


class Gain(VerbStep):
    sign = 1

    def __init__(self, name, args, raw):
        super().__init__(name, args, raw)
        self.amount_of, self.amount = self.argument("amount")
        self.counter_of, self.counter = self.argument("counter")
        self.on_card, self.at_key = args.get("on"), args.get("at")

    def run(self, g, c, frame):
        f = self.amount_of
        amount = int((self.amount if f is None else f(c)) or 0) * self.sign
        f = self.counter_of
        counter = self.counter if f is None else f(c)
        f = self.for_player
        player = c.me if f is None else f(c) or c.me
        if self.on_card is not None:  # a counter with `owner: card`: one card's number
            card = self.on_card(c)
            changed = g.set_card_counter(card, counter, bounded_int(g.card_counter(card, counter) + amount))
            log_card_counted(g, card, counter, changed)
            return
        if self.at_key is not None:  # a counter with `keys`: the number at one key
            key = self.at_key(c)
            changed = g.set_counter(player, counter, bounded_int(g.counter_at(player, counter, key) + amount), key)
        else:
            changed = g.set_counter(
                player, counter, bounded_int(_one_number(g.counter(player, counter), counter) + amount)
            )
        if changed:  # worded for who may read the counter, when read (log_words.py)
            owner = player if g.rules.counters[counter].get("owner") == "player" else "table"
            log_counted(g, owner, counter, changed)
        elif not read_by_all(g.rules, counter):  # no line for nothing would tell the others it was 0
            owner = player if g.rules.counters[counter].get("owner") == "player" else "table"
            log_unchanged(g, owner, counter, self.sign)


class Lose(Gain):
    sign = -1


def _one_number(value, counter):
    """A counter's value where one number is meant: a counter with `keys` needs `at KEY` (lint says so where the
    counter is named in the text; this is for one named by an expression)."""
    if type(value) is dict:
        raise ContentError(f"`{counter}` holds a number per key: say which with `at KEY`", code="X107")
    return value


class Pay(VerbStep):
    def __init__(self, name, args, raw):
        super().__init__(name, args, raw)
        self.amount_of, self.amount = self.argument("amount")
        self.counter_of, self.counter = self.argument("counter")

    def run(self, g, c, frame):
        f = self.amount_of
        amount = int((self.amount if f is None else f(c)) or 0)
        f = self.counter_of
        counter, player = self.counter if f is None else f(c), self.player(c)
        have = _one_number(g.counter(player, counter), counter)
        if have < amount:
            return "fail"
        g.set_counter(player, counter, have - amount)


class Set(VerbStep):
    def __init__(self, name, args, raw):
        super().__init__(name, args, raw)
        self.counter_of, self.counter = self.argument("counter")
        self.to_of, self.to = self.argument("to")

    def run(self, g, c, frame):
        f = self.counter_of
        counter, player = self.counter if f is None else f(c), self.player(c)
        f = self.to_of
        value = self.to if f is None else f(c)
        if "on" in self.args and counter in g.rules.counters:  # a counter with `owner: card`: one card's number
            card = self.value(c, "on")
            g.set_card_counter(card, counter, bounded_int(int(value or 0)))
        elif counter in g.rules.counters:  # with `at`: one key of a counter with `keys` (without: every key)
            key = self.value(c, "at")
            if key is None and "at" in self.args:
                raise ContentError(f"the key of `{counter}` is none", code="X107")
            g.set_counter(player, counter, bounded_int(int(value or 0)), key)
        else:
            g.state["flags"][g.rules.flag_holder(counter, player)][counter] = bounded(value)  # (as `Flag.run`)


def acting(c):
    """Who acts, for the log: the player carrying out the effect, or None for an effect that is nobody's act
    (a phase outside any player's turn: setup, a round's start or end, the game's end; driver.NOBODY), where
    `me` is only the round's first player."""
    env: dict = c.env
    return None if env.get(NOBODY) else c.me


def _move_logged(g, cards, target, actor, verb, slot=None):
    """Move cards and log it, with the seats that could see each card before or after it moved (the
    log is worded when read, names only for those who saw them: log_words.py). `actor` is who acts (`acting`),
    not whose zone it is: a move done `for P2` by P1 is P1's ("P1 moves Axe ... to P2's tableau"); None: nobody's
    act ("Axe is moved from ...")."""
    if not cards:
        return
    if len(cards) == 1:
        _move_one_logged(g, cards[0], target, actor, verb, slot)
        return
    imagined = g.log is unread_log  # a bot's imagined game: the move alone (`_move_one_logged`)
    before = None if imagined else [seen_by(g, x) for x in cards]
    source = g.state["loc"][cards[0]]
    piled = slot is not None and not g.slotted(target)
    for n, x in enumerate(cards):
        g.move(x, target, slot + n if piled else slot)  # into a pile, the cards keep their order
    if before is None:
        return
    setup = 0
    state = g.state  # (`in_setup` without its call) 2: nobody's act ("Setup: 3 cards moved from ... to ...")
    if state["turn"]["number"] == 0 and state["stage"] in SETUP_STAGES:
        setup = 2 if actor not in (source.rsplit(":", 1)[-1], target.rsplit(":", 1)[-1]) else 1
    seen = []  # each card's seats before or after
    for x, sight in zip(cards, before, strict=True):
        now = seen_by(g, x)
        if sight & ~now:  # seen going out of sight: they know where it lies (log_words.remember)
            remember(g, x, sight & ~now)
        seen.append(sight | now)
    state["log"].append([MOVE, setup, actor, verb, source, target, list(cards), seen])


def _move_one_logged(g, card, target, actor, verb, slot):
    """`_move_logged` of one card: the same move, memory and line, without the loops. In a bot's imagined game
    (`g.log is unread_log`: agents.GreedyAgent) the move alone: nothing reads its log, nor what its players
    remember (`known`: only `determinized` reads it, of a real game). Who sees the card by its zone alone is read
    here (`seen_by` when the zone shows only its top card, or cards are shown, or its mask is not kept yet)."""
    if g.log is unread_log:
        g.move(card, target, slot)
        return
    state = g.state
    source = state["loc"][card]
    masks: dict = g.sight_masks  # (a dict to Cython: `get` called in C)
    before = masks.get(source)  # (None: a `top` zone's, or none kept yet)
    shown = state["shown"]  # (the same map after the move: Table.move only takes the card out of it)
    if before is None or shown:
        before = seen_by(g, card)
    g.move(card, target, slot)
    setup = 0
    if state["turn"]["number"] == 0 and state["stage"] in SETUP_STAGES:  # (`in_setup` without its call)
        setup = 2 if actor not in (source.rsplit(":", 1)[-1], target.rsplit(":", 1)[-1]) else 1
    now = masks.get(target)  # (Table.move puts the card in `target`)
    if now is None or shown:
        now = seen_by(g, card)
    if before & ~now:
        remember(g, card, before & ~now)
    state["log"].append([MOVE, setup, actor, verb, source, target, [card], [before | now]])


class Draw(VerbStep):
    def __init__(self, name, args, raw):
        super().__init__(name, args, raw)
        self.amount_of, self.amount = self.argument("amount")
        self.from_of, self.source = self.argument("from")
        self.to_of, self.to = self.argument("to")
        self.at_of, self.at = self.argument("at")
        # what `run` reads of the verb, in one read (as `Move.plan`)
        self.plan = (
            self.for_player,
            self.amount_of,
            self.amount,
            self.from_of,
            self.source,
            self.to_of,
            self.to,
            self.at_of,
            self.at,
            self.binds,
            self.binds_one,
        )

    def run(self, g, c, frame):
        plan: tuple = self.plan
        for_player, amount_of, amount, from_of, source, to_of, to, at_of, at, binds, binds_one = plan
        me = c.me
        player = me if for_player is None else for_player(c) or me  # (`player` without its call)
        amount = int((amount if amount_of is None else amount_of(c)) or 0)
        zones: dict = g.state["zones"]
        if from_of is not None:
            source = from_of(c)
        if type(source) is not str or source not in zones:  # (`zone_key` without its call for a zone's key: a deck)
            source = g.zone_key(source, player)
        target_value = to if to_of is None else to_of(c)
        target = None  # `zone_key` without its call for a zone's key or a zone each player has, as in `Move.run`
        if type(target_value) is str:
            if target_value in zones:
                target = target_value
            else:
                own_keys: dict = g._own_keys  # (dicts to Cython: `get` called in C)
                own: dict | None = own_keys.get(target_value)
                if own is not None:
                    target = own.get(player)
        if target is None:
            target = g.zone_key(target_value, player) if target_value is not None else f"_drawn:{player}"
        slot = at if at_of is None else at_of(c)
        drawn = []
        env: dict = c.env
        actor = None if env.get(NOBODY) else me  # (once: moving cards changes nobody's act; `acting` without its call)
        for _ in range(amount):
            pile: list = zones[source]  # (a list to Cython, as Table.move reads it: read backwards by index)
            card = None
            for x in reversed(pile):  # its top card (a loop: compiled, a generator costs an object and its calls)
                if x is not None:
                    card = x
                    break
            if card is None:
                if not g.refill(source):
                    break
                card = next(x for x in reversed(zones[source]) if x is not None)
            drawn.append(card)
            _move_one_logged(g, card, target, actor, "draws", slot)
        if binds:  # (`bind` and `single` without their calls)
            env = c.env
            env[binds] = (drawn[0] if drawn else None) if binds_one else drawn


# the places 0, 1, 2 ... of options, sliced for an offer of a few (compiled, `list(range(n))` costs several times more)
_MANY_PLACES = 64
_PLACES = list(range(_MANY_PLACES))


class Move(VerbStep):
    """`move CARDS to ZONE [at SLOT]`; `take` is the same with `to` defaulting to the player's hand."""

    word = "moves"

    def __init__(self, name, args, raw):
        super().__init__(name, args, raw)
        self.to_of, self.to = self.argument("to")
        self.at_of, self.at = self.argument("at")
        self.moved = args.get("cards")
        # what `run` reads of the verb, in one read: compiled, each attribute read costs about as much as a dict's
        self.plan = (self.for_player, self.to_of, self.to, self.moved, self.at_of, self.at, self.word)

    def run(self, g, c, frame):
        plan: tuple = self.plan
        for_player, to_of, to, moved, at_of, at, word = plan
        me = c.me
        player = me if for_player is None else for_player(c) or me
        target_value = to if to_of is None else to_of(c)
        if target_value is None:
            target_value = next((z for z, d in g.rules.zones.items() if d.get("type") == "hand"), None)
            if target_value is None:
                raise ContentError(f"`{self.name}` needs `to`: the pack has no hand zone", code="X115")
        target = None  # `zone_key` without its call for a zone's key or a zone each player has (most moves)
        if type(target_value) is str:
            zones: dict = g.state["zones"]
            if target_value in zones:
                target = target_value
            else:
                own_keys: dict = g._own_keys  # (dicts to Cython: `get` called in C)
                own: dict | None = own_keys.get(target_value)
                if own is not None:
                    target = own.get(player)
        if target is None:
            target = g.zone_key(target_value, player)
        if moved is not None:
            moved = moved(c)
        cards = None if type(moved) is int else self.cards(c, moved)  # one card, most often: no list of it
        env: dict = c.env
        actor = None if env.get(NOBODY) else me  # `acting`, without its call: most effects move cards
        slot = at if at_of is None else at_of(c)
        if cards is None:  # (`cards` and `_move_logged` without their calls)
            _move_one_logged(g, moved, target, actor, word, slot)
        elif len(cards) == 1:  # the cards of a zone holding one (`_move_logged` without its call)
            _move_one_logged(g, cards[0], target, actor, word, slot)
        else:
            _move_logged(g, cards, target, actor, word, slot)


class Take(Move):
    word = "takes"


class Discard(VerbStep):
    """The log names whose card it is: a card leaving a player's zone is that player's discard ("P2 discards
    Arrow from P2's hand"), whoever's effect asked for it; a card of a shared zone is the actor's."""

    def __init__(self, name, args, raw):
        super().__init__(name, args, raw)
        self.to_of, self.to = self.argument("to")
        self.discarded = args.get("cards")

    def run(self, g, c, frame):
        f = self.to_of
        target_value = self.to if f is None else f(c)
        for card in self.cards(c, self.discarded(c) if self.discarded is not None else None):
            target = g.zone_key(target_value, c.me) if target_value is not None else g.discard_pile(card)
            actor = acting(c)
            _move_logged(g, [card], target, actor and (g.owner_of(card) or actor), "discards")


class Remove(VerbStep):
    def run(self, g, c, frame):
        _move_logged(g, self.cards(c, self.value(c, "cards")), "_removed", acting(c), "removes")


class Give(VerbStep):
    def run(self, g, c, frame):
        receiver = self.value(c, "to")
        for card in self.cards(c, self.value(c, "cards")):
            zone = g.state["loc"][card].split(":")[0]
            if g.rules.zones.get(zone, {}).get("owner") != "player":
                raise ContentError(
                    "`give` moves cards between players' zones; this card is in a shared zone", code="X115"
                )
            _move_logged(g, [card], f"{zone}:{receiver}", acting(c), f"gives {receiver}")


class Reveal(VerbStep):
    """`reveal CARDS [to PLAYERS]`: the cards are seen by those players (everyone) until they move. The log
    names them only for the seats that can see them then (log_words.REVEAL): a bystander of a reveal to
    one player reads "P2 shows a card to P1"."""

    def run(self, g, c, frame):
        to_value = self.value(c, "to")
        to = None
        if to_value is not None:  # the seats shown to, in seat order
            chosen = g.items_of(to_value)
            to = [p for p in g.players if p in chosen]
        if to == []:
            return
        shown = g.state["shown"]
        for card in self.cards(c, self.value(c, "cards")):
            if to is None:
                shown[str(card)] = "all"
            else:
                seen = shown.get(str(card))
                if seen != "all":
                    shown[str(card)] = sorted(set(seen or []) | set(to))
            log_revealed(g, acting(c), to, [card])


class Shuffle(VerbStep):
    def run(self, g, c, frame):
        zone = g.zone_key(self.value(c, "zone"), c.me)
        into = self.value(c, "into")
        if into is not None:
            target = g.zone_key(into, c.me)
            for card in [x for x in g.state["zones"][zone] if x is not None]:
                g.move(card, target)
            zone = target
        g.rng.shuffle(f"shuffle:{zone}", g.own_zone(zone))
        forget_all(g, g.state["zones"][zone])  # nobody knows any more where in it a card lies
        g.log(f"{g.zone_name(zone)} is shuffled")


class Turn(VerbStep):
    def __init__(self, name, args, raw):
        super().__init__(name, args, raw)
        self.to_of, self.to = self.argument("to")

    def run(self, g, c, frame):
        f = self.to_of
        orientation = self.to if f is None else f(c)
        actor, word = acting(c), ORIENTATIONS[int(orientation)]

        def line(label):
            return f"{actor} turns {label} ({word})" if actor else f"{label} is now {word}"

        for card in self.cards(c, self.value(c, "card")):
            g.state["orient"][card] = int(orientation)
            # the card's name only for those who see it (a card turned in a hidden place stays "a card")
            public, named = line(g.public_label([card], True)), line(g.card_label(card, None))
            g.log(public, {p: named for p in g.players if g.can_see(card, p)} if named != public else None)


# ---------------------------------------------------------------- decisions
class Choose(VerbStep):
    def __init__(self, name, args, raw, numeric=frozenset()):
        super().__init__(name, args, raw)
        self.of_cards = options_are_cards(raw, numeric)
        self.unless = args.get("unless")
        self.amount_of, self.amount = self.argument("amount", 1)
        self.from_of, self.source = self.argument("from")
        self.by_of, self.by = self.argument("by")
        self.with_of, self.prompt = self.argument("with")
        self.showing = args.get("showing")
        # the question asked without `with` (or with none), worded once
        self.plain = f"Choose {(self.binds or '').replace('_', ' ')}"

    def run(self, g, c, frame):
        if self.unless is not None and self.unless(c):
            self.bind(c, None if self.binds_one else [])
            return None
        f = self.amount_of
        amount = self.amount if f is None else f(c)
        f = self.from_of
        value = self.source if f is None else f(c)
        # a new list (kept in the wait): `items_of` without its call for a list without gaps, the commonest
        candidates = value[:] if type(value) is list and None not in value else g.items_of(value)
        work = g.work = g.work - len(candidates)  # (`spend`, without its call)
        if work < 0:
            out_of_work()
        if amount == "all":
            low = high = len(candidates)
        elif isinstance(amount, dict):
            low, high = amount["between"]
        else:
            low = high = int(amount or 0)
        high = min(high, len(candidates))
        if high <= 0 and low <= 0:
            self.bind(c, None if self.binds_one else [])
            return None
        if len(candidates) < low:
            if g.attempt is not None:
                return "fail"
            low = high = len(candidates)
        f = self.by_of
        by = (self.by if f is None else f(c)) or c.me
        f = self.with_of
        prompt = self.prompt if f is None else f(c)
        frame["wait"] = {
            "cands": candidates,
            "picked": [],
            "low": low,
            "high": high,
            "by": by,
            "cards": self.of_cards,
            "prompt": str(prompt) if prompt is not None else None,
        }
        return self._pending(g, c, frame)

    def _pending(self, g, c, frame):
        # (dicts and lists to Cython, as `run` makes them: `get` and slices in C, not looked up by name)
        wait: dict = frame["wait"]
        cands: list = wait["cands"]
        picked: list = wait["picked"]
        low, by = wait["low"], wait["by"]
        start = picked[-1] + 1 if picked else 0
        still = max(0, low - len(picked))
        stop = len(cands) - still + 1 if still else len(cands)
        blind = False
        window = cands[start:stop]
        if wait["cards"] and _holds_card(window):
            offer, options, seen = [], [], set()
            state: dict = g.state  # (read once; `can_see` is looked up only for a card whose zone keeps no mask)
            can_see, instances, loc, orient = None, g.rules.instances, state["loc"], state["orient"]
            # nothing shown: whether `by` sees a card is its zone's alone, `seen_by`'s mask where one is kept (a
            # `top` zone's is None: asked of `can_see`, as is every card while cards are shown or `by` is no seat)
            bit = 0
            if type(by) is str and not state["shown"]:
                bits: dict = seat_bits(g)
                bit = bits.get(by, 0)
            masks: dict = g.sight_masks
            for j in range(start, stop):
                value = cands[j]
                if type(value) is int:
                    sight = masks.get(loc[value]) if bit else None
                    if sight is None and can_see is None:
                        can_see = g.can_see
                    if can_see(value, by) if sight is None else sight & bit:  # identical cards seen: one option
                        key = (instances[value], loc[value], orient[value])
                        if key in seen:
                            continue
                        seen.add(key)
                    else:
                        blind = True
                offer.append(j)
                options.append(value)
        else:  # no cards (numbers by their making, names): every place is an option
            offer = _PLACES[start:stop] if 0 <= start <= stop <= _MANY_PLACES else list(range(start, stop))
            options = window
        if len(picked) >= low:
            offer.append(-1)
            options.append(DONE)
        wait["offer"] = offer
        if len(offer) > 1:  # the chooser had a choice (else the log tells them "only one option")
            wait["free"] = True
        question = wait.get("prompt") or self.plain
        high = wait["high"]
        pending = {
            "kind": "choose",
            "by": [by],
            "prompt": f"{question} ({len(picked) + 1} of {high})" if high > 1 else question,
            "options": options,
            "blind": blind,
            "cards": wait["cards"],
        }
        if self.showing is None and self.shape is None:  # nothing to label (`labelled` without its call)
            return pending
        return labelled(self, g, c, pending)

    def resume(self, g, c, frame, answer):
        wait: dict = frame["wait"]  # (`get` called in C)
        j = wait["offer"][answer]
        picked: list = wait["picked"]
        if j >= 0:
            picked.append(j)
        if j < 0 or len(picked) >= wait["high"] or picked[-1] >= len(wait["cands"]) - 1:
            cands: list = wait["cands"]
            chosen = [cands[place] for place in picked]  # (compiled, a comprehension costs less than a `map`)
            if self.binds:
                c.env[self.binds] = (chosen[0] if chosen else None) if self.binds_one else chosen
            if chosen:  # a forced choice is logged as any other, so that its absence tells nothing
                labels = None  # `showing` labels read the state: worked out now, the rest is worded when read
                if self.showing is not None:
                    labels = labelled(self, g, c, {"options": chosen})["labels"]
                shape = list(self.shape) if self.shape is not None else None
                forced = not wait.get("free")
                log_choice(g, wait["by"], wait.get("prompt"), self.binds, forced, wait["cards"], chosen, labels, shape)
            return None
        return self._pending(g, c, frame)


def labelled(step, g, c, pending, owner=None):
    """The pending decision of a `choose` or `choose_secretly` with how its options read: `showing` worked out
    per option with `item` the option (`labels`, None for "done"), and the places of list options that hold
    plain numbers (`shape`); views.option_label reads them. `owner` (a secret choice): option place -> the
    chooser it is worded for, as `me` (an option several choosers share reads as the first one's)."""
    label = step.args.get("showing")
    if label is not None:
        pending["labels"] = [
            None
            if option == DONE
            else _label_text(
                g, label(c if owner is None or n not in owner else Ctx(g, c.env, owner[n], c.card), option)
            )
            for n, option in enumerate(pending["options"])
        ]
    if step.shape is not None:
        pending["shape"] = list(step.shape)
    return pending


def _label_text(g, value) -> str:
    """A `showing` label as the text players read (a label that is not a text is worded as `words` does)."""
    text = value if type(value) is str else g.label(value)
    spend(g, len(text))
    return text


class Ask(VerbStep):
    def run(self, g, c, frame):
        player = self.value(c, "player")
        question = self.value(c, "question")
        about = f" ({g.public_label([c.card], True)})" if isinstance(c.card, int) else ""
        return {"kind": "ask", "by": [player], "prompt": f"{question}{about}", "options": [True, False]}

    def resume(self, g, c, frame, answer):
        value = [True, False][answer]
        self.bind(c, value)
        g.log(f"{self.value(c, 'player')} answers {'yes' if value else 'no'}: {self.value(c, 'question')}")


class Invite(VerbStep):
    def run(self, g, c, frame):
        players = [p for p in g.items_of(self.value(c, "players")) if p != c.me]
        if not players:
            self.bind(c, [])
            return None
        offer = self.value(c, "with")
        about = f" for {g.public_label([c.card], True)}" if isinstance(c.card, int) else ""
        frame["wait"] = {"order": players}
        return {
            "kind": "invite",
            "by": list(players),
            "order": list(players),
            "answers": {},
            "prompt": f"{c.me} invites you to join{about}"
            + (f" (offer: {g.label(offer)})" if offer is not None else ""),
            "options": [True, False],
        }

    def resume(self, g, c, frame, answer):
        order = frame["wait"]["order"]
        accepted = [p for p, a in zip(order, answer, strict=False) if a == 0]
        self.bind(c, accepted)
        g.log(f"Joining {c.me}: {', '.join(accepted) or 'nobody'}")


class Bid(VerbStep):
    def run(self, g, c, frame):
        players = g.items_of(self.value(c, "players"))
        counter = self.value(c, "from")
        if not players:
            self.bind(c, [])
            return None
        limits = {p: g.counter(p, counter) + 1 for p in players}
        frame["wait"] = {"order": players}
        return {
            "kind": "bid",
            "by": list(players),
            "order": list(players),
            "answers": {},
            "prompt": f"Bid {counter} in secret",
            "options": list(range(max(limits.values()))),
            "limit": limits,
        }

    def resume(self, g, c, frame, answer):
        order = frame["wait"]["order"]
        self.bind(c, list(answer))  # bids[1] is the first player's bid, in the order they were asked
        g.log("Bids revealed: " + ", ".join(f"{p} {b}" for p, b in zip(order, answer, strict=False)))


class ChooseSecretly(VerbStep):
    """Everyone of a group picks one of their own options at once; nobody sees another's pick until all
    have picked (the decision shows each player only their own options and answer). Then the picks are
    told together — except cards picked from places others cannot see, which stay "a card" to them until
    the effect shows them (moves them to a public place, or `reveal`). The options are worked out for each
    chooser as `me`; a player without options picks nothing (`none`). Identical cards a chooser can see
    (same card, same zone, same orientation) are one option to them, as for `choose`.

    `taking N` (a number or `between(a, b)`): each chooser picks N of their options, asked as N small picks
    in rounds (everyone still picking answers the round's pick at once, in the order of their options, as
    `choose` asks them); the picks stay secret until the last round, and each player's are bound as a list."""

    def __init__(self, name, args, raw, numeric=frozenset()):
        super().__init__(name, args, raw)
        self.of_cards = options_are_cards(raw, numeric)
        question = raw.get("with")
        # a question written as a plain text (no `{...}` in it) reads the same for every chooser: worded once
        self.same_question = question is None or question[0] == "str"
        self.players_of, self.players = self.argument("players")
        self.taking_of, self.taking = self.argument("taking", 1)
        self.takes = "taking" in args
        self.plain = f"Choose {args.get('as', '')} (in secret)".replace("  ", " ")
        # the words every chooser reads, when written as a plain text or not at all (None: worded as it is asked)
        asked = args.get("with")
        self.fixed_prompt = None if asked is not None and type(asked) is not Fixed else self.plain
        if type(asked) is Fixed:
            self.fixed_prompt = asked.value or self.plain
        source = raw.get("from")
        # options written out as plain texts and numbers (`from ["yes", "no", 3]`): every chooser's the
        # same, gathered once
        self.written_options = (
            source is not None
            and source[0] == "list"
            and bool(source[2])
            and all(n[0] in ("str", "num") for n in source[2])
        )
        # whether a card may be among the options: not when they are written out as texts alone (no look at them)
        self.may_hold_cards = self.of_cards and not (self.written_options and all(n[0] == "str" for n in source[2]))
        # options written out: (each option's place, the places of the options as written), found at the first run
        self.written: tuple[dict, list[int]] | None = None

    def run(self, g, c, frame):
        f = self.players_of
        value = self.players if f is None else f(c)
        # a new list of the players (kept in the wait): `items_of` without its call for a list without gaps, the commonest
        players = value[:] if type(value) is list and None not in value else g.items_of(value)
        options: list = []
        own: dict[str, list[int]] = {}  # each chooser's options, as places in `options`, in their order
        positions: dict = {}  # where each (hashable) option is in `options`
        hashable = True  # every option so far is hashable: `options` is then `positions`' keys, in order
        args: dict = self.args  # (a dict to Cython: `get` called in C)
        source = args.get("from")
        if self.written_options and players:  # the same options for all: places found once, charged as below
            written = self.written
            if written is None:  # written out, they are the same at every run: their places found once for all
                items = source(c)
                positions.update(zip(filterfalse(positions.__contains__, items), count()))
                written = self.written = (positions, list(map(positions.__getitem__, items)))
            positions, keys = written  # (only read: the options and each chooser's places are new lists below)
            size = len(keys)  # the first chooser finds no option before theirs, the others all of them
            # (`spend` each, without its calls)
            work = g.work = g.work - (size + (len(players) - 1) * size * (1 + len(positions)))
            if work < 0:
                out_of_work()
            own = {}
            for player in players:  # (no comprehension: a frame less)
                own[player] = keys[:]
        else:
            chooser = Ctx(g, c.env, None, c.card)  # one context, `me` each chooser in turn: expressions only read it
            zones: dict = g.state["zones"]
            slotted = g._slotted
            for player in players:
                chooser.me = player
                # only read: each item is kept in `options`, never the list itself (`items_read` without its call for
                # a list without gaps or a zone without places, the commonest: `opponents`, `hand(me)`)
                items = None
                if source is not None:
                    value = source(chooser)
                    if type(value) is list:
                        if None not in value:
                            items = value
                    elif type(value) is str and value not in slotted:
                        items = zones.get(value)
                    if items is None:
                        items = g.items_read(value)
                else:
                    items = []
                # each option is looked for among those so far (`spend`, without its call)
                work = g.work = g.work - len(items) * (1 + (len(positions) if hashable else len(options)))
                if work < 0:
                    out_of_work()
                keys = None
                if hashable:
                    # a new option takes the next place, in their order (a plain loop: compiled, it costs less than a
                    # chain of builtins, `dict.update` of a `zip` of a `filterfalse`, then a `map`)
                    keys = []
                    try:
                        for item in items:
                            key = positions.get(item)
                            if key is None:
                                key = positions[item] = len(positions)
                            keys.append(key)
                    except TypeError:  # a list or a mapping among them: from here on, the way below
                        hashable = False
                        options = list(positions)  # with this player's first items: found again below
                        keys = None
                if keys is None:
                    keys = []
                    for item in items:
                        try:
                            key = positions.get(item)
                        except TypeError:  # a list or a mapping: looked for in the list
                            key = options.index(item) if item in options else None
                        if key is None:
                            key = len(options)
                            options.append(item)
                            try:  # noqa: SIM105 -- a hot loop: contextlib.suppress costs three calls an item
                                positions[item] = key
                            except TypeError:  # an unhashable option: found by `options.index` above
                                pass
                        keys.append(key)
                if keys:
                    own[player] = keys
        if hashable:
            options = list(positions)
        taking = self.takes
        f = self.taking_of
        amount = self.taking if f is None else f(c)
        if amount == "all":
            low = high = len(options)  # each chooser's every option (less, below, for fewer options)
        elif isinstance(amount, dict):
            low, high = (int(x) for x in amount["between"])
        else:
            low = high = int(amount or 0)
        choosers: dict[str, list[int]] = own if high > 0 else {}  # those with something to pick (each has an option)
        if not taking:  # one pick each, all in one round (`_first_pending`): no limits, and no picks kept (`resume`)
            frame["wait"] = {"players": players, "own": choosers, "options": options, "taking": taking}
        else:
            limits: dict[str, list[int]] = {}  # fewer options, fewer picks
            picks: dict[str, list[int]] = {}  # each chooser's picks so far: none (one loop fills both)
            for player, keys in choosers.items():
                n = len(keys)
                limits[player] = [min(low, n), min(high, n)]
                picks[player] = []
            frame["wait"] = {
                "players": players,
                "own": choosers,
                "limits": limits,
                "picks": picks,
                "options": options,
                "taking": taking,
            }
        if not choosers:
            self.bind(c, [[] if taking else None for _ in players])
            return None
        return self._pending(g, c, frame)

    def _first_pending(self, g, c, frame):
        """`_pending` of a choice of one pick each (no `taking`: its one round), the commonest: every chooser offered
        every option of theirs at once (each has one: `run` keeps no chooser without), without the loop. Nothing is
        kept of what each was offered (the wait's `offer` and `first` of a choice with `taking`): its one answer
        each is an option's place in `options` (`resume`), and nothing is to be forgotten of picks (imagine.py)."""
        # (dicts and lists to Cython, as `run` makes them: slices and `get` in C, not looked up by name)
        wait: dict = frame["wait"]
        own: dict = wait["own"]
        options: list = wait["options"]
        keys: list  # each chooser's places in `options`
        allowed: dict[str, list[int]] = {}  # (a plain loop: compiled, it costs less than `dict(zip(...))` of `map`s)
        size = 0  # every chooser's options, counted in the loop that reads them (no `sum` of a `map`)
        for player, keys in own.items():
            allowed[player] = keys[:]  # (copies, as `_pending`'s slices)
            size += len(keys)
        work = g.work = g.work - size  # as `_pending` charges it, one chooser after another (nothing kept before)
        if work < 0:
            out_of_work()
        # identical cards a chooser sees are one option to them (no card among the options: no loop, no call)
        if self.may_hold_cards and _holds_card(options):
            # every option's kind at once when all are card numbers, the commonest (`_same_kind_twice`'s way; compiled,
            # comprehensions cost less than a `map` of a method's wrapper)
            instances = g.rules.instances
            try:
                kinds = [instances[option] for option in options]
            except TypeError:  # a name or a list among them: chooser by chooser
                kinds = None
            for player, keys in own.items():
                if kinds is None:
                    twice = _same_kind_twice(g, list(map(options.__getitem__, keys)))
                else:
                    twice = len({kinds[key] for key in keys}) < len(keys)
                if twice:
                    allowed[player] = _one_of_each_seen(g, player, keys, options, 0, len(keys))[1]
        prompt = self.fixed_prompt
        args: dict = self.args
        if prompt is None or self.shape is not None or args.get("showing") is not None:
            return self._ask(g, c, wait, allowed, None, False)
        # `_ask` without its call when its words are fixed and no option is labelled: no "done", no rounds
        askers: list = list(own)  # (`allowed` names them in the same order)
        wait["order"] = askers
        return {
            "kind": "secret",
            "by": askers[:],  # (copies: slices in C)
            "order": askers[:],
            "answers": {},
            "prompt": prompt,
            "options": options[:],
            "allowed": allowed,
            "cards": self.of_cards,
        }

    def _pending(self, g, c, frame):
        """The round's pick, asked of everyone who still picks; None when all have picked. What each may pick now
        (as places in their own options, -1: done, and in `options`): after their last pick (a set is never offered
        in two orders), leaving enough for the picks they still must make, one option for identical cards they see."""
        wait = frame["wait"]
        if not wait["taking"] and "first" not in wait:  # one pick each (`run`'s limits: [1, 1]), asked now: at once
            return self._first_pending(g, c, frame)
        limits, picked, options = wait["limits"], wait["picks"], wait["options"]
        allowed: dict[str, list[int]] = {}
        offers: dict[str, list[int]] = {}
        done = False  # whether anyone may say "done": the option after the others
        of_cards = self.of_cards
        for player, keys in wait["own"].items():
            picks = picked[player]
            low, high = limits[player]
            if picks:
                if len(picks) >= high or picks[-1] < 0:
                    continue
                start = picks[-1] + 1
            elif high <= 0:
                continue
            else:
                start = 0
            size = len(keys)
            work = g.work = g.work - size  # (`spend`, without its call)
            if work < 0:
                out_of_work()
            still = low - len(picks)
            end = size - still + 1 if still > 0 else size
            window = keys[start:end]
            if of_cards and _same_kind_twice(g, list(map(options.__getitem__, window))):
                offer, window = _one_of_each_seen(g, player, keys, options, start, end)
            else:
                offer = _PLACES[start:end] if 0 <= start <= end <= _MANY_PLACES else list(range(start, end))
            if still <= 0:  # "done" offered too (unless it is all there is)
                if not offer:
                    continue
                offer.append(-1)
                window.append(len(options))
                done = True
            elif not offer:
                continue
            offers[player] = offer
            allowed[player] = window
        if not allowed:
            return None
        return self._ask(g, c, wait, allowed, offers, done)

    def _ask(self, g, c, wait, allowed, offers, done):
        """The round's pending decision: each chooser's `allowed` options (and `offers`, their places, kept for a
        choice with `taking`; None for one without: `_first_pending`), "done" the option after the others when
        anyone may say it."""
        options = wait["options"] + [DONE] if done else list(wait["options"])
        if offers is not None:
            wait["offer"] = offers
        askers = list(allowed)
        wait["order"] = askers
        if offers is not None and "first" not in wait:
            # what each could pick at first: an imagined game forgets others' picks (imagine.py)
            # (`offers` and `allowed` name the askers in the same order: no comprehension, a frame less)
            wait["first"] = dict(
                zip(askers, map(list, zip(offers.values(), allowed.values(), strict=True)), strict=True)
            )
        plain = self.plain
        question = self.args.get("with")
        if question is None:
            asked = dict.fromkeys(askers, plain)
        elif self.same_question:
            asked = dict.fromkeys(askers, question(c) or plain)
        else:  # worded for each chooser as `me` (its values may come from what only they see)
            asked = {p: question(Ctx(g, c.env, p, c.card)) or plain for p in askers}
        most = max(wait["limits"][p][1] for p in askers) if wait["taking"] else 1
        if most > 1:
            round_of = f" ({1 + min(len(wait['picks'][p]) for p in askers)} of {most})"
            asked = {p: text + round_of for p, text in asked.items()}
            plain += round_of
        alike = len(set(asked.values())) == 1
        pending = {
            "kind": "secret",
            "by": list(askers),
            "order": list(askers),
            "answers": {},
            "prompt": next(iter(asked.values())) if alike else plain,
            "options": options,
            "allowed": allowed,
            "cards": self.of_cards,
        }
        if not alike:  # each reads their own; those waiting read the plain words
            pending["prompts"] = asked
        if self.args.get("showing") is None:
            if self.shape is None:  # nothing to label (`labelled` without its call)
                return pending
            return labelled(self, g, c, pending)
        # an option's chooser, for its `showing` label (the first of those who share it)
        owner = {key: p for p, keys in reversed(wait["own"].items()) for key in keys}
        return labelled(self, g, c, pending, owner)  # `showing` labels for each option's chooser, list options

    def resume(self, g, c, frame, answer):
        wait: dict = frame["wait"]
        if "own" not in wait:  # a save from before `taking`: one pick each, told at once
            frame["wait"] = wait = _one_round(wait)
        options = wait["options"]
        if wait["taking"]:
            own, offers, picks = wait["own"], wait["offer"], wait["picks"]
            for player, key in zip(wait["order"], answer, strict=False):
                picks[player].append(_place_answered(own[player], offers[player], key))
            pending = self._pending(g, c, frame)
            if pending is not None:
                return pending
            chosen = {}
            for p, places in picks.items():
                if places and places[-1] < 0:  # "done", their last pick: no option
                    places = places[:-1]
                chosen[p] = list(map(options.__getitem__, map(own[p].__getitem__, places)))
            self.bind(c, [chosen.get(p, []) for p in wait["players"]])
            told_of = chain.from_iterable(map(zip, map(repeat, chosen), chosen.values()))  # (chooser, option) each
        else:  # one pick each, everyone's now: an answer is its option's place in `options` (`allowed` holds those
            # places), the option at the place picked in the chooser's own: bound and told without lists of picks,
            # nor kept in the wait's (interpreter.resume_verb drops the wait as this returns: no decision sees it)
            picked: dict = {}  # (a plain loop: compiled, it costs less than `dict(zip(...))`)
            order = wait["order"]
            for i in range(min(len(order), len(answer))):
                picked[order[i]] = options[answer[i]]
            binds = self.binds
            if binds:  # (`bind` without its call; compiled, a comprehension costs less than a `map` of `picked.get`)
                c.env[binds] = [picked.get(player) for player in wait["players"]]
            told_of = picked.items()
        everyone = (1 << len(g.state["players"])) - 1  # a card chosen from a hidden place stays "a card" to
        told = []  # whoever cannot see it
        of_cards = self.of_cards
        names = g._card_names  # `card_label(card, None)`, without its call
        text_names: dict = g._text_names  # (table.text_names; a dict to Cython: `get` called in C)
        for p, v in told_of:
            if of_cards and type(v) is int:
                told.append([p, names[v], seen_by(g, v)])
            elif type(v) is str:  # a player, a word (most options but cards): `label`, without its call
                name = text_names.get(v)
                told.append([p, v if name is None else name, everyone])
            elif type(v) is list:  # named for the seats that see every card in it, "a card" to the rest
                sight = everyone
                for card in cards_in(g, v, self.shape) if self.of_cards else ():
                    sight &= seen_by(g, card)
                reader = next((q for q, bit in seat_bits(g).items() if sight & bit), None)
                told.append([p, composite_words(g, v, self.shape, reader, self.of_cards), sight or everyone])
            else:
                told.append([p, g.label(v), everyone])
        if told:
            log_together(g, told)
        return None


def _one_of_each_seen(g, player, keys: list[int], options: list, start: int, end: int) -> tuple[list[int], list[int]]:
    """The places `start` to `end` of a chooser's options (`keys`, places in `options`) offered to `player`, and
    their options: one place for identical cards they see (same card, same zone, same orientation), the first."""
    offer, window, seen = [], [], set()
    can_see, instances, loc, orient = g.can_see, g.rules.instances, g.state["loc"], g.state["orient"]
    for j in range(start, end):
        key = keys[j]
        value = options[key]
        if type(value) is int and can_see(value, player):
            same = (instances[value], loc[value], orient[value])
            if same in seen:
                continue
            seen.add(same)
        offer.append(j)
        window.append(key)
    return offer, window


def _place_answered(keys: list[int], offer: list[int], key: int) -> int:
    """The first place offered (in `offer`, places in `keys`) whose option is `key`, the answer; -1: "done". The
    answer is one of the chooser's allowed options (Game.apply checks it), so it is the first place holding it
    from the first offered: a place left out as an identical card has its option offered before it, or not at all."""
    first = offer[0]
    try:
        return keys.index(key, first) if first >= 0 else -1
    except ValueError:  # "done": the place after the options
        return -1


def _holds_card(values: list) -> bool:
    """Whether a card (a card's number) is among `values`: a card comes first, mostly, and most options of a choice of
    anything else are no cards. (Compiled, a loop costs less than `int in map(type, values)`.)"""
    for value in values:  # noqa: SIM110 -- compiled, `any` of a generator makes a closure and a generator a call
        if type(value) is int:
            return True
    return False


def _same_kind_twice(g, values: list) -> bool:
    """Whether two of `values` are cards of the same kind: only then may two options be identical cards (a
    hand of different cards is offered whole, without asking who sees which)."""
    instances = g.rules.instances
    try:  # card numbers, most often: their kinds read without a loop of Python
        kinds = list(map(instances.__getitem__, values))
    except TypeError:  # a name or a list among them
        if int not in map(type, values):  # no card at all (players, most often)
            return False
        kinds = [instances[value] for value in values if type(value) is int]
    return len(set(kinds)) < len(kinds)  # (a yes or no read as a card above: at worst a "yes" that changes nothing)


def _one_round(old: dict) -> dict:
    """The wait of a secret choice saved before `taking` (`players`, `order`, `options`: each player's answer
    a place in `options`) in today's form of one pick each, with every option offered to each player who answered."""
    every = list(range(len(old["options"])))
    return {
        "players": old["players"],
        "own": {p: every for p in old["order"]},
        "options": old["options"],
        "taking": False,
        "order": list(old["order"]),
    }


class Roll(VerbStep):
    def run(self, g, c, frame):
        dice, sides = int(self.value(c, "dice") or 0), int(self.value(c, "of", 6))
        if dice <= 0:
            self.bind(c, [])
            return None
        frame["wait"] = {"left": dice, "faces": [], "sides": sides}
        return self._pending(frame)

    @staticmethod
    def _pending(frame):
        sides = frame["wait"]["sides"]
        return {
            "kind": "roll",
            "by": ["chance"],
            "prompt": f"Roll a {sides}-sided die",
            "options": list(range(1, sides + 1)),
            "probs": [1 / sides] * sides,
            "stream": "dice",
        }

    def resume(self, g, c, frame, answer):
        wait = frame["wait"]
        wait["faces"].append(answer + 1)
        wait["left"] -= 1
        if wait["left"] > 0:
            return self._pending(frame)
        self.bind(c, wait["faces"])
        g.log(f"Dice: {', '.join(map(str, wait['faces']))}")


class Oracle(VerbStep):
    """A physical outcome the engine cannot compute: yes or no (`with` a percentage for yes), or one of
    several outcomes (`among`, `with` a weight for each). In simulations the pack's model (these numbers)
    decides from the game's own stream; at a real table a person answers (`knap play --oracle ask`)."""

    def __init__(self, name, args, raw):
        super().__init__(name, args, raw)
        self.among_of, self.among = self.argument("among")
        self.with_of, self.chances = self.argument("with")
        self.question_of, self.question = self.argument("question")

    def run(self, g, c, frame):
        f = self.among_of
        outcomes = self.among if f is None else f(c)
        f = self.with_of
        chances = self.chances if f is None else f(c)
        if outcomes is None:
            p = (
                min(100, max(0, chances if isinstance(chances, (int, float)) and not isinstance(chances, bool) else 50))
                / 100
            )
            options, probs = [True, False], [p, 1 - p]
        else:
            options = g.items_of(outcomes)  # (a new list)
            weights = list(chances) if isinstance(chances, list) else [1] * len(options)
            plain = True  # every weight a plain number (an `int` or a `float`: a yes or no is none), none below 0
            for weight in weights:  # (compiled, a loop costs less than a set of a `map` of types and a keyword `min`)
                kind = type(weight)
                if kind is not int and kind is not float or weight < 0:
                    plain = False
                    break
            if plain:
                wrong, total = False, sum(weights)
            else:  # a weight that is no number, a yes or no, below 0 (or a number of a type of its own)
                wrong = any(not isinstance(w, (int, float)) or isinstance(w, bool) or w < 0 for w in weights)
                total = 0 if wrong else sum(weights)
            if not options or len(weights) != len(options) or wrong or not total:
                raise ContentError(
                    f"`oracle` needs one weight (a number, 0 or more, not all 0) per outcome; got "
                    f"{len(weights)} for {len(options)} outcomes",
                    code="X116",
                )
            probs = [w / total for w in weights]
        f = self.question_of
        return {
            "kind": "oracle",
            "by": ["chance"],
            "prompt": self.question if f is None else f(c),
            "options": options,
            "probs": probs,
            "stream": "oracle",
        }

    def resume(self, g, c, frame, answer):
        outcomes = self.value(c, "among")
        value = answer == 0 if outcomes is None else g.items_of(outcomes)[answer]
        self.bind(c, value)
        g.log(f"{self.value(c, 'question')} {g.label(value)}")


class Require(VerbStep):
    def __init__(self, name, args, raw):
        super().__init__(name, args, raw)
        self.condition, self.unless = args.get("condition"), args.get("unless")

    def run(self, g, c, frame):
        f = self.condition
        if not (f is not None and f(c)) and not (self.unless is not None and self.unless(c)):
            return "fail"


def _inherited(verb, c):
    """The locals an effect performed from another starts with: nobody's act stays nobody's unless it is done
    `for` a player."""
    return {NOBODY: True} if c.env.get(NOBODY) and verb.for_player is None else None


class Perform(VerbStep):
    """Start another action's effect; the values given in parentheses start as its locals, by the names of its
    `params` (plain data in the frame, as every local: a save between two of its decisions keeps them)."""

    def __init__(self, name, args, raw):
        super().__init__(name, args, raw)
        self.action_of, self.action = self.argument("action")
        self.with_of, self.card = self.argument("with")
        self.effect_key = None if self.action_of is not None else f"action/{self.action}/effect"  # named as written

    def run(self, g, c, frame):
        f = self.action_of
        action = self.action if f is None else f(c)
        rules = g.rules
        actions = rules.actions
        if action not in actions:
            raise ContentError(f"`{action}` is not an action", code="X107")
        key = self.effect_key or f"action/{action}/effect"
        if key in rules.code:
            inherited: dict = c.env
            env = {NOBODY: True} if inherited.get(NOBODY) and self.for_player is None else None  # (`_inherited`)
            names = actions[action].get("params") or ()
            if names:
                given = [value(c) for value in self.args.get("values") or ()]
                if len(given) != len(names):
                    raise ContentError(
                        f"`{action}` takes {len(names)} values (its `params`), got {len(given)}", code="X107"
                    )
                env = {**(env or {}), **dict(zip(names, given, strict=True))}
            f = self.for_player
            player = c.me if f is None else f(c) or c.me
            f = self.with_of
            g.push(key, player, self.card if f is None else f(c), env)
            return "yield"


class Resolve(VerbStep):
    """Carry out the effects written on cards, one card after another, each with `card` bound to it."""

    def run(self, g, c, frame):
        keys = []
        for card in self.cards(c, self.value(c, "cards")):
            key = f"card/{g.rules.instances[card]}/effect"
            if key in g.rules.code:
                keys.append((key, card))
        for key, card in reversed(keys):
            g.push(key, self.player(c), card, _inherited(self, c))
        return "yield" if keys else None


class PayCost(VerbStep):
    """Pay an ordered cost item by item; a joker set may stand for one item. Which copy of an identical
    card pays does not matter, so the only question asked is "the card itself, or the jokers?"."""

    def run(self, g, c, frame):
        cost = list(self.value(c, "cost") or [])
        source = g.zone_key(self.value(c, "from"), c.me)
        joker_id, joker_n = joker_of(self.value(c, "with"))
        frame["wait"] = {"cost": cost, "i": 0, "paid": [], "source": source, "joker": joker_id, "n": joker_n}
        return self._next(g, c, frame)

    def _available(self, g, wait):
        used = set(wait["paid"])
        have: dict[str, list[int]] = {}
        for card in g.state["zones"][wait["source"]]:
            if card is not None and card not in used:
                have.setdefault(g.rules.instances[card], []).append(card)
        return have

    def _choices(self, g, wait):
        have = self._available(g, wait)
        counts = {d: len(v) for d, v in have.items()}
        item, rest = wait["cost"][wait["i"]], wait["cost"][wait["i"] + 1 :]
        choices = []
        if counts.get(item):
            after = dict(counts)
            after[item] -= 1
            if cost_payable(rest, after, wait["joker"], wait["n"]):
                choices.append("card")
        if wait["joker"] and wait["n"] and item != wait["joker"] and counts.get(wait["joker"], 0) >= wait["n"]:
            after = dict(counts)
            after[wait["joker"]] -= wait["n"]
            if cost_payable(rest, after, wait["joker"], wait["n"]):
                choices.append("joker")
        return choices, have

    def _next(self, g, c, frame):
        wait = frame["wait"]
        while wait["i"] < len(wait["cost"]):
            choices, have = self._choices(g, wait)
            if not choices:
                return "fail"
            if len(choices) > 1:
                item = wait["cost"][wait["i"]]
                wait["choices"] = choices
                return {
                    "kind": "pay",
                    "by": [c.me],
                    "prompt": f"Pay {g.label(item)} with",
                    "options": [item, [wait["joker"]] * wait["n"]],
                }
            self._pay(g, wait, choices[0], have)
        self.bind(c, list(wait["paid"]))
        return None

    @staticmethod
    def _pay(g, wait, how, have):
        item = wait["cost"][wait["i"]]
        if how == "card":
            wait["paid"].append(have[item][0])
        else:
            wait["paid"].extend(have[wait["joker"]][: wait["n"]])
        wait["i"] += 1

    def resume(self, g, c, frame, answer):
        wait = frame["wait"]
        self._pay(g, wait, wait["choices"][answer], self._available(g, wait))
        outcome = self._next(g, c, frame)
        if outcome == "fail":  # cannot happen: every offered choice keeps the rest payable
            raise ContentError("the cost can no longer be paid", code="X117")
        return outcome


class EndTurn(VerbStep):
    def run(self, g, c, frame):
        g.state["turn"]["closing"] = True
        g.state["stack"].clear()  # nothing more of the effect happens: the turn is over now
        return "yield"


class EndGame(VerbStep):
    """End the game at once: the rest of the stack is dropped and the end of the game (its `game_end` phases
    and scorings) follows. Inside that end itself (stage "result": those phases and scorings are running)
    there is nothing left to end: they go on, each run exactly once, and then the winners are decided."""

    def run(self, g, c, frame):
        if g.state["stage"] in ("result", "over"):
            return None
        if g.state["ending"] is None:
            by = self.value(c, "by") or c.me
            g.state["ending"] = {"rule": _rule_that_holds(g, by), "by": by, "queue": []}
        g.state["stack"][:] = [frame]
        g.state["stage"] = "game_end"
        g.state["attempt"] = None
        return "yield"


def _rule_that_holds(g, player) -> str:
    """The end rule whose trigger holds for `player` now (its result decides the winners), else "declared"."""
    return next((rule["id"] for rule in g.rules.ends if triggered(g, rule, player)), "declared")


class Win(VerbStep):
    """Declare the winners (they override the end rule's result) and end the game, unless it is already
    ending: then the end's phases and scorings simply go on (EndGame)."""

    def run(self, g, c, frame):
        g.state["declared"] = g.items_of(self.value(c, "players"))
        return EndGame.run(self, g, c, frame)


class Eliminate(VerbStep):
    """`eliminate PLAYERS [until round_end]`: out of the game, or of the round (back when it ends: driver.py).
    Their turns are skipped and `players`/`opponents` leave them out; a player out of the game stays out."""

    def run(self, g, c, frame):
        why = "round" if self.value(c, "until") == "round_end" else "game"
        out = g.state.setdefault("out", {})
        for player in g.items_of(self.value(c, "players")):
            if player not in g.state["players"]:
                raise ContentError(f"`eliminate` needs players, got {player!r}", code="X107")
            if out.get(player) == "game" or out.get(player) == why:
                continue
            out[player] = why
            g.log(f"{player} is out of the {why}")


class NextTurn(VerbStep):
    """`next_turn PLAYER`: the next turn is PLAYER's, and seat order goes on from there (driver._next_turn);
    in a `turns: rounds` pack PLAYER is the first player of the next rounds."""

    def run(self, g, c, frame):
        player = self.value(c, "player")
        if player not in g.state["players"]:
            raise ContentError(f"`next_turn` needs a player, got {player!r}", code="X107")
        g.state["turn"]["next"] = player


class Flag(VerbStep):
    on = True

    def __init__(self, name, args, raw):
        super().__init__(name, args, raw)
        self.flag_of, self.flag = self.argument("flag")

    def run(self, g, c, frame):
        f = self.flag_of
        flag = self.flag if f is None else f(c)
        f = self.for_player
        player = c.me if f is None else f(c) or c.me
        # whose flag it is (Ruleset.flag_holder, without its call: a verb most turns run)
        holder = "table" if type(flag) is str and flag in g.rules.table_flags else player
        flags = g.state["flags"][holder]  # every player's and the table's are there: anything else is no one's
        if self.on:
            flags[flag] = True
        else:
            flags.pop(flag, None)


class Unflag(Flag):
    on = False


class Log(VerbStep):
    def __init__(self, name, args, raw):
        super().__init__(name, args, raw)
        self.message_of, self.message = self.argument("message")

    def run(self, g, c, frame):
        f = self.message_of
        text = str(self.message if f is None else f(c))
        spend(g, len(text))
        g.log(text)


class Slide(VerbStep):
    """`slide ROW [from ZONE]`: the row's cards close up towards slot 1; empty slots are refilled (places.py)."""

    def run(self, g, c, frame):
        row = g.zone_key(self.value(c, "row"), c.me)
        source_value = self.value(c, "from")
        source = g.zone_key(source_value, c.me) if source_value is not None else None
        came = slide(g, row, source)
        g.log(f"{g.zone_name(row)} slides together" + (f"; new: {g.public_label(came, True)}" if came else ""))


IMPLEMENTATIONS = implemented(
    "verbs",
    VERBS,
    {
        "gain": Gain,
        "lose": Lose,
        "pay": Pay,
        "set": Set,
        "draw": Draw,
        "take": Take,
        "move": Move,
        "discard": Discard,
        "remove": Remove,
        "give": Give,
        "reveal": Reveal,
        "shuffle": Shuffle,
        "turn": Turn,
        "choose": Choose,
        "ask": Ask,
        "invite": Invite,
        "bid": Bid,
        "roll": Roll,
        "oracle": Oracle,
        "choose_secretly": ChooseSecretly,
        "require": Require,
        "perform": Perform,
        "resolve": Resolve,
        "pay_cost": PayCost,
        "end_turn": EndTurn,
        "end_game": EndGame,
        "win": Win,
        "eliminate": Eliminate,
        "next_turn": NextTurn,
        "flag": Flag,
        "unflag": Unflag,
        "log": Log,
        "slide": Slide,
    },
)
