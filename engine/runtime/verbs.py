"""What each DSL verb does at run time, one class per verb of `engine/dsl/builtins.py`.

A verb's `run` returns None when done, "fail" when the action cannot go on this way, "yield" when
it changed the stack, or a pending decision (plain data). Decision verbs keep their progress in
the frame (`frame["wait"]`) and continue in `resume` with each answer, one small pick at a time.
"""

from __future__ import annotations

from engine.dsl.builtins import ORIENTATIONS, VERBS, implemented

from .budget import bounded, bounded_int, spend
from .context import Ctx
from .costs import cost_payable, joker_of
from .counter_visibility import read_by_all
from .driver import triggered
from .errors import ContentError
from .log_words import MOVE, log_counted, log_together, log_unchanged, seen_by
from .places import slide
from .protocol import DONE


def _constant(word):
    """An argument that is a plain name: always that word."""
    return lambda c: word


def compile_verb(compiler, node):
    _, at, name, args, clauses = node
    spec = VERBS.get(name)
    if spec is None or name not in IMPLEMENTATIONS:
        raise ContentError(f"the verb `{name}` has no implementation", compiler.key, at, code="X502")
    compiled, raw, binds = {}, {}, []
    for param, arg in zip(spec.params_for(len(args)), args, strict=False):
        raw[param.name] = arg
        if param.type == "name":
            compiled[param.name] = _constant(arg[2])
        else:
            compiled[param.name] = compiler.expr(arg)
    for prep, _offset, value in clauses:
        raw[prep] = value
        if prep == "as":
            compiled["as"] = value[2]
            binds.append(value[2])
        else:
            compiled[prep] = compiler.expr(value)
    if name in ("choose", "choose_secretly"):
        impl = IMPLEMENTATIONS[name](name, compiled, raw, frozenset(compiler.numeric))
    else:
        impl = IMPLEMENTATIONS[name](name, compiled, raw)
    return ("verb", impl), binds


def holds_numbers(node, numeric) -> bool:
    """Whether an expression makes a list of plain numbers: `numbers(...)`, `[1, 2]`, a name bound to one
    by `let`, or a sum of such. (Card numbers are whole numbers too; this tells them apart.)"""
    if node[0] == "call":
        if node[2] == "without" and node[3]:  # a list of numbers less one is still numbers
            return holds_numbers(node[3][0], numeric)
        return node[2] in ("numbers", "between")
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


class VerbStep:
    def __init__(self, name, args, raw):
        self.name = name
        self.args = args
        self.raw = raw

    def value(self, c, key, default=None):
        f = self.args.get(key)
        return f(c) if f is not None else default

    def player(self, c):
        return self.value(c, "for") or c.me

    def single(self) -> bool:
        """`draw 1 ...`/`choose 1 ...` (or no amount) bind one item; any other amount binds a list."""
        node = self.raw.get("amount")
        return node is None or (node[0] == "num" and node[2] == 1)

    def bind(self, c, value):
        name = self.args.get("as")
        if name:
            c.env[name] = value

    def cards(self, c, value):
        return [x for x in c.g.items_of(value) if isinstance(x, int)]

    def resume(self, g, c, frame, answer):  # pragma: no cover -- only decision verbs are resumed
        raise ContentError(f"`{self.name}` asks nothing", code="X115")


class Gain(VerbStep):
    sign = 1

    def run(self, g, c, frame):
        amount = int(self.value(c, "amount") or 0) * self.sign
        counter, player = self.value(c, "counter"), self.player(c)
        changed = g.set_counter(player, counter, bounded_int(g.counter(player, counter) + amount))
        if changed:  # worded for who may read the counter, when read (log_words.py)
            owner = player if g.rules.counters[counter].get("owner") == "player" else "table"
            log_counted(g, owner, counter, changed)
        elif not read_by_all(g.rules, counter):  # no line for nothing would tell the others it was 0
            owner = player if g.rules.counters[counter].get("owner") == "player" else "table"
            log_unchanged(g, owner, counter, self.sign)


class Lose(Gain):
    sign = -1


class Pay(VerbStep):
    def run(self, g, c, frame):
        amount = int(self.value(c, "amount") or 0)
        counter, player = self.value(c, "counter"), self.player(c)
        if g.counter(player, counter) < amount:
            return "fail"
        g.set_counter(player, counter, g.counter(player, counter) - amount)


class Set(VerbStep):
    def run(self, g, c, frame):
        counter, player = self.value(c, "counter"), self.player(c)
        value = self.value(c, "to")
        if counter in g.rules.counters:
            g.set_counter(player, counter, bounded_int(int(value or 0)))
        else:
            g.state["flags"].setdefault(player, {})[counter] = bounded(value)


def _move_logged(g, cards, target, actor, verb, slot=None):
    """Move cards and log it, with the seats that could see each card before or after it moved (the
    log is worded when read, names only for those who saw them: log_words.py)."""
    if not cards:
        return
    before = [seen_by(g, x) for x in cards]
    source = g.state["loc"][cards[0]]
    piled = slot is not None and not g.slotted(target)
    for n, x in enumerate(cards):
        g.move(x, target, slot + n if piled else slot)  # into a pile, the cards keep their order
    setup = 0
    if g.in_setup():  # 2: nobody's act ("Setup: 3 cards moved from ... to ...")
        setup = 2 if actor not in (source.rsplit(":", 1)[-1], target.rsplit(":", 1)[-1]) else 1
    g.state["log"].append(
        [
            MOVE,
            setup,
            actor,
            verb,
            source,
            target,
            list(cards),
            [sight | seen_by(g, x) for sight, x in zip(before, cards, strict=True)],
        ]
    )


class Draw(VerbStep):
    def run(self, g, c, frame):
        player = self.player(c)
        amount = int(self.value(c, "amount") or 0)
        source = g.zone_key(self.value(c, "from"), player)
        target_value = self.value(c, "to")
        target = g.zone_key(target_value, player) if target_value is not None else f"_drawn:{player}"
        slot = self.value(c, "at")
        drawn = []
        zones = g.state["zones"]
        for _ in range(amount):
            card = next((x for x in reversed(zones[source]) if x is not None), None)
            if card is None:
                if not g.refill(source):
                    break
                card = next(x for x in reversed(zones[source]) if x is not None)
            drawn.append(card)
            _move_logged(g, [card], target, player, "draws", slot)
        self.bind(c, (drawn[0] if drawn else None) if self.single() else drawn)


class Move(VerbStep):
    """`move CARDS to ZONE [at SLOT]`; `take` is the same with `to` defaulting to the player's hand."""

    word = "moves"

    def run(self, g, c, frame):
        player = self.player(c)
        target_value = self.value(c, "to")
        if target_value is None:
            target_value = next((z for z, d in g.rules.zones.items() if d.get("type") == "hand"), None)
            if target_value is None:
                raise ContentError(f"`{self.name}` needs `to`: the pack has no hand zone", code="X115")
        target = g.zone_key(target_value, player)
        _move_logged(g, self.cards(c, self.value(c, "cards")), target, player, self.word, self.value(c, "at"))


class Take(Move):
    word = "takes"


class Discard(VerbStep):
    """The log names whose card it is: a card leaving a player's zone is that player's discard ("P2 discards
    Arrow from P2's hand"), whoever's effect asked for it; a card of a shared zone is the actor's."""

    def run(self, g, c, frame):
        target_value = self.value(c, "to")
        for card in self.cards(c, self.value(c, "cards")):
            target = g.zone_key(target_value, c.me) if target_value is not None else g.discard_pile(card)
            _move_logged(g, [card], target, g.owner_of(card) or c.me, "discards")


class Remove(VerbStep):
    def run(self, g, c, frame):
        _move_logged(g, self.cards(c, self.value(c, "cards")), "_removed", c.me, "removes")


class Give(VerbStep):
    def run(self, g, c, frame):
        receiver = self.value(c, "to")
        for card in self.cards(c, self.value(c, "cards")):
            zone = g.state["loc"][card].split(":")[0]
            if g.rules.zones.get(zone, {}).get("owner") != "player":
                raise ContentError(
                    "`give` moves cards between players' zones; this card is in a shared zone", code="X115"
                )
            _move_logged(g, [card], f"{zone}:{receiver}", c.me, f"gives {receiver}")


class Reveal(VerbStep):
    def run(self, g, c, frame):
        to = self.value(c, "to")
        for card in self.cards(c, self.value(c, "cards")):
            if to is None:
                g.state["shown"][str(card)] = "all"
            else:
                seen = g.state["shown"].get(str(card))
                if seen != "all":
                    g.state["shown"][str(card)] = sorted(set(seen or []) | set(g.items_of(to)))
            g.log(f"{c.me} reveals {g.card_label(card, None)}")


class Shuffle(VerbStep):
    def run(self, g, c, frame):
        zone = g.zone_key(self.value(c, "zone"), c.me)
        into = self.value(c, "into")
        if into is not None:
            target = g.zone_key(into, c.me)
            for card in [x for x in g.state["zones"][zone] if x is not None]:
                g.move(card, target)
            zone = target
        g.rng.shuffle(f"shuffle:{zone}", g.state["zones"][zone])
        g.log(f"{g.zone_name(zone)} is shuffled")


class Turn(VerbStep):
    def run(self, g, c, frame):
        orientation = self.value(c, "to")
        for card in self.cards(c, self.value(c, "card")):
            g.state["orient"][card] = int(orientation)
            g.log(f"{c.me} turns {g.card_label(card, None)} ({ORIENTATIONS[int(orientation)]})")


# ---------------------------------------------------------------- decisions
class Choose(VerbStep):
    def __init__(self, name, args, raw, numeric=frozenset()):
        super().__init__(name, args, raw)
        self.of_cards = options_are_cards(raw, numeric)

    def run(self, g, c, frame):
        if self.value(c, "unless"):
            self.bind(c, None if self.single() else [])
            return None
        amount = self.value(c, "amount", 1)
        candidates = g.items_of(self.value(c, "from"))
        spend(g, len(candidates))
        if amount == "all":
            low = high = len(candidates)
        elif isinstance(amount, dict):
            low, high = amount["between"]
        else:
            low = high = int(amount or 0)
        high = min(high, len(candidates))
        if high <= 0 and low <= 0:
            self.bind(c, None if self.single() else [])
            return None
        if len(candidates) < low:
            if g.attempt is not None:
                return "fail"
            low = high = len(candidates)
        by = self.value(c, "by") or c.me
        prompt = self.value(c, "with")
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
        wait = frame["wait"]
        cands, picked, low, by = wait["cands"], wait["picked"], wait["low"], wait["by"]
        start = picked[-1] + 1 if picked else 0
        still = max(0, low - len(picked))
        offer, seen, blind = [], set(), False
        of_cards, instances, loc, orient = wait["cards"], g.rules.instances, g.state["loc"], g.state["orient"]
        for j in range(start, len(cands) - still + 1 if still else len(cands)):
            value = cands[j]
            if of_cards and type(value) is int:
                if g.can_see(value, by):  # identical cards a player can see are one option
                    key = (instances[value], loc[value], orient[value])
                    if key in seen:
                        continue
                    seen.add(key)
                else:
                    blind = True
            offer.append(j)
        if len(picked) >= low:
            offer.append(-1)
        wait["offer"] = offer
        question = wait.get("prompt") or f"Choose {(self.args.get('as') or '').replace('_', ' ')}"
        options = [cands[j] if j >= 0 else DONE for j in offer]
        progress = f" ({len(picked) + 1} of {wait['high']})" if wait["high"] > 1 else ""
        return {
            "kind": "choose",
            "by": [by],
            "prompt": f"{question}{progress}",
            "options": options,
            "blind": blind,
            "cards": wait["cards"],
        }

    def resume(self, g, c, frame, answer):
        wait = frame["wait"]
        j = wait["offer"][answer]
        if j >= 0:
            wait["picked"].append(j)
        if j < 0 or len(wait["picked"]) >= wait["high"] or wait["picked"][-1] >= len(wait["cands"]) - 1:
            chosen = [wait["cands"][i] for i in wait["picked"]]
            self.bind(c, (chosen[0] if chosen else None) if self.single() else chosen)
            if chosen and len(wait["offer"]) > 1:  # a forced choice is no news
                g.log(
                    _answered(
                        wait["by"], wait.get("prompt"), self.args.get("as"), g.public_label(chosen, wait["cards"])
                    )
                )
            return None
        return self._pending(g, c, frame)


def _answered(player, prompt, name, answer) -> str:
    """The log line of a choice, with the question it answered: the pack's own wording when it gave one
    (`with "..."`), else the name the answer is kept under (`as victim`)."""
    if prompt:
        return f'{player}, asked "{prompt}", chooses {answer}'
    if name:
        return f"{player} chooses {str(name).replace('_', ' ')}: {answer}"
    return f"{player} chooses {answer}"


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
    chooser as `me`; a player without options picks nothing (`none`)."""

    def __init__(self, name, args, raw, numeric=frozenset()):
        super().__init__(name, args, raw)
        self.of_cards = options_are_cards(raw, numeric)

    def run(self, g, c, frame):
        players = g.items_of(self.value(c, "players"))
        options: list = []
        allowed: dict[str, list[int]] = {}
        positions: dict = {}  # where each (hashable) option is in `options`
        for player in players:
            own = g.items_of(self.value(Ctx(g, c.env, player, c.card), "from"))
            spend(g, len(own) * (1 + len(options)))  # each option is looked for among those so far
            keys = []
            for item in own:
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
                allowed[player] = keys
        askers = [p for p in players if p in allowed]
        frame["wait"] = {"players": players, "order": askers, "options": options}
        if not askers:
            self.bind(c, [None] * len(players))
            return None
        prompt = self.value(c, "with") or f"Choose {self.args.get('as', '')} (in secret)".replace("  ", " ")
        return {
            "kind": "secret",
            "by": list(askers),
            "order": list(askers),
            "answers": {},
            "prompt": prompt,
            "options": options,
            "allowed": allowed,
            "cards": self.of_cards,
        }

    def resume(self, g, c, frame, answer):
        wait = frame["wait"]
        picked = dict(zip(wait["order"], (wait["options"][a] for a in answer), strict=False))
        self.bind(c, [picked.get(p) for p in wait["players"]])

        everyone = (1 << len(g.players)) - 1  # a card chosen from a hidden place stays "a card"
        log_together(
            g,
            [
                [p, g.card_label(v, None), seen_by(g, v)]
                if self.of_cards and type(v) is int  # to
                else [p, g.label(v), everyone]
                for p, v in picked.items()
            ],
        )  # whoever cannot see it


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

    def run(self, g, c, frame):
        outcomes = self.value(c, "among")
        chances = self.value(c, "with")
        if outcomes is None:
            p = (
                min(100, max(0, chances if isinstance(chances, (int, float)) and not isinstance(chances, bool) else 50))
                / 100
            )
            options, probs = [True, False], [p, 1 - p]
        else:
            options = list(g.items_of(outcomes))
            weights = list(chances) if isinstance(chances, list) else [1] * len(options)
            if (
                not options
                or len(weights) != len(options)
                or any(not isinstance(w, (int, float)) or isinstance(w, bool) or w < 0 for w in weights)
                or not sum(weights)
            ):
                raise ContentError(
                    f"`oracle` needs one weight (a number, 0 or more, not all 0) per outcome; got "
                    f"{len(weights)} for {len(options)} outcomes",
                    code="X116",
                )
            probs = [w / sum(weights) for w in weights]
        return {
            "kind": "oracle",
            "by": ["chance"],
            "prompt": self.value(c, "question"),
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
    def run(self, g, c, frame):
        if not self.value(c, "condition") and not self.value(c, "unless"):
            return "fail"


class Perform(VerbStep):
    def run(self, g, c, frame):
        action = self.value(c, "action")
        if action not in g.rules.actions:
            raise ContentError(f"`{action}` is not an action", code="X107")
        key = f"action/{action}/effect"
        if key in g.rules.code:
            g.push(key, self.player(c), self.value(c, "with"))
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
            g.push(key, self.player(c), card)
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
    def run(self, g, c, frame):
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
    def run(self, g, c, frame):
        g.state["declared"] = g.items_of(self.value(c, "players"))
        return EndGame.run(self, g, c, frame)


class Flag(VerbStep):
    on = True

    def run(self, g, c, frame):
        flags = g.state["flags"].setdefault(self.player(c), {})
        if self.on:
            flags[self.value(c, "flag")] = True
        else:
            flags.pop(self.value(c, "flag"), None)


class Unflag(Flag):
    on = False


class Log(VerbStep):
    def run(self, g, c, frame):
        text = str(self.value(c, "message"))
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
        "flag": Flag,
        "unflag": Unflag,
        "log": Log,
        "slide": Slide,
    },
)
