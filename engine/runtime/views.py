"""What one player may know of a game (boardgame.io's playerView): built from the state, never a
reference into it, with names for the cards the player can see and only counts for the rest.

Card numbers never appear: they are fixed per card, so showing one would reveal a hidden card.
"""

from __future__ import annotations

from . import card_details
from .counter_visibility import counters_seen
from .state import State

ORIENTATION_WORDS = ["upright", "turned", "reversed"]


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
        shown = []
        is_row = g.slotted(key)
        for card in cards:
            if card is None:
                if is_row:
                    shown.append(None)
                continue
            if g.can_see(card, player):
                item = {"id": g.rules.instances[card], "name": g.card_label(card, player)}
                if state["orient"][card]:
                    item["orientation"] = ORIENTATION_WORDS[state["orient"][card]]
                shown.append(item)
            elif is_row:
                shown.append("hidden")
        if g.zone_def(key).get("visibility") == "top" and shown:
            entry["top"] = shown[-1]
        elif any(s is not None for s in shown) or is_row:
            entry["cards"] = shown
        zones[key] = entry
    view = {
        "you": player,
        "players": list(g.players),
        "turn": {"player": g.turn_player, "number": g.turn_number, "rounds": g.rules.in_rounds},
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
        "result": g.result,
        "decision": _decision(g, player),
    }
    view["about"] = card_details.about(g, zones)  # what the terminal shows on `inspect` (card_details.py)
    return view


def _decision(g, player):
    pending = g.pending
    if pending is None:
        return None
    if player not in pending["by"]:
        return {"waiting_for": list(pending["by"]), "prompt": pending.get("prompt", "")}
    legal = g.legal(player)
    options = [{"key": key, "label": option_label(g, pending, pending["options"][key], player)} for key in legal]
    decision = {"prompt": pending.get("prompt", ""), "kind": pending["kind"], "options": options}
    if pending["kind"] == "action":  # "why can't I?": each action left out, with why (why.py)
        from .why import unavailable

        decision["unavailable"] = unavailable(g, player, legal)
    return decision


def option_label(g, pending, value, player) -> str:
    if value == "$done":
        return "done"
    if pending["kind"] == "action":
        return "end turn" if value == "end_turn" else g.label(value)
    if pending.get("cards") and isinstance(value, int) and not isinstance(value, bool):
        label = g.card_label(value, player)
        state: State = g.state
        zone = state["loc"][value]
        if g.can_see(value, player):
            orient = state["orient"][value]
            extra = f", {ORIENTATION_WORDS[orient]}" if orient else ""
            return f"{label} ({g.zone_name(zone)}{extra})"
        cards = [x for x in state["zones"][zone] if x is not None]
        return f"{label} #{cards.index(value) + 1} in {g.zone_name(zone)}"
    if pending["kind"] == "pay":
        return "3 × " + g.label(value[0]) if isinstance(value, list) else g.label(value)
    return g.label(value, player)
