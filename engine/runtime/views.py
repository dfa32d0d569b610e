"""What one player may know of a game (boardgame.io's playerView): built from the state, never a
reference into it, with names for the cards the player can see and only counts for the rest.

Card numbers never appear: they are fixed per card, so showing one would reveal a hidden card.
"""

from __future__ import annotations

from engine.dsl.builtins import ORIENTATIONS

from . import card_details
from .counter_visibility import counters_seen
from .functions import option_words
from .protocol import DONE, END_TURN
from .state import State
from .why import unavailable


def player_view(g, player) -> dict:
    state: State = g.state
    zones = {}
    for key, cards in state["zones"].items():
        if key == "_removed":
            continue
        present = [x for x in cards if x is not None]
        if not present and key.startswith("_"):
            continue
        entry = {"name": g.zone_name(key), "count": len(present)}
        shown: list[dict | str | None] = []  # a card seen; "hidden" or None (empty) for a row's place
        backs: list[str] = []  # the backs everyone sees of the cards not seen face up, bottom first
        is_row = g.slotted(key)
        for card in cards:
            if card is None:
                if is_row:
                    shown.append(None)
                continue
            back = g._card_defs[card].get("back")
            if g.can_see(card, player):
                item = {"id": g.rules.instances[card], "name": g.card_label(card, player)}
                if back:
                    item["back"] = back
                if state["orient"][card]:
                    item["orientation"] = ORIENTATIONS[state["orient"][card]]
                if state.get("card_counters"):  # numbers kept on the card (`owner: card`), next to it
                    number = str(card)
                    numbers = {c: held[number] for c, held in state["card_counters"].items() if number in held}
                    if numbers:
                        item["counters"] = numbers
                shown.append(item)
                continue
            if back and g.sees_back(card, None):
                backs.append(back)
            if is_row:
                shown.append("hidden")
        if g.zone_def(key).get("visibility") == "top" and shown:
            entry["top"] = shown[-1]
        elif any(s is not None for s in shown) or is_row:
            entry["cards"] = shown
        if backs:
            entry["backs"] = backs
        zones[key] = entry
    view = {
        "you": player,
        "players": list(g.players),
        "turn": {
            "player": g.turn_player,
            "number": g.turn_number,
            "rounds": g.rules.in_rounds,
            "round": g.turn.get("round", g.turn_number),  # rounds, not turns: a pass of the seats
        },
        "out": dict(state.get("out") or {}),  # the players out of the game or the round (`eliminate`)
        "counters": counters_seen(g, player),  # "?" for a counter the player may not read
        "counter_names": {c: spec.get("name", c) for c, spec in g.rules.counters.items()},
        "counter_labels": {c: spec["short"] for c, spec in g.rules.counters.items() if spec.get("short")},
        "counter_words": {
            c: {str(i + int(spec.get("min") or 0)): word for i, word in enumerate(spec["labels"])}
            for c, spec in g.rules.counters.items()
            if spec.get("labels")
        },
        "zones": zones,
        "log": g.log_for(player),
        "result": _copied(g.result),
        "decision": _decision(g, player),
    }
    view["about"] = card_details.about(g, zones)  # what the terminal shows on `inspect` (card_details.py)
    return view


def _copied(result):
    """The game's result as the view's own: a view changed by its holder must not change the game's winners."""
    if result is None:
        return None
    return {**result, "winners": list(result["winners"]), "scores": dict(result["scores"])}


def _decision(g, player):
    pending = g.pending
    if pending is None:
        return None
    if player not in pending["by"]:
        return {"waiting_for": list(pending["by"]), "prompt": pending.get("prompt", "")}
    legal = g.legal(player)
    options = [{"key": key, "label": option_label(g, pending, pending["options"][key], player, key)} for key in legal]
    prompt = (pending.get("prompts") or {}).get(player) or pending.get("prompt", "")  # a secret choice's own words
    decision = {"prompt": prompt, "kind": pending["kind"], "options": options}
    if pending["kind"] == "action":  # "why can't I?": each action left out, with why (why.py)
        decision["unavailable"] = unavailable(g, player, legal)
    return decision


def option_label(g, pending, value, player, key=None) -> str:
    if value == DONE:
        return "done"
    words = option_words(g, pending, key, value, player)  # `showing` labels, options that are lists
    if words is not None:
        return words
    if pending["kind"] == "action":
        return "end turn" if value == END_TURN else g.label(value)
    if pending.get("cards") and isinstance(value, int) and not isinstance(value, bool):
        label = g.card_label(value, player)
        state: State = g.state
        zone = state["loc"][value]
        if g.can_see(value, player):
            orient = state["orient"][value]
            extra = f", {ORIENTATIONS[orient]}" if orient else ""
            return f"{label} ({g.zone_name(zone)}{extra})"
        cards = [x for x in state["zones"][zone] if x is not None]
        return f"{label} #{cards.index(value) + 1} in {g.zone_name(zone)}"
    if pending["kind"] == "pay":
        # the joker set `pay_cost ... with [card, n]` offers: n copies of one card (verbs.PayCost)
        return f"{len(value)} × {g.label(value[0])}" if isinstance(value, list) else g.label(value)
    return g.label(value, player)
