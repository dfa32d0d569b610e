"""Building rule scenarios: a game of a pack set up as a rulebook example describes it, then saved
and loaded (every scenario starts from a saved state), answered by option labels, and inspected by
card ids rather than card numbers."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from engine.runtime import rules as rules_module
from engine.runtime.game import Game
from engine.runtime.views import option_label

ROOT = Path(__file__).resolve().parent.parent


@cache
def ruleset(pack: str = "cro-magnon"):
    return rules_module.load(ROOT / "content" / pack)


def fresh_ruleset(pack: str):
    """A new load of `pack`, not `ruleset`'s (shared by every test, its functions already made)."""
    return rules_module.load(ROOT / "content" / pack)


def new_game(players: int = 2, seed: int = 0, pack: str = "cro-magnon") -> Game:
    return Game.new(ruleset(pack), players, seed)


def saved_and_loaded(game: Game) -> Game:
    return Game.load(game.rules, game.save())


def ready(game: Game) -> Game:
    """Finish setting up a scenario: the turn's menu, worked out before the cards were put in place, is
    worked out again; then the game is saved and loaded, so every scenario starts from a saved state."""
    game.rebuild_menu()
    return saved_and_loaded(game)


def ids(game: Game, zone: str) -> list:
    """The card ids in a zone, bottom to top (None for an empty slot of a row)."""
    return [None if x is None else game.rules.instances[x] for x in game.state["zones"][zone]]


def put(game: Game, card_id: str, zone: str, *, slot: int | None = None, copies: int = 1) -> list[int]:
    """Move copies of `card_id` into `zone` (on top, or into a row's slot), taken from wherever they lie
    outside that zone (decks first). Returns the card numbers moved."""
    moved = []
    candidates = [n for n, c in enumerate(game.rules.instances) if c == card_id and game.state["loc"][n] != zone]
    candidates.sort(key=lambda n: (game.zone_def(game.state["loc"][n]).get("type") != "deck", n))
    for number in candidates[:copies]:
        if slot is not None:
            occupant = game.state["zones"][zone][slot - 1]
            if occupant is not None:
                game.move(occupant, "_removed")
        game.move(number, zone, slot)
        moved.append(number)
    assert len(moved) == copies, f"not enough {card_id} cards to move {copies} to {zone}"
    return moved


def clear(game: Game, zone: str, to: str = "_removed"):
    """Empty a zone (its cards go out of the game unless `to` says where)."""
    for card in [x for x in game.state["zones"][zone] if x is not None]:
        game.move(card, to)


def stack_deck(game: Game, zone: str, top: list[str]):
    """Put these cards on top of a deck, the first named on the very top."""
    for card_id in reversed(top):
        here = [x for x in game.state["zones"][zone] if x is not None and game.rules.instances[x] == card_id]
        if here:
            game.move(here[0], zone)
        else:
            put(game, card_id, zone)


def set_counter(game: Game, player: str, counter: str, value: int):
    game.state["counters"][player][counter] = value


def options(game: Game, player: str | None = None) -> list[str]:
    decision = game.decision
    player = player or decision.players[0]
    pending = game.state["pending"]
    return [option_label(game, pending, pending["options"][k], player, k) for k in game.legal(player)]


def answer(game: Game, wanted: str, player: str | None = None):
    """Answer the pending decision with the option labelled `wanted`, else the one whose label starts with it.
    Options with the same label are alike (copies of one card in one place), so any of them will do; labels
    that differ are an ambiguous `wanted`, and the test must say which."""
    decision = game.decision
    assert decision is not None, "no decision is pending"
    player = player or decision.players[0]
    pending = game.state["pending"]
    labels = {k: option_label(game, pending, pending["options"][k], player, k) for k in game.legal(player)}
    matches = [k for k, label in labels.items() if label == wanted] or [
        k for k, label in labels.items() if label.startswith(wanted)
    ]
    assert matches, f"no option `{wanted}` in {list(labels.values())} ({pending.get('prompt')})"
    alike = {labels[k] for k in matches}
    assert len(alike) == 1, f"`{wanted}` could be any of {sorted(alike)} ({pending.get('prompt')})"
    game.apply(matches[0], player)


def prompt(game: Game) -> str:
    return game.state["pending"]["prompt"] if game.state["pending"] else ""
