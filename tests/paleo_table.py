"""Setting a Paleo table for a scenario and answering its day (the base game, the expansion and its modules share
it): camp counters, groups, the card a player takes when exploring, the order questions answered."""

from __future__ import annotations

from scenario import answer, prompt, put

from engine.runtime.game import CHANCE

SLEEP = "go to sleep early"
RESOLVE, HELP, IGNORE = "resolve an action", "help another group", "ignore it"
# zones a card a test asks for is never taken from (it is out of the game, or on the table for good)
OUT_OF_PLAY = ("cemetery", "stable", "box", "missions", "camp")


def table(game, name):
    return game.state["counters"]["table"][name]


def set_table(game, name, value, supply=None):
    """Set a camp counter, and its supply so that the pool keeps its total."""
    counters = game.state["counters"]["table"]
    if supply:
        counters[supply] += counters[name] - value
    counters[name] = value


def zone(game, key):
    return game.state["zones"][key]


def number_of(game, card_id, *, not_in=()):
    """A card number of `card_id` lying outside the zones `not_in`."""
    for n, c in enumerate(game.rules.instances):
        if c == card_id and game.state["loc"][n] not in not_in:
            return n
    raise AssertionError(f"no {card_id} outside {not_in}")


def group_of(game, player, humans, tools=()):
    """Give a player's group exactly these humans (their wounds healed) and tools."""
    for n in list(zone(game, f"group:{player}")):
        game.move(n, "people", 1)
    for n in list(zone(game, f"tools:{player}")):
        game.move(n, "tool_supply")
    for human in humans:
        put(game, human, f"group:{player}")
        game.set_card_counter(number_of(game, human), "wounds", 0)
    for tool in tools:
        put(game, tool, f"tools:{player}")


def swap(game, a, b):
    """Exchange two cards' places (zone and position), also among the options of the pending exploration."""
    za, zb = game.state["loc"][a], game.state["loc"][b]
    la, lb = zone(game, za), zone(game, zb)
    ia, ib = la.index(a), lb.index(b)
    la[ia], lb[ib] = b, a
    game.state["loc"][a], game.state["loc"][b] = zb, za
    lists = [game.state["pending"]["options"]] if game.state["pending"] else []
    lists += [
        f["wait"]["options"] for f in game.state["stack"] if isinstance(f.get("wait"), dict) and "options" in f["wait"]
    ]
    for options_list in lists:
        for i, x in enumerate(options_list):
            if type(x) is int and x in (a, b):
                options_list[i] = b if x == a else a


def look(game, player, take):
    """`player` takes the card `take` in the exploration: it is swapped into the first place the player looks at
    (unless it is already there), and the exploration is answered with it."""
    pending = game.state["pending"]
    slots = [i for i in pending["allowed"][player] if type(pending["options"][i]) is int]
    current = [pending["options"][i] for i in slots]
    mine = [i for i, n in zip(slots, current, strict=True) if game.rules.instances[n] == take]
    if not mine:
        swap(game, current[0], number_of(game, take, not_in=OUT_OF_PLAY))
        mine = [slots[0]]
    game.apply(mine[0], player)


def explore(game, takes: dict):
    """Everyone awake answers the exploration: a card id (taken, with two fillers) or SLEEP."""
    for player in list(game.state["pending"]["by"]):
        if takes[player] == SLEEP:
            answer(game, SLEEP, player)
        else:
            look(game, player, takes[player])
    while prompt(game).startswith("Which of the two cards goes back"):
        game.apply(game.legal(game.decision.players[0])[0], game.decision.players[0])


def roll(game, faces):
    """The dice show these faces (chance decisions answered)."""
    for face in faces:
        assert game.decision.is_chance, prompt(game)
        game.apply(face - 1, CHANCE)


def wounds(game, human):
    return game.card_counter(number_of(game, human), "wounds")
