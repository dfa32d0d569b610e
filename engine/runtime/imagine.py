"""Imagined games, for search and for the bots' look-ahead: an independent copy of a game (`clone`), and
a copy re-dealt as one player could imagine it (`determinized`). Neither touches the real game."""

from __future__ import annotations

import random

from .log_words import knows
from .protocol import DONE
from .rng import Streams
from .state import APPEND_ONLY, State, copy_state


def clone(g):
    """An independent copy, for search and for agents' imagined games. The log and the history only
    grow and their entries are never changed, so the copy shares the entries (long games carry
    thousands of them) and copies the rest. The undo snapshot of the action under way is shared too:
    nothing changes it once taken (undo.fail restores a copy of it), and it is as large as the state."""
    state: State = g.state
    copied = copy_state(state, skip=(*APPEND_ONLY, "attempt"))
    for key in APPEND_ONLY:
        copied[key] = list(state[key])
    attempt = state["attempt"]
    if attempt is not None:
        attempt = {**attempt, "path": list(attempt["path"]), "counts": list(attempt["counts"])}
    copied["attempt"] = attempt
    copied = {key: copied[key] for key in state}  # the state's own order of keys
    return type(g)(g.rules, copied)


def determinized(g, player, seed: int):
    """A copy in which everything `player` cannot see is re-dealt at random: hidden cards trade places
    with hidden cards from the same home deck (where a card came from is public: the log says which
    deck was drawn). Its view for `player` is the same as the real game's (tests check this). The state from
    before an action under way (the undo snapshot) is re-dealt the same way, card for card: an undo in the
    imagined game brings back imagined cards, not the true ones."""
    copy = g.clone()
    rnd = random.Random(seed)
    state = copy.state
    groups: dict[tuple, list[tuple[str, int]]] = {}  # (home deck, seat[, back seen]): places
    with_backs = _has_backs(g.rules)
    for key, cards in state["zones"].items():
        for i, card in enumerate(cards):
            if card is not None and not copy.can_see(card, player) and not knows(copy, card, player):
                # a per-player set's cards trade places only with cards of the same set
                home: tuple = (copy.card_def(card).get("deck") or "", g.rules.start[card][2])
                if with_backs:  # a back everyone sees stays: only cards with that same back come there
                    home += (copy.card_def(card).get("back") if copy.sees_back(card, player) else _UNSEEN,)
                groups.setdefault(home, []).append((key, i))
    imagined: dict[int, int] = {}  # a true card -> the card imagined in its place
    for slots in groups.values():
        cards = [state["zones"][k][i] for k, i in slots]
        true = cards[:]
        rnd.shuffle(cards)
        for (k, i), card, was in zip(slots, cards, true, strict=True):
            state["zones"][k][i] = card
            state["loc"][card] = k
            if card != was:
                imagined[was] = card
    if imagined and state["attempt"] is not None:
        _redeal_snapshot(state["attempt"], imagined)
    pending = state["pending"]
    if pending is not None and pending.get("answers"):  # others' secret answers are not known yet
        for other in [p for p in pending["answers"] if p != player]:
            del pending["answers"][other]
            pending["by"].append(other)
    if pending is not None and pending["kind"] == "secret":
        _forget_earlier_picks(state, pending, player)
    state["rng"] = {name: rnd.getrandbits(64) for name in state["rng"]}
    state["seed"] = rnd.getrandbits(32)
    copy.rng = Streams(state["rng"], state["seed"])
    return copy


def _redeal_snapshot(attempt, imagined: dict[int, int]) -> None:
    """Put in the snapshot (a copy: clones share it) the card imagined in each true card's place. The re-dealt
    cards are those `player` can neither see nor place now, a set each card of the snapshot is in or not, so the
    snapshot still holds every card once."""
    snap = copy_state(attempt["snap"], shared=("params", "pending"))
    zones, loc, was_at = snap["zones"], snap["loc"], attempt["snap"]["loc"]
    for key, cards in zones.items():
        zones[key] = [imagined.get(card, card) if card is not None else None for card in cards]
    for card, instead in imagined.items():
        loc[instead] = was_at[card]
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
