"""The turn structure every pack shares: setup, turns of actions, end conditions, final scoring.
A pack with `turns: rounds` plays round after round instead, each driven by its phases alone.

Packs say what happens at each point (phases `when: setup | turn_start | ...`, actions with costs
and limits, end rules, scoring); this module only says when those points come. It runs between
effects, when the effect stack is empty, and moves `state["stage"]` along.
"""

from __future__ import annotations

from .context import Ctx
from .errors import ContentError
from .exists import compile_condition
from .protocol import END_TURN
from .state import State, plain_copy


def step(g) -> None:
    state: State = g.state
    stage = state["stage"]
    if stage == "setup":
        _push_phases(g, ["setup", "game_start"], state["players"][0])
        state["stage"] = "next"
        state["turn"]["number"] = 0
    elif stage == "main":
        _main(g)
    elif stage == "turn_end":
        _push_phases(g, ["turn_end"], state["turn"]["player"])
        state["stage"] = "round_end"
    elif stage == "round_end":
        state["stage"] = "next"
        if state["turn"]["player"] == state["players"][-1] or g.rules.in_rounds:
            _push_phases(g, ["round_end"], state["turn"]["player"])
    elif stage == "next":
        _next_turn(g)
    elif stage == "game_end":
        _push_phases(g, ["game_end"], state["turn"]["player"])
        for scoring in reversed(g.rules.scorings):
            if scoring.get("when", "game_end") == "game_end" and scoring.get("effect"):
                g.push(f"scoring/{scoring['id']}/effect", state["turn"]["player"])
        state["stage"] = "result"
    elif stage == "result":
        _result(g)
    else:  # pragma: no cover
        raise ContentError(f"unknown stage {stage}", code="X303")


def _push_phases(g, whens, me):
    frames = []
    for when in whens:
        for phase in g.rules.phases.get(when, []):
            if phase.get("effect"):
                frames.append(f"phase/{phase['id']}/effect")
    for key in reversed(frames):
        g.push(key, me)


def _next_turn(g):
    state: State = g.state
    _check_end(g)
    if state["stage"] != "next":
        return
    turn = state["turn"]
    ending = state["ending"]
    if ending is not None:
        if not ending["queue"]:
            state["stage"] = "game_end"
            return
        player = ending["queue"].pop(0)
    elif turn["number"] == 0:
        player = state["players"][0]
    else:
        if turn["number"] >= state["max_turns"]:
            state["ending"] = {"rule": "turn_limit", "by": None, "queue": []}
            g.log("The turn limit is reached")
            state["stage"] = "game_end"
            return
        order = state["players"]
        player = order[0] if g.rules.in_rounds else order[(order.index(turn["player"]) + 1) % len(order)]
    state["dead"], state["undone"] = [], {}
    state["turn"] = {"player": player, "number": turn["number"] + 1, "acted": False, "used": {}, "closing": False}
    for flags in state["flags"].values():
        flags.pop("$turn", None)
    g.log(f"Round {state['turn']['number']}" if g.rules.in_rounds else f"Turn {state['turn']['number']}: {player}")
    state["stage"] = "main"
    _push_phases(g, ["turn_start"], player)
    if player == state["players"][0]:
        _push_phases(g, ["round_start"], player)


def _main(g):
    state: State = g.state
    turn = state["turn"]
    attempt = state["attempt"]
    if attempt is not None:  # an action has just been carried out
        state["attempt"] = None
        state["dead"], state["undone"] = [], {}
        turn["acted"] = True
        if g.rules.actions.get(attempt["action"], {}).get("whole_turn"):
            turn["closing"] = True
    _check_end(g)
    if state["stage"] != "main":
        return
    if turn["closing"] or g.rules.in_rounds:  # a round is played by its phases: no menu
        state["stage"] = "turn_end"
        return
    me = turn["player"]
    ctx = Ctx(g, {}, me, None)  # one context for every check of this menu: conditions only read it
    options = [a for a in turn_plan(g.rules).offered if refusal(g, a, me, ctx) is None] + [END_TURN]
    g.state["pending"] = {
        "kind": "action",
        "by": [me],
        "prompt": "Choose an action, or end your turn",
        "options": options,
    }


def refusal(g, action_id, me, ctx=None) -> tuple | None:
    """None when the action is on `me`'s menu now, else the first thing that keeps it off, as a small tuple
    that why.py words only when a view asks (bots never pay for the words): ("hidden",) for an action
    never offered by itself, ("whole_turn",), ("limit", LIMIT), ("cost", COUNTER, AMOUNT, HAVE),
    ("available",). The checks run cheapest first, from a plan made once per pack (TurnPlan); `ctx`, the
    menu's one context for `me`, saves making one per action."""
    hidden, whole_turn, limit, cost, available = turn_plan(g.rules).checks[action_id]
    if hidden:
        return _HIDDEN
    state: State = g.state
    turn = state["turn"]
    if whole_turn and turn["acted"]:
        return _WHOLE_TURN
    if limit is not None and (turn["used"] if limit == "once_per_turn" else state["used"][me]).get(action_id):
        return ("limit", limit)
    for counter, amount in cost:
        have = g.counter(me, counter)
        if have < amount:
            return ("cost", counter, amount, have)
    if available is not None and not available(ctx or Ctx(g, {}, me, None)):
        return _AVAILABLE
    return None


_HIDDEN, _WHOLE_TURN, _AVAILABLE = ("hidden",), ("whole_turn",), ("available",)
_LIMITED = ("once_per_turn", "once_per_game")


class TurnPlan:
    """What the menu reads of the pack, worked out once per pack rather than at each of a game's hundreds
    of menus. `checks`: action id -> (hidden, whole_turn, limit or None, cost as (counter, amount) pairs,
    available test or None), the test compiled by exists.py so that "is there some X?" stops at the first
    X; `offered`: the actions that are not hidden, in the pack's order; `triggers`: (end rule, its trigger,
    compiled the same way) for the end rules that have one."""

    __slots__ = ("checks", "offered", "triggers")

    def __init__(self, rules):
        self.checks = {}
        for action_id, action in rules.actions.items():
            limit = action.get("limit", "unlimited")
            text = action.get("available")
            key = f"action/{action_id}/available"
            available = compile_condition(rules, key, text) if isinstance(text, str) and key in rules.code else None
            self.checks[action_id] = (
                bool(action.get("subroutine") or not action.get("effect")),
                bool(action.get("whole_turn")),
                limit if limit in _LIMITED else None,
                tuple((action.get("cost") or {}).items()),
                available,
            )
        self.offered = tuple(a for a, check in self.checks.items() if not check[0])
        self.triggers = tuple(
            (rule, compile_condition(rules, f"end/{rule['id']}/trigger", rule["trigger"]))
            for rule in rules.ends
            if f"end/{rule['id']}/trigger" in rules.code
        )


def turn_plan(rules) -> TurnPlan:
    plan = rules.__dict__.get("_turn_plan")
    if plan is None:
        plan = rules.__dict__["_turn_plan"] = TurnPlan(rules)
    return plan


def start_action(g, action_id, pending, answer):
    """Begin an action chosen from the turn's menu, keeping a copy of the state to return to if it
    turns out to be impossible the way it is being done (see Game.fail)."""
    state: State = g.state
    me = state["turn"]["player"]
    if action_id == END_TURN:
        state["turn"]["closing"] = True
        state["dead"], state["undone"] = [], {}
        return
    snap = {k: v for k, v in state.items() if k not in ("log", "history", "dead", "undone", "attempt")}
    snap["pending"] = pending
    snap = plain_copy(snap)
    snap["attempt"] = None
    state["attempt"] = {
        "snap": snap,
        "log": len(state["log"]),
        "path": [answer],
        "counts": [len(pending["options"])],
        "action": action_id,
    }
    action = g.rules.actions[action_id]
    for counter, amount in (action.get("cost") or {}).items():
        g.set_counter(me, counter, g.counter(me, counter) - amount)
    state["turn"]["used"][action_id] = state["turn"]["used"].get(action_id, 0) + 1
    state["used"][me][action_id] = state["used"][me].get(action_id, 0) + 1
    g.log(f"{me}: {action.get('name', action_id)}")
    g.push(f"action/{action_id}/effect", me)


def triggered(g, rule, player) -> bool:
    """Whether an end rule's trigger holds for `player` now."""
    trigger = next((test for known, test in turn_plan(g.rules).triggers if known is rule), None) or g.rules.code.get(
        f"end/{rule['id']}/trigger"
    )  # a rule given by a copy: as compiled
    return trigger is not None and bool(trigger(Ctx(g, {}, player, None)))


def _check_end(g):
    state: State = g.state
    if state["ending"] is not None or state["stage"] in ("game_end", "result", "over"):
        return
    current = state["turn"]["player"]
    triggers = turn_plan(g.rules).triggers
    if not triggers:
        return
    ctx = Ctx(g, {}, current, None)
    for rule, trigger in triggers:
        for player in g.players_from(current):
            ctx.me = player
            if not trigger(ctx):
                continue
            then = rule.get("then", "immediate")
            queue = []
            if then == "last_turns_then_trigger_player":
                # the others in turn order after the current turn (which counts as its player's last),
                # then the trigger player
                queue = [p for p in g.players_from(current)[1:] if p != player] + [player]
                if player == current:
                    state["turn"]["closing"] = True
            elif then == "finish_round":
                seats = state["players"]
                queue = seats[seats.index(current) + 1 :]
            state["ending"] = {"rule": rule["id"], "by": player, "queue": queue, "then": then}
            g.log(f"{player} triggers the end of the game ({rule.get('name', rule['id'])})")
            if then == "immediate":
                state["stack"].clear()
                state["stage"] = "game_end"
            return


def _result(g):
    state: State = g.state
    ending = state["ending"] or {"rule": "declared", "by": None}
    counter = g.rules.score_counter
    scores = {p: g.counter(p, counter) for p in state["players"]} if counter else {}
    rule = next((r for r in g.rules.ends if r["id"] == ending.get("rule")), {})
    if state.get("declared") is not None:
        winners = state["declared"]
    elif rule.get("result") == "win" and ending.get("by"):
        winners = [ending["by"]]
    elif rule.get("result") == "loss" and ending.get("by"):
        winners = [p for p in state["players"] if p != ending["by"]]
    elif scores:
        best = max(scores.values())
        winners = [p for p in state["players"] if scores[p] == best]
        tiebreak = g.rules.code.get(f"end/{rule.get('id')}/tiebreak")
        if len(winners) > 1 and tiebreak is not None:  # the end rule's tie-break decides among the tied
            values = {p: tiebreak(Ctx(g, {}, p, None)) or 0 for p in winners}
            winners = [p for p in winners if values[p] == max(values.values())]
    else:
        winners = []
    state["result"] = {
        "winners": winners,
        "scores": scores,
        "reason": ending.get("rule"),
        "turns": state["turn"]["number"],
    }
    state["stage"] = "over"
    state["pending"] = None
    g.log(
        f"The game ends. Winner(s): {', '.join(winners) or 'none'}"
        + (f"; {counter}: " + ", ".join(f"{p} {v}" for p, v in scores.items()) if scores else "")
    )
