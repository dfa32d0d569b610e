"""Imagined games, for search and for the bots' look-ahead: an independent copy of a game (`clone`), and
a copy re-dealt as one player could imagine it (`determinized`). Neither touches the real game."""

from __future__ import annotations

import random

from .rng import Streams
from .state import APPEND_ONLY, State, plain_copy


def clone(g):
    """An independent copy, for search and for agents' imagined games. The log and the history only
    grow and their entries are never changed, so the copy shares the entries (long games carry
    thousands of them) and copies the rest."""
    state: State = g.state
    copied = plain_copy({k: v for k, v in state.items() if k not in APPEND_ONLY})
    for key in APPEND_ONLY:
        copied[key] = list(state[key])
    return type(g)(g.rules, copied)


def determinized(g, player, seed: int):
    """A copy in which everything `player` cannot see is re-dealt at random: hidden cards trade places
    with hidden cards from the same home deck (where a card came from is public: the log says which
    deck was drawn). Its view for `player` is the same as the real game's (tests check this)."""
    copy = g.clone()
    rnd = random.Random(seed)
    state = copy.state
    groups: dict[tuple[str, int | None], list[tuple[str, int]]] = {}  # (home deck, seat): places
    for key, cards in state["zones"].items():
        for i, card in enumerate(cards):
            if card is not None and not copy.can_see(card, player):
                # a per-player set's cards trade places only with cards of the same set
                home = (copy.card_def(card).get("deck") or "", g.rules.start[card][2])
                groups.setdefault(home, []).append((key, i))
    for slots in groups.values():
        cards = [state["zones"][k][i] for k, i in slots]
        rnd.shuffle(cards)
        for (k, i), card in zip(slots, cards, strict=True):
            state["zones"][k][i] = card
            state["loc"][card] = k
    pending = state["pending"]
    if pending is not None and pending.get("answers"):  # others' secret answers are not known yet
        for other in [p for p in pending["answers"] if p != player]:
            del pending["answers"][other]
            pending["by"].append(other)
    state["rng"] = {name: rnd.getrandbits(64) for name in state["rng"]}
    state["seed"] = rnd.getrandbits(32)
    copy.rng = Streams(state["rng"], state["seed"])
    return copy
