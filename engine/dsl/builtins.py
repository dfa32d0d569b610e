"""Every verb, function and built-in name of the effect DSL, declared once.

The compiler's arity and type checks, its "did you mean" suggestions and docs/dsl.md all read these
tables, so a verb is added by adding one entry here (and its behaviour to the runtime). The words
are those of board games in general; nothing here belongs to one game.

Types: number, bool, text, player, players, card, cards, zone, counter, orientation, name (a new
name the statement binds), range (a number or `between(a, b)`), moment (a plain word naming a moment of
the game: `round_end`), any.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    required: bool = True
    doc: str = ""


@dataclass(frozen=True)
class Verb:
    name: str
    summary: str
    args: tuple[Param, ...] = ()
    clauses: dict[str, Param] = field(default_factory=dict)
    example: str = ""
    decision: bool = False  # the runtime must ask someone (a player, chance or an oracle)
    binds: str = "any"  # the type of the name it binds with `as`

    def params_for(self, given: int) -> tuple[Param, ...]:
        """The parameters `given` arguments fill: with an optional first argument left out, they fill the
        parameters from the end (`draw 2` is `draw [player] n` without the player)."""
        if given < len(self.args) and self.args and not self.args[0].required:
            return self.args[len(self.args) - given :]
        return self.args


@dataclass(frozen=True)
class Function:
    name: str
    summary: str
    params: tuple[Param, ...]
    returns: str
    example: str = ""
    variadic: bool = False  # the last parameter may repeat
    per_item: tuple[int, ...] = ()  # arguments worked out once per item of the first, `item` bound (as in `where`)


@dataclass(frozen=True)
class Constant:
    name: str
    type: str
    summary: str


def _p(name, type_, required=True, doc=""):
    return Param(name, type_, required, doc)


# A card's orientations, in the order the state numbers them (0, 1, 2): the constants below, the log and the views
# all name them by these words.
ORIENTATIONS = ("upright", "turned", "reversed")
MOMENTS = ("round_end",)  # the words a `moment` argument may be: `eliminate P until round_end`

_FOR = _p("player", "player", False, "whose counter or zone; the acting player when left out")
_AT_KEY = _p("key", "any", False, "which key of a counter with `keys` (a name or a number)")
_ON_CARD = _p("card", "card", False, "the card whose own number changes, for a counter with `owner: card`")
_LABEL = _p(
    "label",
    "text",
    False,
    'how each option reads, worked out per option with `item` the option: `showing "{item.name} for {item.cost}"`',
)

VERBS: dict[str, Verb] = {
    v.name: v
    for v in [
        Verb(
            "gain",
            "Add an amount to a counter (of a counter with `keys`, to the number of one key: `at KEY`; of a "
            "counter with `owner: card`, to one card's number: `on CARD`).",
            (_p("amount", "number"), _p("counter", "counter")),
            {"for": _FOR, "at": _AT_KEY, "on": _ON_CARD},
            "gain card.vp vp",
        ),
        Verb(
            "lose",
            "Take an amount from a counter, stopping at its minimum (of a counter with `keys`: `at KEY`; "
            "of a counter with `owner: card`: `on CARD`).",
            (_p("amount", "number"), _p("counter", "counter")),
            {"for": _FOR, "at": _AT_KEY, "on": _ON_CARD},
            "lose 1 ap",
        ),
        Verb(
            "pay",
            "Spend an amount of a counter; the action is not allowed when it cannot be paid.",
            (_p("amount", "number"), _p("counter", "counter")),
            {"for": _FOR},
            "pay 2 ap",
        ),
        Verb(
            "set",
            "Set a counter or flag to a value (a counter with `keys`: the number of one key with `at KEY`, "
            "else of every key; a counter with `owner: card`: one card's number with `on CARD`).",
            (_p("counter", "counter"),),
            {"to": _p("value", "any"), "for": _FOR, "at": _AT_KEY, "on": _ON_CARD},
            "set ap to 2",
        ),
        Verb(
            "draw",
            "Take cards from the top of a zone (a deck is refilled from its discard pile when empty).",
            (_p("amount", "number"),),
            {
                "from": _p("source", "zone"),
                "to": _p("target", "zone", False),
                "at": _p("slot", "number", False),
                "for": _FOR,
                "as": _p("binding", "name", False),
            },
            "draw 1 from forest to hand as found",
            binds="cards",
        ),
        Verb(
            "take",
            "Take chosen cards into a zone.",
            (_p("cards", "cards"),),
            {"to": _p("target", "zone", False), "for": _FOR},
            "take picked to hand",
        ),
        Verb(
            "move",
            "Move cards to a zone, optionally into a slot of a row or a place in a pile (`at 1`: the bottom).",
            (_p("cards", "cards"),),
            {"to": _p("target", "zone"), "at": _p("slot", "number", False), "for": _FOR},
            "move card to tableau",
        ),
        Verb(
            "discard",
            "Put cards on the discard pile of the zone they came from (or a given zone).",
            (_p("cards", "cards"),),
            {"to": _p("target", "zone", False)},
            "discard payment",
        ),
        Verb("remove", "Take cards out of the game.", (_p("cards", "cards"),), {}, "remove card"),
        Verb(
            "give",
            "Give cards to another player.",
            (_p("cards", "cards"),),
            {"to": _p("player", "player")},
            "give loot to helper",
        ),
        Verb(
            "reveal",
            "Show cards to players (everyone when left out).",
            (_p("cards", "cards"),),
            {"to": _p("players", "players", False)},
            "reveal found",
        ),
        Verb(
            "shuffle",
            "Shuffle a zone, or shuffle one zone into another.",
            (_p("zone", "zone"),),
            {"into": _p("target", "zone", False)},
            "shuffle forest_discard into forest",
        ),
        Verb(
            "turn",
            "Turn a card to an orientation: upright, turned (until reset) or reversed (for good).",
            (_p("card", "card"),),
            {"to": _p("orientation", "orientation")},
            "turn used to reversed",
        ),
        Verb(
            "choose",
            "Ask a player to choose among options; binds the choice to a name.",
            (_p("amount", "range", False, "how many to choose; one when left out"),),
            {
                "from": _p("options", "any"),
                "as": _p("binding", "name"),
                "by": _p("player", "player", False),
                "unless": _p("skip", "bool", False),
                "with": _p("prompt", "text", False, 'the question players read (default: "Choose" and the name)'),
                "showing": _LABEL,
            },
            'choose 1 from [forest, river] as terrain with "Which terrain do you explore?"',
            decision=True,
        ),
        Verb(
            "ask",
            "Ask a player a yes/no question; binds the answer.",
            (_p("player", "player"), _p("question", "text")),
            {"as": _p("binding", "name")},
            'ask me "Hunt it?" as hunting',
            decision=True,
            binds="bool",
        ),
        Verb(
            "invite",
            "Invite players to join; each accepts or refuses; binds those who accepted.",
            (_p("players", "players"),),
            {"with": _p("offer", "any", False), "as": _p("binding", "name")},
            'invite opponents with "share the loot" as helpers',
            decision=True,
            binds="players",
        ),
        Verb(
            "bid",
            "Every player of a group secretly chooses an amount at once; binds the bids, in the players' "
            "order (`bids[1]` is the first player's).",
            (_p("players", "players"),),
            {"from": _p("counter", "counter"), "as": _p("binding", "name")},
            "bid players from meals as bids",
            decision=True,
        ),
        Verb(
            "choose_secretly",
            "Every player of a group chooses one of their own options at the same time, unseen "
            "by the others; the choices are revealed together. The options are worked out for each chooser as `me`. "
            "Binds the choices in the players' order (`picks[1]` is the first player's; `none` for a player "
            "without options). Identical cards a chooser can see are one option. With `taking N` each chooser "
            "picks N of their options (asked as N small picks, still secret) and each player's picks are a "
            "list (`[]` for a player without options).",
            (_p("players", "players"),),
            {
                "from": _p("options", "any"),
                "as": _p("binding", "name"),
                "with": _p("prompt", "text", False, "the question players read"),
                "showing": _LABEL,
                "taking": _p(
                    "amount",
                    "range",
                    False,
                    "how many each chooser picks (a number or `between(a, b)`); one when left out",
                ),
            },
            'choose_secretly players from hand(me) as played with "Which card do you play?"',
            decision=True,
        ),
        Verb(
            "roll",
            "Roll dice; binds the list of faces.",
            (_p("dice", "number"),),
            {"of": _p("sides", "number", False), "as": _p("binding", "name")},
            "roll 2 of 6 as faces",
            decision=True,
        ),
        Verb(
            "oracle",
            "Ask for a physical outcome the engine cannot compute: in simulations the pack's model (the "
            "chances given with `with`) decides, at a real table a person answers (`knap play --oracle ask`). "
            "Binds yes/no, or with `among` the outcome.",
            (_p("question", "text"),),
            {
                "among": _p("outcomes", "any", False, "the possible outcomes (texts); yes or no when left out"),
                "with": _p("chances", "any", False, "a percentage for yes, or with `among` one weight per outcome"),
                "as": _p("binding", "name"),
            },
            'oracle "How did the tower land?" among ["stands", "falls"] with [80, 20] as landing',
            decision=True,
        ),
        Verb(
            "require",
            "Stop the action as not allowed unless a condition holds.",
            (_p("condition", "bool"),),
            {
                "unless": _p("exception", "bool", False),
                "with": _p(
                    "reason",
                    "text",
                    False,
                    "why, in the players' words, when it does not hold (default: the condition itself)",
                ),
            },
            'require weapons(me) >= card.strength with "Your weapons are too weak"',
        ),
        Verb(
            "perform",
            "Carry out another action by its id; `with` gives it the card it resolves (`card`). An action with "
            "`params` is given their values in parentheses: `perform suffer(2) for p` runs `suffer` with its first "
            "name bound to 2.",
            (_p("action", "any"),),
            {"with": _p("card", "card", False), "for": _FOR},
            "perform encounter with found",
        ),
        Verb(
            "resolve",
            "Carry out the effect written on each card (its `effect`), one card after another, with "
            "`card` standing for the card being resolved.",
            (_p("cards", "cards"),),
            {"for": _FOR},
            "resolve found",
        ),
        Verb(
            "pay_cost",
            "Pay an ordered cost with cards of a zone, item by item; `with [joker, n]` lets n joker "
            "cards stand for any one item. Binds the cards paid, in cost order, the cards covering the last item "
            "last.",
            (_p("cost", "any"),),
            {"from": _p("source", "zone"), "with": _p("joker", "any", False), "as": _p("binding", "name")},
            "pay_cost tech.cost from hand(me) with [wood, 3] as paid",
            decision=True,
            binds="cards",
        ),
        Verb("end_turn", "End the current player's turn now.", (), {}, "end_turn"),
        Verb(
            "end_game",
            "End the game now, at once: the end rule whose trigger holds for the player (`by`, else the "
            "acting player) says how it ended and who wins.",
            (),
            {"by": _p("player", "player", False)},
            "end_game by me",
        ),
        Verb(
            "win",
            "Declare the winners and end the game (they override the end rule's result); inside the end of the "
            "game (a `game_end` phase, a scoring) the game's end phases and scorings still each run once.",
            (_p("players", "players"),),
            {},
            "win me",
        ),
        Verb(
            "eliminate",
            "Put players out of the game, or out of the round with `until round_end`: their turns are skipped, "
            "`players` and `opponents` leave them out, and they never win on `most`/`least` unless everyone is "
            "out.",
            (_p("players", "players"),),
            {"until": _p("moment", "moment", False, "`round_end`: out only until the round ends")},
            "eliminate me until round_end",
        ),
        Verb(
            "next_turn",
            "Make the next turn PLAYER's (seat order goes on from there); in a `turns: rounds` pack, PLAYER "
            "becomes the first player of the rounds that follow.",
            (_p("player", "player"),),
            {},
            "next_turn next_player(current)",
        ),
        Verb(
            "flag",
            "Set a named flag of the game or of a player to true.",
            (_p("flag", "name"),),
            {"for": _FOR},
            "flag settled for me",
        ),
        Verb("unflag", "Clear a named flag.", (_p("flag", "name"),), {"for": _FOR}, "unflag settled"),
        Verb(
            "log",
            "Write a line to the game log; `{...}` in the text puts values into it (docs: values in texts).",
            (_p("message", "text"),),
            {},
            'log "{me} hunts {card.name} with {weapons(me)} weapons"',
        ),
        Verb(
            "slide",
            "Close the gaps of a row of slots: its cards move towards slot 1, keeping their order; with "
            "`from`, the empty slots left at the end are filled, in slot order, from the top of that zone (as many "
            "as it holds).",
            (_p("row", "zone"),),
            {"from": _p("source", "zone", False)},
            "slide display from display_deck",
        ),
    ]
}

FUNCTIONS: dict[str, Function] = {
    f.name: f
    for f in [
        Function(
            "count",
            "How many cards (or items) there are.",
            (_p("items", "any"),),
            "number",
            "count(tableau(me) where tag = weapons)",
        ),
        Function(
            "sum",
            "The sum of numbers, or of one stat over cards.",
            (_p("items", "any"), _p("stat", "name", False)),
            "number",
            "sum(tableau(me), hand_limit)",
        ),
        Function(
            "min",
            "The smallest of numbers.",
            (_p("a", "number"), _p("b", "number")),
            "number",
            "min(weapons(me), 2)",
            variadic=True,
        ),
        Function(
            "max",
            "The largest of numbers.",
            (_p("a", "number"), _p("b", "number")),
            "number",
            "max(0, me.vp - 3)",
            variadic=True,
        ),
        Function(
            "between",
            "A range of amounts for `choose`, both ends included.",
            (_p("low", "number"), _p("high", "number")),
            "range",
            "choose between(0, 3) from hand(me) as paid",
        ),
        Function(
            "numbers",
            "The whole numbers from low to high, both included.",
            (_p("low", "number"), _p("high", "number")),
            "any",
            "choose 1 from numbers(0, 3) as pairs",
        ),
        Function(
            "without",
            "A list less one item (the first equal one).",
            (_p("items", "any"), _p("item", "any")),
            "any",
            "discard without(paid, returning)",
        ),
        Function("top", "The top card of a zone.", (_p("zone", "zone"),), "card", "top(forest_discard)"),
        Function("last", "The last item of a list.", (_p("items", "any"),), "any", "last(card.cost)"),
        Function("first", "The first item of a list.", (_p("items", "any"),), "any", "first(card.cost)"),
        Function("empty", "Whether a zone or list holds nothing.", (_p("items", "any"),), "bool", "empty(forest)"),
        Function(
            "everyone",
            "The cards of a per-player zone, over all players at the table.",
            (_p("zone", "zone"),),
            "cards",
            "everyone(tableau) where id = axe",
        ),
        Function("owner", "The player who holds a card.", (_p("card", "card"),), "player", "owner(card)"),
        Function(
            "has",
            "Whether a card carries a tag.",
            (_p("card", "card"), _p("tag", "name")),
            "bool",
            "has(card, weapons)",
        ),
        Function(
            "contains",
            "Whether a text contains a word (case-insensitive).",
            (_p("text", "text"), _p("word", "text")),
            "bool",
            'contains(card.name, "Spirit")',
        ),
        Function(
            "can_pay",
            "Whether `pay_cost` could pay a cost from a zone (with the same joker set, if any).",
            (_p("cost", "any"), _p("zone", "zone"), _p("joker", "any", False)),
            "bool",
            "can_pay(card.cost, hand(me), [wood, 3])",
        ),
        Function(
            "copies",
            "How many cards with the same id as this card lie in a zone.",
            (_p("card", "card"), _p("zone", "zone")),
            "number",
            "copies(card, hand(me))",
        ),
        Function(
            "requires_met",
            "Whether every prerequisite of a card lies in the given per-player zone of any player.",
            (_p("card", "card"), _p("zone", "zone")),
            "bool",
            "requires_met(card, tableau)",
        ),
        Function(
            "requires_held",
            "How many prerequisites of a card a player holds in a zone.",
            (_p("card", "card"), _p("player", "player"), _p("zone", "zone")),
            "number",
            "requires_held(card, me, tableau)",
        ),
        Function(
            "lines_between",
            "How many dividing lines of a counter's track lie between two players' values.",
            (_p("counter", "counter"), _p("low", "player"), _p("high", "player")),
            "number",
            "lines_between(vp, me, rival)",
        ),
        Function(
            "flagged",
            "Whether a flag is set (for a player, or for the game).",
            (_p("flag", "name"), _p("player", "player", False)),
            "bool",
            "flagged(settled, me)",
        ),
        Function(
            "next_player",
            "The player after the given one in turn order.",
            (_p("player", "player"),),
            "player",
            "next_player(me)",
        ),
        Function("zone_of", "The zone a card is in.", (_p("card", "card"),), "zone", "zone_of(card)"),
        Function(
            "slot",
            "The slot a card occupies in a row (0 when not in a row).",
            (_p("card", "card"),),
            "number",
            "slot(card)",
        ),
        Function(
            "words",
            "One text made of the given parts, one after another with nothing between: numbers as "
            "digits, yes/no, players and ids of the pack by their names, lists joined with commas. For a log "
            "line that shows values; a card's name is `card.name`. A quoted text with `{...}` in it is the same: "
            '`"Strength {weapons(me)}"` is `words("Strength ", weapons(me))`.',
            (_p("part", "any"),),
            "text",
            'log words("Strength ", weapons(me), " vs ", card.strength, " (", card.name, ")")',
            variadic=True,
        ),
        Function(
            "room",
            "How many more cards fit in a zone: what is left of its `capacity` (over all players "
            "together for a zone every player has), the empty slots of a row, else as many as the game has "
            "cards.",
            (_p("zone", "zone"),),
            "number",
            "room(forest) >= 2",
        ),
        Function(
            "amount",
            "The value of a counter named by an expression (a name bound to a counter's id), for a "
            "player (`me` when left out); of a counter with `keys`, the number of the key given third.",
            (_p("counter", "counter"), _p("player", "player", False), _p("key", "any", False)),
            "number",
            "amount(vp, rival) > 0",
        ),
        Function(
            "own",
            "A player's own zone of a zone every player has, when the zone is named by an expression "
            "(`hand(p)` when it is named in the text).",
            (_p("zone", "zone"), _p("player", "player")),
            "zone",
            "count(own(river, rival)) > 0",
        ),
        Function(
            "compare_dice",
            "Compares two rolls die by die from the highest down (highest against highest, "
            "then the next-highest, and so on; a roll with no die left to compare loses): 1 when the first "
            "wins, -1 when the second does, 0 for a full tie.",
            (_p("first", "any"), _p("second", "any")),
            "number",
            "compare_dice(faces, [6, 2]) > 0",
        ),
        Function(
            "map",
            "The value of an expression for each item, in order, with `item` the item (as in `where`).",
            (_p("items", "any"), _p("value", "any")),
            "any",
            "sum(map(players, item.vp >= 5))",
            per_item=(1,),
        ),
        Function(
            "unique",
            "The items without repeats: each first occurrence, in order.",
            (_p("items", "any"),),
            "any",
            "count(unique(map(tableau(me), item.type)))",
        ),
        Function(
            "sort",
            "The items in ascending order, of themselves or of a key worked out per item with `item` the item; "
            "items with equal keys keep their order.",
            (_p("items", "any"), _p("key", "any", False)),
            "any",
            "first(sort(hand(me), item.strength))",
            per_item=(1,),
        ),
        Function(
            "index_of",
            "Where an item is in a list, counting from 1; 0 when it is not there.",
            (_p("items", "any"), _p("item", "any")),
            "number",
            "index_of(players, me)",
        ),
        Function(
            "eliminated",
            "Whether a player is out of the game or of the round (`eliminate`).",
            (_p("player", "player"),),
            "bool",
            "count(all_players where eliminated(item)) > 0",
        ),
        Function(
            "players_from",
            "All players in turn order, starting with the given one.",
            (_p("player", "player"),),
            "players",
            "players_from(next_player(me))",
        ),
    ]
}

CONSTANTS: dict[str, Constant] = {
    c.name: c
    for c in [
        Constant("me", "player", "The player carrying out the effect."),
        Constant("current", "player", "The player whose turn it is."),
        Constant("players", "players", "All players still in play (`eliminate`), in turn order from the current one."),
        Constant("opponents", "players", "All players still in play but `me`, in turn order."),
        Constant("all_players", "players", "All players, those out of play too, in turn order from the current one."),
        Constant("player_count", "number", "How many players are at the table."),
        Constant("table", "table", "The table, whose fields are the table counters: `table.round`."),
        Constant(
            "card",
            "card",
            "The card the effect is written on (or being resolved); inside `where` over cards, the card being tested.",
        ),
        Constant("item", "any", "Inside `where`, the thing being tested: `opponents where item.vp > me.vp`."),
        Constant("turn_number", "number", "The current turn, counting from 1."),
        Constant("true", "bool", "Yes."),
        Constant("false", "bool", "No."),
        Constant("none", "any", "Nothing: no player, no card."),
        Constant("upright", "orientation", "A card in its normal position."),
        Constant("turned", "orientation", "A card turned 90 degrees: used, until its owner resets it."),
        Constant("reversed", "orientation", "A card turned 180 degrees: used for good."),
        Constant("all", "range", "Every option (for `choose`)."),
    ]
}

# Fields every card has, usable as `card.FIELD` and as bare names inside `where`.
CARD_FIELDS: dict[str, tuple[str, str]] = {
    "id": ("name", "The card's id."),
    "name": ("text", "The card's printed name."),
    "type": ("name", "The card's type (resource, technology, ...)."),
    "tag": ("name", "In `where`: `tag = x` holds when the card carries tag x."),
    "tags": ("any", "The card's tags."),
    "deck": ("zone", "The zone the card's copies start in."),
    "back": ("name", "What the card's back shows (`back:`), seen by all while its face is hidden."),
    "cost": ("cards", "The card's ordered cost."),
    "requires": ("cards", "The card's prerequisites."),
    "orientation": ("orientation", "upright, turned or reversed."),
    "owner": ("player", "The player holding the card, if any."),
}

ZONE_FIELDS: dict[str, tuple[str, str]] = {
    "id": ("name", "The zone's id."),
    "discard": ("zone", "The zone's discard pile."),
    "refill_from": ("zone", "Where the zone gets new cards (a deck's discard pile, a row's deck)."),
    "size": ("number", "How many cards it holds."),
}

RESERVED_WORDS = (
    "if",
    "elif",
    "else",
    "repeat",
    "times",
    "for",
    "each",
    "in",
    "let",
    "stop",
    "where",
    "then",
    "showing",
    "and",
    "or",
    "not",
    "from",
    "to",
    "of",
    "with",
    "into",
    "on",
    "as",
    "by",
    "at",
    "among",
    "unless",
    "until",
    "taking",
)


def name_args(function: Function) -> tuple[int, ...]:
    """The positions of a function's arguments that are bare words, not values: `sum(zone, vp)`."""
    return tuple(i for i, param in enumerate(function.params) if param.type == "name")


def implemented(what: str, declared, implementation: dict, elsewhere: tuple[str, ...] = ()) -> dict:
    """`implementation`, once its names are those declared here (less those `elsewhere` handles): lint, completion
    and the docs read the declarations, the runtime the implementation, so a name in only one of them stops the
    import instead of surfacing as a game that plays differently from what lint checked."""
    undeclared = sorted(set(implementation) - set(declared))
    missing = sorted(set(declared) - set(implementation) - set(elsewhere))
    parts = [f"not declared: {', '.join(undeclared)}"] if undeclared else []
    parts += [f"declared but not implemented: {', '.join(missing)}"] if missing else []
    if parts:
        raise ImportError(f"the runtime's {what} do not match engine/dsl/builtins.py: " + "; ".join(parts))
    return implementation
