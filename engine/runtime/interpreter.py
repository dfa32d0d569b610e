"""Running effects: the frames on the state's stack, the answers that resume them, and the loop that
goes on until someone must decide.

`advance` is the loop: answer what has only one possible answer, run the innermost frame, else let the
turn driver (driver.py) say what comes next. A frame runs as its lowered Python (lowering.py) from the
step it is at, else step by step here (`interpret`, the reference the lowered functions follow). An
answer (`answer`) resumes the verb that asked it (verbs.py), or starts the action chosen from the menu.
`Game` binds these functions as its methods (`g._advance()`, `g.push(...)`): the hot path
`apply -> _answer -> _advance` pays no extra call, and `advance` calls a frame's lowered function itself
(as `run_frame` does: `first_entry` works it out the first time a frame runs from a step). An answer only kept,
while others still answer the same decision at once, skips `advance` when it would stop at once (`Game.settled`).
"""

from __future__ import annotations

from . import lowering
from .budget import MAX_INT, STEP_BUDGET, bounded_int, spend
from .context import Ctx
from .driver import nothing_left, start_action
from .driver import step as driver_step
from .errors import PYTHON_ERRORS, ContentError, GameError, at_text, values_error
from .lowering import first_entry
from .protocol import ASKED_ALWAYS, CHANCE, SIMULTANEOUS, allowed_for
from .state import State
from .undo import fail
from .why import dead_end

MAX_FRAMES = 64  # effects performing effects
# (frame, context) of the verb `resume_verb` last finished: the run of that frame from its next step, which `advance`
# makes next, takes the same context rather than a new one (a frame's context holds only what the frame does: its
# locals, player and card, and a depth back to 0). One cell for the process, made once and changed in place; its
# frame and game are compared by identity, so that another game's or frame's is never taken (switch: tests).
RESUMED: list = [None]
CONTEXT_KEPT = True


def push(g, code_key: str, me, card=None, env=None):
    """Start an effect: a new frame on top of the stack, run by `advance`."""
    stack = g.state["stack"]
    if len(stack) >= MAX_FRAMES:
        raise ContentError(f"effects perform each other more than {MAX_FRAMES} deep", code_key, code="X104")
    stack.append({"code": code_key, "pc": 0, "env": env or {}, "me": me, "card": card, "wait": None})


def answer(g, player, option):
    """One player's answer to the pending decision: kept until everyone who answers at once has, then
    given to the verb that asked (or, on the turn's menu, the action it names is started).
    True: the answer was only kept, and a run of `advance` would stop at once at the same decision (`settled`)."""
    state: State = g.state
    pending = state["pending"]
    answers = None  # (`in`, then the item: compiled, it costs less than a call of `get`; most decisions have none)
    if "answers" in pending:
        answers = pending["answers"]
    if len(pending["by"]) > 1 or answers is not None:
        if answers is None:  # (the verbs that ask several at once make it: no empty dict made for each answer kept)
            answers = pending["answers"] = {}
        answers[player] = option
        by = pending["by"] = [other for other in pending["by"] if other != player]  # those yet to answer
        if by:
            return g.settled is pending and (len(by) > 1 or settled_alone(g, pending))
        # (a comprehension: compiled, a loop of its own, for less than a list made of a `map` of a method's wrapper)
        given = [answers[asked] for asked in pending["order"]]
        if state["attempt"] is not None:
            state["attempt"]["path"].append(",".join(map(str, given)))
            state["attempt"]["counts"].append(-1)  # answers of several players: never pruned
        state["pending"] = None
        resume_verb(g, state["stack"][-1], given)
        return
    state["pending"] = None
    attempt = state["attempt"]
    if attempt is not None:
        attempt["path"].append(option)
        attempt["counts"].append(len(pending["options"]))
    if pending["kind"] == "action":
        start_action(g, pending["options"][option], pending, option)
        return
    resume_verb(g, state["stack"][-1], option)


def settled_alone(g, pending) -> bool:
    """`advance` stopped at `pending` (`Game.settled`) and one player is left to answer it: would it stop at once
    again? Yes unless it answers that player itself (one live option: its first two checks); the player's own
    answers were found not to be one alone when it stopped (its third), and they have not changed since."""
    return pending["kind"] in ASKED_ALWAYS or pending["by"][0] == CHANCE or len(g._live_now(pending)[0]) != 1


def resume_verb(g, frame, given):
    """The verb the innermost frame waits at takes the answer; it finishes or asks again."""
    code = g.rules.code[frame["code"]]
    verb = code.steps[frame["pc"]][1]
    c = Ctx(g, frame["env"], frame["me"], frame["card"])
    try:
        pending = verb.resume(g, c, frame, given)
    except ContentError as exc:
        at_text(exc, code.key, code.offsets[frame["pc"]])
        raise
    except PYTHON_ERRORS as exc:
        raise values_error(exc, code.key, code.offsets[frame["pc"]]) from None
    if pending is None:
        frame["wait"] = None
        frame["pc"] += 1
        if CONTEXT_KEPT:
            RESUMED[0] = (frame, c)
    else:
        g.state["pending"] = pending


def run_frame(g):
    """Run the innermost effect until it ends or waits: its lowered Python (lowering.py) from the step
    its frame is at, else (no such function, or near the step budget) step by step."""
    frame = g.state["stack"][-1]
    code = g.rules.code[frame["code"]]
    if not lowering.run_lowered(g, frame, code):
        interpret(g, frame, code)


def interpret(g, frame, code):
    """The effect's steps one by one, from where its frame is: the reference the lowered functions
    follow, and what runs frames saved at a step no function starts from."""
    state: State = g.state
    steps = code.steps
    ctx = Ctx(g, frame["env"], frame["me"], frame["card"])
    env = frame["env"]
    while True:
        pc = frame["pc"]
        if pc >= len(steps):
            state["stack"].pop()
            return
        state["steps"] += 1
        if state["steps"] > STEP_BUDGET:
            raise ContentError(
                f"the effect ran more than {STEP_BUDGET} steps without a decision",
                code.key,
                code.offsets[pc],
                code="X105",
            )
        step = steps[pc]
        op = step[0]
        try:
            if op == "verb":  # ("verb", VerbStep): the verb's class in verbs.py, made by verbs.compile_verb
                outcome = step[1].run(g, ctx, frame)
                if outcome is None:
                    frame["pc"] = pc + 1
                    continue
                lowering.stopped(g, frame, ctx, code, pc, outcome)  # failed, yielded or asks
                return
            if op == "let":
                value = step[2](ctx)
                if type(value) is int and not -MAX_INT <= value <= MAX_INT:
                    bounded_int(value)
                env[step[1]] = value
            elif op == "unless":
                if not step[1](ctx):
                    frame["pc"] = step[2]
                    continue
            elif op == "jump":
                frame["pc"] = step[1]
                continue
            elif op == "repeat_init":
                count = step[2](ctx)
                env[step[1]] = max(0, int(count or 0))
            elif op == "repeat_next":
                if env[step[1]] <= 0:
                    frame["pc"] = step[2]
                    continue
                env[step[1]] -= 1
            elif op == "for_init":
                items = g.items_of(step[2](ctx))
                spend(g, len(items))
                env[step[1]] = [items, 0]
            elif op == "for_next":
                items, i = env[step[1]]
                if i >= len(items):
                    frame["pc"] = step[3]
                    continue
                env[step[2]] = items[i]
                env[step[1]][1] = i + 1
            elif op == "stop":
                state["stack"].pop()
                return
        except ContentError as exc:
            at_text(exc, code.key, code.offsets[pc])
            raise
        except PYTHON_ERRORS as exc:
            raise values_error(exc, code.key, code.offsets[pc]) from None
        frame["pc"] = pc + 1


def advance(g):
    """Run until someone must decide or the game is over."""
    state: State = g.state
    state["steps"] = 0
    if state["stage"] == "over":
        return
    codes = g.rules.code
    while True:  # until a decision, or the game's end (only the driver ends it: driver._result)
        pending = state["pending"]
        if pending is not None:
            by = pending["by"]
            # one option, one player and no dead end known: its one option is live, answered as below at once; on a
            # menu (asked all the same, by one player: no answer kept) nothing more is worked out: a bot's look-ahead
            # stops so at each other player's menu (driver._main)
            if len(pending["options"]) == 1 and len(by) == 1 and not state["dead"]:
                kind = pending["kind"]
                if kind not in ASKED_ALWAYS and by[0] != CHANCE:
                    answer(g, by[0], 0)
                    continue
                if kind == "action":
                    return
            live, legal = g._live_now(pending)  # live_options, once per decision (Game._live_now)
            if not live:
                if state["attempt"] is not None:
                    fail(g, dead_end(g, pending.get("prompt", "")))
                    continue
                if pending["kind"] == "action":  # a menu without "end turn" whose every action failed
                    nothing_left(g)
                    continue
                raise GameError(f"nobody can answer: {pending.get('prompt', '')}", code="X302")
            kind = pending["kind"]
            if len(live) == 1 and len(by) == 1 and kind not in ASKED_ALWAYS and by[0] != CHANCE:
                answer(g, by[0], live[0])
                continue
            if kind in SIMULTANEOUS:  # answered by several players at once
                if kind in _FORCED_EACH:  # those with one possible answer give it at once
                    forced = []
                    for player in by:
                        own = legal.get(player)  # Game._legal_now, without going through the game again
                        if own is None:
                            own = legal[player] = allowed_for(pending, player, live)
                        if len(own) == 1:
                            forced.append((player, own[0]))
                    if forced:
                        for player, option in forced:
                            answer(g, player, option)
                        continue
                g.settled = pending  # nobody answered at once: neither will anyone when an answer is only kept (answer)
            return
        stack = state["stack"]
        if stack:  # run_frame, without its call
            frame = stack[-1]
            code = codes[frame["code"]]
            try:
                run = code.entries[frame["pc"]]
            except (KeyError, TypeError):  # never run from this step yet (no entries at all: None)
                run = first_entry(code, frame["pc"])
            kept = RESUMED[0]  # the context `resume_verb` just gave this frame's verb, if it was this frame's
            if kept is not None and kept[0] is frame and kept[1].g is g:
                RESUMED[0] = None
                c = kept[1]
            else:
                c = Ctx(g, frame["env"], frame["me"], frame["card"])
            if run is None or not run(g, frame, c):
                interpret(g, frame, code)
            continue
        driver_step(g)
        if state["stage"] == "over":
            return


_FORCED_EACH = ("secret", "bid")  # answered by everyone at once: a player with one possible answer gives it
