"""What a person at the table can look up about what they see: the printed details of each visible card
(cost, prerequisites, stats, text), the text of each zone, and the goal (the pack's end rules in words).

All of it is fixed by the pack: a card's details are shown only for cards the player can already see
(the view names them), so nothing hidden is given away. Each view gets its own copy (plain data, no
reference into the rules), as `view["about"]`.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\b(me\.)?([a-z_][a-z0-9_]*)\b(\(me\))?")
_COUNT_MINE = re.compile(r"\bcount\(([a-z_][a-z0-9_]*)\(me\)\)")
_COMPARE = {">=": "≥", "<=": "≤", "!=": "≠", "==": "="}


def about(g, zones: dict) -> dict:
    """`{"cards": {card id: details}, "zones": {zone key: {"type", "order", ...}}, "goal": [words]}`
    for a view whose `zones` (player_view's) hold only what the player may see. What the pack fixes is
    worked out once per pack (kept on the rules, as `Ruleset.def_values` does) and copied into each view."""
    known = g.rules.__dict__.setdefault("_card_details", {})
    cards: dict[str, dict] = {}
    for entry in zones.values():
        shown = (entry.get("cards") or []) + ([entry["top"]] if entry.get("top") else [])
        for item in shown:
            if isinstance(item, dict) and item["id"] not in cards:
                details = known.get(item["id"])
                if details is None:
                    details = known[item["id"]] = card_details(g.rules, item["id"])
                cards[item["id"]] = {k: v.copy() if isinstance(v, (list, dict)) else v for k, v in details.items()}
    facts = _zone_facts(g.rules)
    zone_facts = {key: dict(facts.get(key.split(":")[0]) or facts[None]) for key in zones}
    goals = g.rules.__dict__.setdefault("_goal_words", {})
    count = len(g.players)
    if count not in goals:
        goals[count] = goal(g)
    return {"cards": cards, "zones": zone_facts, "goal": list(goals[count])}


def _zone_facts(rules) -> dict:
    """Each zone id's type, place in the pack's order (a saved game's zones come sorted by key), text,
    and whether it is a discard pile; under None, those of a zone the pack does not define (a play area)."""
    facts = rules.__dict__.get("_zone_facts")
    if facts is None:
        discards = {z.get(f) for z in rules.zones.values() for f in ("discard", "refill_from")}
        facts = {None: {"type": "", "order": len(rules.zones)}}
        for order, (zone_id, zone) in enumerate(rules.zones.items()):
            facts[zone_id] = {"type": str(zone.get("type", "")), "order": order}
            if zone_id in discards:
                facts[zone_id]["discard"] = True
            if zone.get("text"):
                facts[zone_id]["text"] = str(zone["text"])
        rules.__dict__["_zone_facts"] = facts
    return facts


def card_details(rules, card_id: str) -> dict:
    """A card's printed details, in words: only the fields the card's document has."""
    card = rules.cards[card_id]
    details: dict = {"name": card.get("name") or card_id}
    if card.get("type"):
        details["type"] = str(card["type"]).replace("_", " ")
    if card.get("back"):
        details["back"] = str(card["back"]).replace("_", " ")
    if card.get("tags"):
        details["tags"] = [str(t).replace("_", " ") for t in card["tags"]]
    for field in ("cost", "requires"):
        if card.get(field):
            details[field] = [_name(rules, x) for x in card[field]]
    if card.get("stats"):
        details["stats"] = {str(k).replace("_", " "): v for k, v in card["stats"].items()}
    if card.get("refs"):
        details["refs"] = {str(k).replace("_", " "): _name(rules, v) for k, v in card["refs"].items()}
    if card.get("text"):
        details["text"] = str(card["text"])
    return details


def _name(rules, value) -> str:
    for table in (rules.cards, rules.zones, rules.counters, rules.actions):
        if value in table:
            return table[value].get("name") or str(value)
    return str(value).replace("_", " ")


def goal(g) -> list[str]:
    """Each end rule in a few words: its trigger with the parameters of this player count filled in and ids
    turned into names (`me.vp >= victory_points` -> "Victory points ≥ 22"), else the rule's name."""
    sentences = []
    for end in g.rules.ends:
        trigger = end.get("trigger")
        words = _trigger_words(g, trigger) if isinstance(trigger, str) and "\n" not in trigger.strip() else None
        name = end.get("name") or end.get("id", "")
        sentences.append(words or name)
    return sentences


def _trigger_words(g, trigger: str) -> str | None:
    params = g.params

    def word(match: re.Match) -> str:
        is_mine, name, of_me = match.group(1), match.group(2), match.group(3)
        if is_mine and name in g.rules.counters:
            return g.rules.counters[name].get("name", name)
        if of_me and name in g.rules.zones:
            return "your " + (g.rules.zones[name].get("name") or name).lower()
        if not is_mine and not of_me and name in params and isinstance(params[name], (int, str)):
            return str(params[name])
        return match.group(0)

    text = _COUNT_MINE.sub(
        lambda m: f"cards in me.{m.group(1)}" if m.group(1) in g.rules.zones else m.group(0), trigger.strip()
    )
    text = _WORD.sub(word, text.replace("cards in me.", "cards in @"))
    text = re.sub(
        r"@([a-z_][a-z0-9_]*)", lambda m: "your " + (g.rules.zones[m.group(1)].get("name") or m.group(1)).lower(), text
    )
    for op, sign in _COMPARE.items():
        text = text.replace(f" {op} ", f" {sign} ")
    readable = len(text) <= 60 and "(" not in text and not re.search(r"[a-z]_[a-z]", text)
    return text if readable else None
