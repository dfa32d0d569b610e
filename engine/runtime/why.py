""" "Why can't I?": the words a player reads for an action the menu leaves out, or one that was undone.

Words are made only when a view asks for them (or when an action fails, which is rare): the menu itself
(driver.refusal) records only which check failed, so bots, which never build views, pay nothing. The
wording is generic, from the pack's own text: an author's `why_not` (actions) or `require ... with "..."`,
else the first part of the condition that is false, quoted as the author wrote it.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable
from typing import Any

from engine import dsl

from . import verbs
from .budget import WORK_BUDGET
from .codegen import compile_expression
from .context import Ctx
from .counter_visibility import can_read
from .driver import end_refusal, refusal
from .protocol import END_TURN

UNDONE_BEFORE = "it was tried from here and cannot be done now"
_LIMITS = {
    "once_per_turn": "it may be taken once per turn, and it was taken this turn",
    "once_per_game": "it may be taken once per game, and you have taken it",
}
_CONJUNCTS: dict[int, tuple] = {}  # id(rules) -> (weak reference, {action id: [(text, test)]})


def unavailable(g, player, legal) -> list[dict]:
    """The actions `player` could take in some other situation but not now, each with why: those the
    menu leaves out, and those it offered whose every way through has failed (undone)."""
    pending = g.pending
    position = {option: key for key, option in enumerate(pending["options"])}
    legal = set(legal)
    undone = g.state.get("undone") or {}
    missing = []
    saved = g.work
    g.work = WORK_BUDGET  # working out the words is not part of any answer's budget
    try:
        for action_id in g.rules.actions:
            if action_id in position:
                if position[action_id] in legal:
                    continue
                why = undone.get(action_id, UNDONE_BEFORE)
            else:
                refused = refusal(g, action_id, player)
                if refused is None or refused[0] == "hidden":
                    continue
                why = refused_in_words(g, action_id, player, refused)
            missing.append({"key": action_id, "label": g.label(action_id), "why": why})
        if END_TURN not in position:  # the pack's `end_turn` keeps "end turn" off the menu now
            missing.append({"key": END_TURN, "label": "end turn", "why": _why_not_end(g, player)})
    finally:
        g.work = saved
    return missing


def _why_not_end(g, player) -> str:
    """Why "end turn" is not on the menu (pack.yaml `end_turn`): never allowed, or its condition, as written."""
    if end_refusal(g, player) == ("never",):
        return "in this game a turn ends only when nothing is left to do"
    return _not_met(" ".join(str(g.rules.manifest.get("end_turn", "")).split()))


def refused_in_words(g, action_id, me, refused) -> str:
    action = g.rules.actions[action_id]
    kind = refused[0]
    if kind == "whole_turn":
        return "it takes the whole turn, and this turn something was already done"
    if kind == "limit":
        return _LIMITS[refused[1]]
    if kind == "cost":
        _, counter, amount, have = refused
        return f"it costs {amount} {_counter_name(g, counter)} and you have {_how_many(g, counter, me, me, have)}"
    if action.get("why_not"):
        words = g.rules.code.get(f"action/{action_id}/why_not")  # a text with `{...}` values in it
        return str(action["why_not"]) if words is None else str(words(Ctx(g, {}, me, None)))
    return _not_met(_first_false(g, action_id, me))


def failed_step(g, ctx, frame, verb, key, offset) -> str:
    """Why a verb stopped the action (it returned "fail"), in words, worked out before the state is
    restored: `require` (its `with` text, else its condition), `pay`, `pay_cost`, `choose`."""
    if isinstance(verb, verbs.Require):
        reason = verb.value(ctx, "with")
        if reason is not None:
            return str(reason)
        return _not_met(_condition_text(_source(g.rules, key), offset, verb.name))
    if isinstance(verb, verbs.Pay):
        amount, counter, player = int(verb.value(ctx, "amount") or 0), verb.value(ctx, "counter"), verb.player(ctx)
        who = "you have" if player == ctx.me else f"{player} has"
        have = _how_many(g, counter, player, ctx.me, g.counter(player, counter))
        return f"it takes {amount} {_counter_name(g, counter)} and {who} {have}"
    if isinstance(verb, verbs.PayCost) and frame.get("wait"):
        wait = frame["wait"]
        return f"the cost ({g.label(wait['cost'])}) cannot be paid from {g.zone_name(wait['source'])}"
    if isinstance(verb, verbs.Choose):
        prompt = verb.value(ctx, "with") or f"Choose {(verb.args.get('as') or '').replace('_', ' ')}"
        there = len(g.items_of(verb.value(ctx, "from")))
        if there:
            return f'only {there} to choose from for "{prompt}", not enough'
        return f'there is nothing to choose for "{prompt}"'
    line = _condition_text(_source(g.rules, key), offset, "")
    return f"`{line}` cannot be carried out" if line else "it cannot be done this way"


def dead_end(g, prompt) -> str:
    """Why an action stops at a question none of whose answers can be carried out: the failure found last
    on the way there, else the question itself."""
    attempt = g.attempt
    last = (g.state.get("undone") or {}).get(attempt["action"]) if attempt else None
    return last or f'no answer to "{prompt}" can be carried out'


# ---------------------------------------------------------------- the text of conditions
def _not_met(text: str) -> str:
    return f"the condition `{text}` is not met" if text else "it cannot be done this way"


def _how_many(g, counter, holder, reader, have) -> str:
    """`have`, the amount `holder` has of `counter`, as `reader` may know it: the number only when the
    reader may read that counter (counter_visibility.py); a counter read by nobody, or another player's
    face-down tokens, is "fewer" (that the payment falls short is all the refusal itself tells)."""
    owner = holder if g.rules.counters.get(counter, {}).get("owner") == "player" else "table"
    return str(have) if can_read(g.rules, counter, owner, reader) else "fewer"


def _counter_name(g, counter) -> str:
    return g.rules.counters.get(counter, {}).get("name", counter)


def _first_false(g, action_id, me) -> str:
    """The first part of `available` (`a and b and c`) that is false for `me`, as the author wrote it."""
    for text, test in _conjuncts(g.rules, action_id):
        if not test(Ctx(g, {}, me, None)):
            return text
    return " ".join(str(g.rules.actions[action_id].get("available", "")).split())


def _conjuncts(rules, action_id) -> list[tuple[str, Callable[[Ctx], Any]]]:
    rules_id = id(rules)
    ref, cache = _CONJUNCTS.get(rules_id, (None, None))
    if ref is None or ref() is not rules:
        cache = {}
        _CONJUNCTS[rules_id] = (weakref.ref(rules, lambda _r: _CONJUNCTS.pop(rules_id, None)), cache)
    if action_id not in cache:
        key = f"action/{action_id}/available"
        text = rules.actions[action_id]["available"]
        ir, _problem = dsl.parse(text, dsl.CONDITION)
        parts = ir[2] if ir is not None and ir[0] == "and" else []
        texts = split_conjuncts(text)
        if not parts or len(texts) != len(parts):
            parts, texts = [ir], [" ".join(text.split())]
        cache[action_id] = [
            (t, compile_expression(rules, key, p, frozenset())) for t, p in zip(texts, parts, strict=True)
        ]
    return cache[action_id]


def split_conjuncts(text: str) -> list[str]:
    """`a and (b or c) and d` -> ["a", "(b or c)", "d"]: split at the `and`s outside brackets and texts."""
    parts, depth, start, i, quoted = [], 0, 0, 0, False
    while i < len(text):
        char = text[i]
        if char == '"':
            quoted = not quoted
        elif not quoted and char in "([":
            depth += 1
        elif not quoted and char in ")]":
            depth -= 1
        elif (
            not quoted
            and depth == 0
            and text.startswith("and", i)
            and not _word(text[i - 1 : i])
            and not _word(text[i + 3 : i + 4])
        ):
            parts.append(text[start:i])
            start = i + 3
            i += 3
            continue
        i += 1
    parts.append(text[start:])
    return [" ".join(p.split()) for p in parts]


def _word(char: str) -> bool:
    return bool(char) and (char.isalnum() or char == "_")


def _source(rules, key: str) -> str:
    """The text an effect was compiled from (`action/ID/effect`, `card/ID/effect`, `phase/ID/effect` ...)."""
    kind, _, rest = key.partition("/")
    doc_id, _, field = rest.rpartition("/")
    docs = {"action": rules.actions, "card": rules.cards, "function": rules.functions}.get(kind)
    if docs is not None:
        doc = docs.get(doc_id) or {}
    else:
        every = {
            "phase": [d for group in rules.phases.values() for d in group],
            "end": rules.ends,
            "scoring": rules.scorings,
        }.get(kind, [])
        doc = next((d for d in every if d.get("id") == doc_id), {})
    text = doc.get(field)
    return text if isinstance(text, str) else ""


def _condition_text(source: str, offset: int, verb: str) -> str:
    """The condition written after `verb` on the line at `offset`, without its `unless`/`with` parts."""
    end = source.find("\n", offset)
    line = source[offset : end if end >= 0 else len(source)]
    if verb and line.startswith(verb):
        line = line[len(verb) :]
    line = re.split(r";|\s(?:unless|with)\s", line)[0]
    return " ".join(line.split())
