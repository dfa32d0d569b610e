"""Effects lowered to Python: the steps of an effect (compiler.py) become Python functions that run many
steps at once, split where a verb may wait, the way async functions are lowered to state machines
(DESIGN §6). A verb waits when it asks a decision, pushes another effect, ends the turn or fails.

`Code.entries` maps a step index to the function that runs the effect from there: step 0, and the step
after each verb that may wait (`entry`, built on first use). The frame in the state stays plain data (code
key, step index, locals in `frame["env"]`), so saves, clones and replays work mid-effect; a frame at any
other step (a save written elsewhere, a run near the step budget) goes on in the step interpreter
(`interpreter.interpret`), which does exactly the same.

Every step is counted in `state["steps"]` as the interpreter counts it: a straight run of steps is paid
for at once before it starts, and a run that would pass the budget is left to the interpreter, which stops
at the very step. Nothing of the content becomes code: the source names steps by their index, and locals,
the flags and counters of the plainest verbs and their texts only through `repr`; expressions and verbs are
bound in the namespace as objects.
"""

from __future__ import annotations

import ast
import builtins
import functools
import io
import re
import tokenize

from . import verbs
from .ahead import define
from .budget import MAX_INT, STEP_BUDGET, bounded_int, out_of_work, spend
from .codegen import _EMPTY_MAPPING, _IDENTIFIER, text_keyed
from .context import Ctx
from .counter_visibility import read_by_all
from .errors import PYTHON_ERRORS, ContentError, at_text, values_error
from .log_words import log_counted, log_unchanged
from .protocol import ASKED_ALWAYS, CHANCE
from .why import failed_step

# Verbs that never wait: a hint only (no continuation is built after them); should one wait all the same,
# the effect goes on in the interpreter from the step after it.
NEVER_WAIT = frozenset(
    {
        "gain",
        "lose",
        "set",
        "draw",
        "take",
        "move",
        "discard",
        "remove",
        "give",
        "reveal",
        "shuffle",
        "turn",
        "flag",
        "unflag",
        "log",
        "slide",
    }
)
# Verbs whose `run` (as read here when this module loads) only ever returns None: called without testing what
# it returns. By exact class, and only while the verb still runs that very function (a patched verb is tested).
RETURNS_NOTHING = {
    cls: cls.run
    for cls in (
        verbs.Gain,
        verbs.Lose,
        verbs.Set,
        verbs.Draw,
        verbs.Move,
        verbs.Take,
        verbs.Discard,
        verbs.Remove,
        verbs.Give,
        verbs.Reveal,
        verbs.Shuffle,
        verbs.Turn,
        verbs.Flag,
        verbs.Unflag,
        verbs.Log,
        verbs.Slide,
    )
}
# Verbs whose `run` (as read here when this module loads) returns None or "yield" (it pushed an effect), nothing else.
YIELDS_OR_NOTHING = {verbs.Perform: verbs.Perform.run}
INLINING = True  # the commonest shapes of `flag`, `unflag`, `gain`, `lose` and `log` written into the code (tests: off)
INLINED_EXPRESSIONS = True  # the plainest expressions' bodies written into the code, without their calls (tests: off)
INLINED_READS = True  # expressions that only read, but may raise, written into the code in a `try` (tests: off)
TESTED_ONCE = True  # the budget tested once for the most steps before a loop, not at each run (tests: off)
MIRRORED_LOCALS = True  # locals this function set read from Python variables, not the frame (tests: off)
INLINED_CALLS = True  # other expressions of one Python expression written into the code, with their errors' places
INLINED_STOPS = True  # a verb that pushed an effect or asks a decision stops the run without `stopped` (tests: off)
FORCED_AT_ONCE = True  # a decision with one possible answer, answered in the run that asked it (tests: off)
PERFORMED_AT_ONCE = True  # a `perform` runs its effect from the caller's run, which goes on after it (tests: off)
MAX_NESTING = 12  # blocks inside blocks; deeper effects stay interpreted (Python's own limit is 20)
MAX_SOURCE_LINES = 20_000  # a bigger function stays interpreted: compiling it would cost more than it saves


def entry(code, pc: int):
    """The function running `code` from step `pc`, or None where the interpreter runs it."""
    if pc != 0:
        waits = (
            pc - 1 < len(code.steps)
            and code.steps[pc - 1][0] == "verb"
            and code.steps[pc - 1][1].name not in NEVER_WAIT
        )
        if not waits:
            return None
    try:
        path = _path_to(code.tree, pc - 1) if pc else []
        if path is None:
            return None
        depth, size = _shape(code.tree)
        if depth > MAX_NESTING or size != len(code.steps):
            return None  # (a tree that does not hold every step: code not made by the compiler)
        lowering = _Lowering(code)
        return lowering.function(pc, lowering.ops(code.tree) if pc == 0 else lowering.continuation(path))
    except (SyntaxError, RecursionError, MemoryError, ValueError, OverflowError):  # Python's own limits
        return None


def first_entry(code, pc: int):
    """The lowered function that runs `code` from step `pc` (`entry`; None: none, the steps are interpreted), worked
    out the first time a frame runs from there and kept in `code.entries`."""
    entries = code.entries
    if entries is None:
        entries = code.entries = {}
    run = entries[pc] = entry(code, pc)
    return run


def run_lowered(g, frame, code) -> bool:
    """Run `frame` (of `code`) by its lowered function from the step it is at: True when it ran until it ended or
    waits; False when the interpreter must run it (no such function, or a run that might pass the step budget)."""
    try:
        run = code.entries[frame["pc"]]
    except (KeyError, TypeError):  # never run from this step yet (no entries at all: None)
        run = first_entry(code, frame["pc"])
    return run is not None and run(g, frame, Ctx(g, frame["env"], frame["me"], frame["card"]))


def run_performed(g, frame) -> bool:
    """A lowered effect at `frame` just pushed another (`perform`): run that one now, as `advance` would next. True
    when it ended asking nothing and `frame` is the innermost again, at the step after the `perform`: what `advance`
    would do next is run `frame` from there, which the lowered caller does itself, without returning to be called
    again (PERFORMED_AT_ONCE). False when it asked, pushed another, failed (a frame restored by an undo is another
    dict) or is left to the interpreter (no lowered function, or near the budget): `advance` goes on from there."""
    state = g.state
    pushed = state["stack"][-1]
    if not run_lowered(g, pushed, g.rules.code[pushed["code"]]):
        return False
    stack = state["stack"]
    return state["pending"] is None and len(stack) > 0 and stack[-1] is frame


def answered_at_once(g, frame, c, verb, pending):
    """`pending`, just asked by `verb` of a lowered effect at `frame`, when `advance` would not answer it itself at
    once; else it is answered here as `interpreter.answer` and `resume_verb` would answer it (its one option, and the
    attempt's path), and what the verb asks next is looked at again: None when the verb is done and the run goes on at
    the next step, without stopping for `advance` to answer and run the frame again (FORCED_AT_ONCE). At once means:
    one option, one player who is not chance, a kind not asked always, no answers kept, no dead end known."""
    state = g.state
    while (
        len(pending["options"]) == 1
        and len(pending["by"]) == 1
        and not state["dead"]
        and pending["kind"] not in ASKED_ALWAYS
        and pending["by"][0] != CHANCE
        and "answers" not in pending
    ):
        attempt = state["attempt"]
        if attempt is not None:
            attempt["path"].append(0)
            attempt["counts"].append(1)
        pending = verb.resume(g, c, frame, 0)
        if pending is None:
            frame["wait"] = None
            return None
    return pending


def stopped(g, frame, c, code, pc: int, outcome, steps: int | None = None) -> bool:
    """A verb at step `pc` did not simply finish: it failed, pushed effects or ended the turn ("yield"), or
    asks a decision. The frame records where it stands (and `steps`, the steps counted so far, when a
    lowered function gives them); True (this run of the frame is over)."""
    if steps is not None:
        g.state["steps"] = steps
    if outcome == "fail":
        frame["pc"] = pc
        g.fail(failed_step(g, c, frame, code.steps[pc][1], code.key, code.offsets[pc]))
    elif outcome == "yield":
        frame["pc"] = pc + 1
    else:
        frame["pc"] = pc
        g.state["pending"] = outcome
    return True


def over_budget(g, frame, pc: int, steps: int) -> bool:
    """A straight run from step `pc` would pass the step budget: the interpreter goes on from there (False)."""
    frame["pc"] = pc
    g.state["steps"] = steps
    return False


def _shape(nodes) -> tuple[int, int]:
    """How many blocks deep the tree nests, and how many steps it holds (one walk: each entry asks both)."""
    deepest = total = 0
    for node in nodes:
        kind = node[0]
        if kind == "step":
            total += 1
            continue
        if kind == "if":
            bodies = [body for _, body, _ in node[1]]
            total += 2 * len(bodies)
            if node[2] is not None:
                bodies.append(node[2])
        else:
            bodies = [node[3]]
            total += 3
        for body in bodies:
            depth, size = _shape(body)
            total += size
            if depth >= deepest:
                deepest = depth + 1
    return deepest, total


def _path_to(nodes, pc, enclosing=("root",)):
    """[(nodes, index, enclosing)] from the innermost body holding step `pc` out to the effect itself;
    enclosing: ("root",), ("else",), ("branch", jump pc) or ("loop", loop node). None if `pc` is no step
    of the tree (a step of control flow)."""
    for i, node in enumerate(nodes):
        if node[0] == "step":
            if node[1] == pc:
                return [(nodes, i, enclosing)]
            continue
        if node[0] == "if":
            inner = [(body, ("branch", jump)) for _, body, jump in node[1]]
            if node[2] is not None:
                inner.append((node[2], ("else",)))
        else:
            inner = [(node[3], ("loop", node))]
        for body, how in inner:
            found = _path_to(body, pc, how)
            if found is not None:
                return found + [(nodes, i, enclosing)]
    return None


class _Lowering:
    """The Python source of one effect's entries. Ops: ("simple", pc, render) one counted step whose lines
    `render(correction)` gives (correction: the steps of its run after it, uncounted if it stops the run);
    ("branch", unless pc, then ops, else ops); ("loop", kind, head pc, slot, variable, body ops)."""

    def __init__(self, code):
        self.code = code
        self.bound = 0  # the most steps the budget test covering the step being written was made for (`_emit`)
        self.namespace = text_keyed(
            {
                "ContentError": ContentError,
                "PYTHON_ERRORS": PYTHON_ERRORS,  # placed as interpreter.py places them (errors.py)
                "at_text": at_text,
                "values_error": values_error,
                "BUDGET": STEP_BUDGET,
                "MAX_INT": MAX_INT,
                "bounded_int": bounded_int,
                "spend": spend,
                "out_of_work": out_of_work,
                "stopped": stopped,
                "over_budget": over_budget,
                "CODE": code,
                "KEY": code.key,
                "OFFSETS": code.offsets,
                "log_counted": log_counted,
                "log_unchanged": log_unchanged,
                "read_by_all": read_by_all,
                "one_number": verbs._one_number,
                "_EMPTY_MAPPING": _EMPTY_MAPPING,  # (a flag read written into the code: `_flag_read`)
                "_REDO": _REDO,  # (an expression that only reads, written into a `try`: `_read`)
                "_redo": _redo,
                "performed": run_performed,  # (a `perform` run at once: `_performed`)
                "answered_at_once": answered_at_once,  # (a decision with one possible answer: `_verb`)
            }
        )

    def _bind(self, prefix: str, pc: int, value) -> str:
        name = f"{prefix}{int(pc)}"
        self.namespace[name] = value
        return name

    def _value(self, prefix: str, pc: int, expression) -> str:
        """The source of `expression(c)`, bound as `_bind` binds it: the expression's body itself when it is
        one of the plainest (`_inlined`: a constant, a local read, `not`, a comparison...), else its call."""
        name = self._bind(prefix, pc, expression)
        body = getattr(expression, "inline_body", None)
        if INLINED_EXPRESSIONS and type(body) is str:
            source = _inlined(body, f"{name}(c)")
            if source is not None:
                return f"({source})"
        return f"{name}(c)"

    def _read(self, prefix: str, pc: int, expression, target: str) -> tuple[list[str], str] | None:
        """Lines setting `target` to `expression(c)`, bound as `_bind` binds it, and the source written in its `try`,
        for an expression that only reads (`_read_only`: `players`, a flag of any holder,
        `g.params[...]`, a field from the pack's table...) but is not of the plainest (`_value`); else None. Its body
        runs in a `try`: any error, and any helper whose value would be the whole expression's, gives `_REDO`, and
        the expression is called after all. Its body changed nothing before, so the call reads the same again and
        gives the same value, or raises its own error at its own text, with the same work charged."""
        name = self._bind(prefix, pc, expression)
        body = getattr(expression, "inline_body", None)
        if INLINED_EXPRESSIONS and INLINED_READS and type(body) is str and _inlined(body, f"{name}(c)") is None:
            found = _read_only(body)
            held = getattr(expression, "namespace", None)
            if found is not None and held is not None:
                source, names = found
                namespace = self.namespace
                if all(word in held and namespace.get(word, held[word]) is held[word] for word in names):
                    namespace.update((word, held[word]) for word in names)
                    lines = ["try:", f"    {target} = {source}", "except Exception:", f"    {target} = _REDO"]
                    return [*lines, f"if {target} is _REDO:", f"    {target} = {name}(c)"], source
        return None

    def _called(self, prefix: str, pc: int, expression, target: str) -> list[str] | None:
        """Lines setting `target` to `expression(c)`, bound as `_bind` binds it, for an expression neither of the
        plainest (`_value`) nor that only reads (`_read`) whose value is one Python expression (codegen
        `inline_body`): that expression written in the code, in a `try` that does what the expression's own function
        does with an error (codegen `_returned`: placed at the expression's text). The same reads, work and errors
        in the same order as its call, without the call (`c.g` is `g`, `c.env` is `E`); else None."""
        self._bind(prefix, pc, expression)
        body = getattr(expression, "inline_body", None)
        at = getattr(expression, "inline_at", None)
        held = getattr(expression, "namespace", None)
        if not (INLINED_EXPRESSIONS and INLINED_CALLS and type(body) is str and type(at) is tuple and held):
            return None
        if _inlined(body, f"{prefix}{int(pc)}(c)") is not None:
            return None  # (written as it is by `_value`)
        names = _free_names(body)
        if names is None or any(held.get(word) is not mine for word, mine in _HANDLERS):
            return None
        namespace = self.namespace
        renamed = {}
        for word in names:
            if word in held:
                if namespace.get(word, held[word]) is not held[word]:
                    renamed[word] = f"{word}__{prefix}{int(pc)}"  # (another object of that name: a getter of its own)
                    if renamed[word] in namespace:
                        return None
            elif word in namespace or not hasattr(builtins, word):
                return None  # (a built-in in both, or nothing this can tell)
        if renamed:
            body = _renamed(body, renamed)
            if body is None:
                return None
        namespace.update((renamed.get(word, word), held[word]) for word in names if word in held)
        key, offset = repr(str(at[0])), int(at[1])
        return [
            "try:",
            f"    {target} = {body}",
            "except PYTHON_ERRORS as exc:",
            f"    raise values_error(exc, {key}, {offset}) from None",
            "except ContentError as exc:",
            f"    at_text(exc, {key}, {offset})",
            "    raise",
        ]

    # ------------------------------------------------------------ the tree as ops
    def ops(self, nodes) -> list:
        ops = []
        for node in nodes:
            kind = node[0]
            if kind == "step":
                ops.append(self._simple(node[1]))
            elif kind == "if":
                otherwise = self.ops(node[2]) if node[2] is not None else []
                for unless, body, jump in reversed(node[1]):
                    otherwise = [("branch", unless, self.ops(body) + [self._count(jump)], otherwise)]
                ops.extend(otherwise)
            else:
                ops.append(self._simple(node[1]))
                ops.append(self._loop(node))
        return ops

    def continuation(self, path) -> list:
        """What runs after the innermost step of `path`: the rest of each enclosing body, a loop's next
        rounds, out to the end of the effect."""
        ops = []
        for nodes, index, enclosing in path:
            ops.extend(self.ops(nodes[index + 1 :]))
            if enclosing[0] == "branch":
                ops.append(self._count(enclosing[1]))
            elif enclosing[0] == "loop":
                ops.append(self._count(enclosing[1][4]))
                ops.append(self._loop(enclosing[1]))
        return ops

    def _count(self, pc):
        """A jump: a step that is counted and does nothing else (the code's structure does the jumping)."""
        return ("simple", pc, lambda correction: [])

    def _loop(self, node):
        kind, _init, head, body, back = node
        step = self.code.steps[head]
        variable = step[2] if kind == "for" else None
        return ("loop", kind, head, step[1], variable, self.ops(body) + [self._count(back)])

    def _simple(self, pc):
        step = self.code.steps[pc]
        op = step[0]
        if op == "let":
            value = self._value("X", pc, step[2])
            read = self._read("X", pc, step[2], "v")
            setting = read[0] if read is not None else self._called("X", pc, step[2], "v") or [f"v = {value}"]
            checked = [
                f"if type(v) is int and not {-MAX_INT} <= v <= {MAX_INT}:",  # the bounds as constants
                "    bounded_int(v)",
            ]
            if _small_constant(value):
                checked = []  # (a constant written into the code that no bound refuses)

            def render(correction):
                return [f"pc = {pc}", *setting, *checked, f"E[{step[1]!r}] = {_mirror(step[1])}v"]
        elif op == "verb":
            render = self._verb(pc, step[1])
        elif op == "stop":

            def render(correction):
                return [f"state['steps'] = steps - {correction}", "state['stack'].pop()", "return True"]
        elif op == "repeat_init":
            count = self._value("X", pc, step[2])

            def render(correction):
                return [f"pc = {pc}", f"E[{step[1]!r}] = max(0, int({count} or 0))"]
        elif op == "for_init":
            read = self._read("X", pc, step[2], "items")
            called = self._called("X", pc, step[2], "items") if read is None else None
            if called is not None:
                setting = [*called, "items = g.items_of(items)"]
            elif read is None:  # (the value written into `items_of`'s call)
                setting = [f"items = g.items_of({self._value('X', pc, step[2])})"]
            elif _seats(read[1]):  # a new list of players' names: as `items_of`'s copy of it, without the call; the
                called = self._bind("X", pc, step[2])  # expression's own, called after all, copied as ever
                setting = [*read[0][:-1], f"    items = g.items_of({called}(c))"]
            else:
                setting = [*read[0], "items = g.items_of(items)"]

            def render(correction):
                return [
                    f"pc = {pc}",
                    *setting,
                    "g.work -= len(items)",  # (`spend`, without its call: every loop starts so)
                    "if g.work < 0:",
                    "    out_of_work()",
                    f"E[{step[1]!r}] = [items, 0]",
                ]
        else:  # pragma: no cover -- the tree holds no other steps
            raise ValueError(f"step {op} in a block")
        return ("simple", pc, render)

    # ------------------------------------------------------------ verbs
    def _verb(self, pc: int, verb):
        """The lines of a verb's step: the verb's work itself for the plainest shapes of the simplest verbs
        (`_INLINED`), else a call of its `run`, whose outcome is tested unless it can only be None."""
        kind = type(verb)
        ran_function = getattr(verb.run, "__func__", None)
        if PERFORMED_AT_ONCE and INLINED_STOPS and ran_function is YIELDS_OR_NOTHING.get(kind):
            return self._performed(pc, verb)
        if ran_function is not RETURNS_NOTHING.get(kind):
            run = self._bind("V", pc, verb.run)
            ran = [f"pc = {pc}", f"out = {run}(g, c, frame)"]
            if not INLINED_STOPS:
                return lambda correction: [
                    *ran,
                    f"if out is not None: return stopped(g, frame, c, CODE, {pc}, out, steps - {correction})",
                ]
            # `stopped` without its call for a verb that pushed an effect ("yield") or asks a decision, the commonest;
            # a decision `advance` would answer at once (one option...) answered here, the run going on (`FORCED_AT_ONCE`)
            stops = "if out is not None:"
            if FORCED_AT_ONCE:
                asked = self._bind("W", pc, verb)
                stops = (
                    "if out is not None and (type(out) is not dict or len(out['options']) != 1"
                    f" or (out := answered_at_once(g, frame, c, {asked}, out)) is not None):"
                )
            return lambda correction: [
                *ran,
                stops,
                f"    state['steps'] = steps - {correction}",
                "    if out == 'yield':",
                f"        frame['pc'] = {pc + 1}",
                "    elif out == 'fail':",
                f"        return stopped(g, frame, c, CODE, {pc}, out)",
                "    else:",
                f"        frame['pc'] = {pc}",
                "        state['pending'] = out",
                "    return True",
            ]
        inline = _INLINED.get(kind) if INLINING else None
        lines = inline(self, pc, verb) if inline is not None else None
        if lines is None:
            lines = [f"pc = {pc}; {self._bind('V', pc, verb.run)}(g, c, frame)"]
        return lambda correction: lines

    def _performed(self, pc: int, verb):
        """A verb that pushes an effect or does nothing (`perform`): the effect pushed is run at once
        (`run_performed`), and when it ended asking nothing this run goes on after the verb, rather than
        stop for `advance` to run that effect and then this frame again from the next step. The rest of the run is
        counted again, as the next step's entry would count it; first the budget is tested for the most steps the
        run may still count (`self.bound`, the test that covers this step): when it might not cover them, the run
        stops there all the same, and the next step's entry (or the interpreter) goes on exactly."""
        run = self._bind("V", pc, verb.run)

        def render(correction):
            return [
                f"pc = {pc}",
                f"if {run}(g, c, frame) is not None:",
                f"    frame['pc'] = {pc + 1}",
                f"    state['steps'] = steps - {correction}",
                f"    if not performed(g, frame) or (steps := state['steps']) + {self.bound} > BUDGET:",
                "        return True",
                f"    steps += {correction}",
            ]

        return render

    # What the plainest shapes of `Flag.run`, `Gain.run` and `Log.run` do, specialised on what the verb fixes when
    # it is built (a `Fixed` flag, counter, amount or text; no `on`/`at`): the same reads, changes, log entries,
    # work and errors, in the same order. None: the verb has another shape, and is called.
    def _flag(self, pc: int, verb) -> list[str] | None:
        flag = verb.flag
        if verb.flag_of is not None or type(flag) is not str or len(verb.args) > 1 + (verb.for_player is not None):
            return None  # (a flag's name is a `name`: always text)
        before, player = self._player(pc, verb)
        return [(_FLAG if verb.on else _UNFLAG).format(pc=pc, before=before, player=player, flag=repr(flag))]

    def _gain(self, pc: int, verb) -> list[str] | None:
        counter, amount = verb.counter, verb.amount
        if verb.counter_of is not None or type(counter) is not str or verb.on_card is not None:
            return None
        if verb.at_key is not None or len(verb.args) > 2 + (verb.for_player is not None):
            return None
        before = ""
        if verb.amount_of is not None:
            sign = "-" if verb.sign < 0 else ""  # (`Lose`: -1, `Gain`: 1)
            before = f"n = {sign}int({self._value('A', pc, verb.amount_of)} or 0); "
            amount = "n"
        elif amount is None or type(amount) is int and -MAX_INT <= amount <= MAX_INT:
            amount = int(amount or 0) * verb.sign
        else:
            return None
        named, player = self._player(pc, verb)
        text = _GAIN.format(
            pc=pc, before=before + named, player=player, counter=repr(counter), amount=amount, sign=verb.sign
        )
        return text.split("\n")

    def _player(self, pc: int, verb) -> tuple[str, str]:
        """Whom the verb is done for (`VerbStep.player`): the statement working it out, and what names it."""
        if verb.for_player is None:
            return "", "c.me"
        player = self._value("P", pc, verb.for_player)
        if player == "(c.me)":  # `for me`: `c.me or c.me` is `c.me`
            return "", "c.me"
        return f"player = {player} or c.me; ", "player"

    def _log(self, pc: int, verb) -> list[str] | None:
        if len(verb.args) > 1:
            return None
        if verb.message_of is not None:
            return [f"pc = {pc}; v = str({self._value('M', pc, verb.message_of)}); spend(g, len(v)); g.log(v)"]
        text = str(verb.message)
        return [f"pc = {pc}; spend(g, {len(text)}); g.log({text!r})"]

    # ------------------------------------------------------------ ops as Python source
    def function(self, pc: int, ops):
        lines = [
            f"def run_from_{int(pc)}(g, frame, c):",
            "    state = g.state",
            "    E = frame['env']",
            "    steps = state['steps']",
            f"    pc = {int(pc)}",
            "    try:",
        ]
        self._emit(ops, 2, lines, 0)
        lines += [
            "        state['steps'] = steps",
            "        state['stack'].pop()",
            "        return True",
            "    except ContentError as exc:",
            "        at_text(exc, KEY, OFFSETS[pc])",
            "        raise",
            "    except PYTHON_ERRORS as exc:",
            "        raise values_error(exc, KEY, OFFSETS[pc]) from None",
        ]
        if len(lines) > MAX_SOURCE_LINES:
            return None
        namespace = self.namespace
        define("\n".join(lines) + "\n", f"<lowered {self.code.key}>", namespace)  # (compiled ahead, or now)
        return namespace[f"run_from_{int(pc)}"]

    def _emit(
        self, ops, indent: int, lines: list, depth: int, paid: bool = False, tested: bool = False, known=None, bound=0
    ):
        """`paid`: the first straight run of `ops` is counted already (a loop's round counts it with its head).
        `tested`: the budget was tested for the most steps `ops` may count before a loop (`_most_steps`); `bound`:
        the steps that test was for, which no run after it passes before the next test.
        `known`: the locals certainly in the frame here, each also in its Python variable (`_mirror`): their reads
        are that variable (`_mirrored`); the set, changed to what is known after `ops`."""
        pad = "    " * indent
        known = set() if known is None else known
        i, n = 0, len(ops)
        while i < n:
            start = i
            run = []
            while i < n and ops[i][0] == "simple":
                run.append(ops[i])
                i += 1
            branch = ops[i] if i < n and ops[i][0] == "branch" else None
            if branch is not None:
                i += 1
            total = len(run) + (branch is not None)
            if total:
                if tested and not paid and TESTED_ONCE:
                    lines.append(f"{pad}steps += {total}")
                elif not paid:
                    # total > 0 and no run: there is a branch (mypy does not tie `total` to `branch`)
                    at = run[0][1] if run else branch[1]  # type: ignore[index]
                    bound = _most_steps(ops[start:]) if TESTED_ONCE else total
                    self._pay(at, total, pad, lines, bound)
                    tested = True
                self.bound = bound
                for k, (_, pc, render) in enumerate(run):
                    lines.extend(pad + _mirrored(line, known) for line in render(total - k - 1))
                    self._written(pc, known)
            paid = False
            if branch is not None:
                _, unless, then, otherwise = branch
                test = self.code.steps[unless][1]
                read = self._read("X", unless, test, "v")
                called = self._called("X", unless, test, "v") if read is None else None
                if called is not None:
                    tested_lines = [f"pc = {unless}", *called, "if v:"]
                elif read is None:  # (the value written into the test itself)
                    tested_lines = [f"pc = {unless}", f"if {self._value('X', unless, test)}:"]
                else:
                    tested_lines = [f"pc = {unless}", *read[0], "if v:"]
                lines.extend(pad + _mirrored(line, known) for line in tested_lines)
                after = self._emit(then, indent + 1, lines, depth, tested=tested, known=set(known), bound=bound)
                if otherwise:
                    lines.append(f"{pad}else:")
                    known = self._emit(otherwise, indent + 1, lines, depth, tested=tested, known=known, bound=bound)
                known &= after
                if _holds_loop(then) or _holds_loop(otherwise):
                    tested = False  # (the steps after a loop are not bounded: the next run tests the budget again)
            if i < n and ops[i][0] == "loop":
                known = self._emit_loop(ops[i], indent, lines, depth, known)
                tested = False
                i += 1
        return known

    def _written(self, pc: int, known: set) -> None:
        """What the step at `pc` does to the locals `known` (`_emit`): a `let` sets its local and its Python variable
        (`_mirror`); a verb called may bind its `as` local (the only local a verb sets)."""
        step = self.code.steps[pc]
        if step[0] == "let":
            if _mirror(step[1]):
                known.add(step[1])
        elif step[0] == "verb":
            known.discard(step[1].binds)

    def _bound_in(self, ops) -> set:
        """The locals the verbs among `ops` (in branches and loops too) may bind (`_written`)."""
        bound = set()
        for op in ops:
            if op[0] == "simple":
                step = self.code.steps[op[1]]
                if step[0] == "verb" and step[1].binds:
                    bound.add(step[1].binds)
            elif op[0] == "branch":
                bound |= self._bound_in(op[2]) | self._bound_in(op[3])
            else:
                bound |= self._bound_in(op[5])
        return bound

    def _emit_loop(self, op, indent, lines, depth, known: set) -> set:
        """A loop's rounds. A round counts its head's step and the first straight run of its body at once (the
        last round takes the run's steps back when it ends the loop); a round that would pass the budget is left
        to the interpreter from the head, which stops at the very step. A `for` keeps its [items, index] (the
        frame's local `slot`, made by its `for_init` just before) in a Python variable too. `known` (`_emit`): what
        is known at the head of every round, less what the body may bind, and, in the body, a `for`'s own local."""
        known = known - self._bound_in(op[5])
        _, kind, head, slot, variable, body = op
        pad = "    " * indent
        inner = pad + "    "
        first = _first_run(body)
        if kind != "repeat":
            lines += [f"{pad}loop{depth} = E[{slot!r}]", f"{pad}items{depth} = loop{depth}[0]"]
        lines.append(f"{pad}while True:")
        bound = 1 + (_most_steps(body) if TESTED_ONCE else first)
        self._pay(head, 1 + first, inner, lines, bound)
        ended = [f"{inner}    steps -= {first}"] if first else []
        lines.append(f"{inner}pc = {head}")
        if kind == "repeat":
            lines += [f"{inner}if E[{slot!r}] <= 0:", *ended, f"{inner}    break", f"{inner}E[{slot!r}] -= 1"]
        else:
            lines += [
                f"{inner}i{depth} = loop{depth}[1]",
                f"{inner}if i{depth} >= len(items{depth}):",
                *ended,
                f"{inner}    break",
                f"{inner}E[{variable!r}] = {_mirror(variable)}items{depth}[i{depth}]",
                f"{inner}loop{depth}[1] = i{depth} + 1",
            ]
        inside = known | {variable} if kind != "repeat" and _mirror(variable) else set(known)
        self._emit(body, indent + 1, lines, depth + 1, paid=first > 0, tested=True, known=inside, bound=bound)
        return known

    @staticmethod
    def _pay(pc, count, pad, lines, most: int):
        """Count a straight run of `count` steps from step `pc`, having tested the budget for the `most` steps that
        may be counted from there before a loop (`_most_steps`: the later runs count theirs untested); or leave all
        that to the interpreter when it might pass the budget (it stops at the very step, as it always did)."""
        lines += [
            f"{pad}if steps + {most} > BUDGET: return over_budget(g, frame, {pc}, steps)",
            f"{pad}steps += {count}",
        ]


# the names an expression's function binds to the same objects as the lowered code's (codegen `_returned`)
_HANDLERS = (
    ("_PYTHON_ERRORS", PYTHON_ERRORS),
    ("_values_error", values_error),
    ("ContentError", ContentError),
    ("_at_text", at_text),
)
_ITS_OWN = re.compile(r"_[it][0-9]+\Z")  # codegen's temporaries and loop variables (`_temporary`, `_item`)


@functools.lru_cache(maxsize=4096)
def _free_names(body: str) -> frozenset | None:
    """The names the source `body` (an expression's `inline_body`) reads from its namespace or the built-ins, less
    those of its function (`c`, `g`, `E`); None if it binds any but codegen's own (`_ITS_OWN`) or is not read."""
    try:
        tree = ast.parse(body, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    names: set[str] = set()
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (bound if type(node.ctx) is ast.Store else names).add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and type(node.ctx) is not ast.Load:
            return None
    if not all(_ITS_OWN.match(word) for word in bound):
        return None
    return frozenset(names - bound - {"c", "g", "E"})


def _renamed(body: str, names: dict) -> str | None:
    """The one line of source `body` with each name of `names` (a Python name, not a text nor an attribute) written
    as its value there; None if it is not one line read as tokens."""
    if "\n" in body or "\r" in body:
        return None
    tokens = _tokens(body)
    if tokens is None:
        return None
    spans = []
    for i, token in enumerate(tokens):
        if token.type == tokenize.NAME and token.string in names and token.start[0] == 1:
            after_dot = i > 0 and tokens[i - 1].string == "."
            if not after_dot:
                spans.append((token.start[1], token.end[1], names[token.string]))
    for start, end, word in reversed(spans):
        body = body[:start] + word + body[end:]
    return body


def _mirror(name) -> str:
    """The start of the statement setting a local's Python variable too (`_mirrored`), or "" for a name that is no
    plain local (a loop's slot, `$1`)."""
    return f"_e_{name} = " if MIRRORED_LOCALS and type(name) is str and _IDENTIFIER.match(name) else ""


# a local's read as codegen writes it, `_local` replaced by the expression's call or not (`_inlined`, `_read`)
_LOCAL_READ_SOURCE = re.compile(r"\(E\[('([a-z_][a-z0-9_]*)')\] if \1 in E else (?:[A-Z][0-9]+\(c\)|_local\(\1\))\)")


def _mirrored(line: str, known: set) -> str:
    """`line` with each read of a local `known` (`_Lowering._emit`: set in the frame by this function, and in its
    Python variable at the same time, with no verb called since that may bind it) read from the variable: the same
    value, without looking it up in the frame twice. Texts written in the line are left as they are."""
    if not known or not MIRRORED_LOCALS or " in E else " not in line:
        return line
    found = [m for m in _LOCAL_READ_SOURCE.finditer(line) if m[2] in known]
    if not found:
        return line
    texts = _text_spans(line)
    if texts is None:
        return line
    parts, at = [], 0
    for m in found:
        if any(start <= m.start() < end for start, end in texts):
            continue  # (inside a text: content, not code)
        parts += [line[at : m.start()], f"_e_{m[2]}"]
        at = m.end()
    return "".join(parts) + line[at:]


def _text_spans(line: str) -> list[tuple[int, int]] | None:
    """Where the string literals of a line of source are (offsets in it); None if it is not read as tokens."""
    body = line.lstrip()
    shift = len(line) - len(body)
    tokens = _tokens(body)
    if tokens is None:
        return None
    return [(shift + t.start[1], shift + t.end[1]) for t in tokens if t.type == tokenize.STRING and t.start[0] == 1]


def _tokens(source: str) -> list | None:
    """The tokens of a line of generated source (`_renamed`, `_text_spans`); None if it is not read as tokens."""
    try:
        return list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return None


def _most_steps(ops) -> int:
    """The most steps `_Lowering._emit` may count from the start of `ops` (any path through its branches) before it
    comes to a loop, whose rounds test the budget again, or to its end: one test of the budget at the start covers
    them all, and the runs after the first count theirs without a test. The interpreter, left the run when the
    budget might not cover them, runs the same steps and stops at the very step, as it does for any run."""
    total = 0
    for op in ops:
        kind = op[0]
        if kind == "simple":
            total += 1
        elif kind == "branch":
            then, otherwise = op[2], op[3]
            total += 1 + max(_most_steps(then), _most_steps(otherwise))
            if _holds_loop(then) or _holds_loop(otherwise):
                return total
        else:
            return total
    return total


def _holds_loop(ops) -> bool:
    """Whether a loop is among `ops`, or in a branch of theirs."""
    return any(op[0] == "loop" or op[0] == "branch" and (_holds_loop(op[2]) or _holds_loop(op[3])) for op in ops)


def _first_run(ops) -> int:
    """The steps `_Lowering._emit` counts at once first in `ops`: its straight run, and the test of a branch after it."""
    total = 0
    for op in ops:
        if op[0] != "simple":
            return total + (op[0] == "branch")
        total += 1
    return total


# the lines of `flag`/`unflag` (whose flag: Ruleset.flag_holder) and of `gain`/`lose` (Gain.run, `_one_number` and
# `bounded_int` without their calls), filled in by `_Lowering._flag` and `_Lowering._gain`
_HELD = "pc = {pc}; {before}state['flags']['table' if {flag} in g.rules.table_flags else {player}]"
_FLAG = _HELD + "[{flag}] = True"
_UNFLAG = _HELD + ".pop({flag}, None)"
_GAIN = (
    "pc = {pc}; {before}v = g.counter({player}, {counter})\n"
    "if type(v) is dict: one_number(v, {counter})\n"
    f"if not {-MAX_INT} <= (v := v + {{amount}}) <= {MAX_INT}: bounded_int(v)\n"
    "if changed := g.set_counter({player}, {counter}, v):\n"
    "    log_counted(g, {owner}, {counter}, changed)\n"
    "elif not read_by_all(g.rules, {counter}):\n"
    "    log_unchanged(g, {owner}, {counter}, {sign})"
).replace("{owner}", "{player} if g.rules.counters[{counter}].get('owner') == 'player' else 'table'")
_INLINED = {
    verbs.Flag: _Lowering._flag,
    verbs.Unflag: _Lowering._flag,
    verbs.Gain: _Lowering._gain,
    verbs.Lose: _Lowering._gain,
    verbs.Log: _Lowering._log,
}


# ------------------------------------------------------------ expressions written into the code
_TEMPORARY = re.compile(r"_t[0-9]+\Z")  # codegen's Python variables for values read twice (`_temporary`)
_EQUALITY = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)  # never raise on plain data
_ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)


@functools.lru_cache(maxsize=4096)  # (a pack lowers the same bodies at every load: parsing them is most of it)
def _inlined(body: str, call: str) -> str | None:
    """The source of an expression whose returned value is the source `body` (codegen), for the lowered code to
    compute itself; None unless it is one of the plainest: constants, `c.me`, `c.card`, locals read, `not`, `and`,
    `or`, `==`, `<` or `+` on numbers codegen tested are ints, `'hand:%s' % (p,)`. Nothing of that can raise nor
    change anything, so every call it makes is replaced by `call`, the expression's own call, which reads the same
    again and raises its own error, at its own text: `_local` (a local the frame lacks), and a helper whose value
    is the whole expression's (`_add(g, _t0, 1)`, when `_t0` is not an int)."""
    try:
        tree = ast.parse(body, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    calls: list = []
    if not _plain(tree.body, True, frozenset(), calls) or tree.body in calls:
        return None  # (nothing but the call: the call as it is)
    source = body if not calls else ast.unparse(_Replacing(calls, ast.parse(call, mode="eval").body).visit(tree))
    if _MY_FLAG in calls:  # (`me`'s flag read: only when `me` is a player's name, else the call: `_flag_read`)
        return f"({source}) if type(c.me) is str else {call}"
    return source


class _Replacing(ast.NodeTransformer):
    """The tree with each of the calls `calls` replaced by the node `call`."""

    def __init__(self, calls: list, call):
        self.replaced = {id(node) for node in calls}
        self.call = call

    def visit_Call(self, node):
        return self.call if id(node) in self.replaced else self.generic_visit(node)


def _plain(node, tail: bool, ints: frozenset, calls: list) -> bool:
    """Whether `node` is of the plainest shapes (`_inlined`); the calls to replace gathered in `calls`. `tail`:
    its value is the whole expression's; `ints`: the temporaries tested to be ints where it is evaluated."""
    kind = type(node)
    if kind is ast.Constant:
        return type(node.value) in (int, str, bool, float) or node.value is None
    if kind is ast.Name:  # (`int`: in `type(_t0) is int`)
        return node.id == "int" or _TEMPORARY.match(node.id) is not None
    if kind is ast.Attribute:
        return type(node.value) is ast.Name and node.value.id == "c" and node.attr in ("me", "card")
    if kind is ast.UnaryOp:
        if type(node.op) is ast.USub:
            return type(node.operand) is ast.Constant and type(node.operand.value) is int
        return type(node.op) is ast.Not and _plain(node.operand, False, ints, calls)
    if kind is ast.BoolOp:
        last = len(node.values) - 1
        return all(_plain(value, tail and i == last, ints, calls) for i, value in enumerate(node.values))
    if kind is ast.NamedExpr:
        return _TEMPORARY.match(node.target.id) is not None and _plain(node.value, False, ints, calls)
    if kind is ast.Compare:
        operands = [node.left, *node.comparators]
        if all(type(op) in _EQUALITY for op in node.ops):
            return all(_plain(operand, False, ints, calls) for operand in operands)
        if all(type(op) in _ORDER for op in node.ops):
            return all(_int(operand, ints) for operand in operands)
        return False
    if kind is ast.BinOp:
        if type(node.op) is ast.Mod:  # a place's name made of a value (`'hand:%s' % (p,)`): `%s` never raises
            text, values = node.left, node.right
            if type(text) is not ast.Constant or type(text.value) is not str or type(values) is not ast.Tuple:
                return False
            shown = len(values.elts)
            if text.value.count("%") != shown or text.value.count("%s") != shown:
                return False
            return all(_plain(value, False, ints, calls) for value in values.elts)
        return type(node.op) in (ast.Add, ast.Sub) and _int(node.left, ints) and _int(node.right, ints)
    if kind is ast.IfExp:
        if _local_read(node):
            calls.append(node.orelse)
            return True
        tested = _tested_ints(node.test)
        return (
            _plain(node.test, False, ints, calls)
            and _plain(node.body, tail, ints | tested, calls)
            and _plain(node.orelse, tail, ints, calls)
        )
    if kind is ast.Call:
        function = node.func
        if type(function) is not ast.Name or node.keywords:
            return False
        if function.id == "type" and len(node.args) == 1:
            return _plain(node.args[0], False, ints, calls)
        if function.id == "bool" and len(node.args) == 1 and _flag_read(node.args[0], calls):
            return True
        if function.id == "_local" or tail and function.id.startswith("_"):  # (codegen's helpers)
            calls.append(node)
            return True
    return False


_MY_FLAG = ast.Constant(None)  # (noted in `calls` by `_flag_read`: the body reads a flag `me` holds)


# codegen `_flag_read`'s source of a flag held by the table (a text written out) or by `me`, as `ast.unparse` gives it
_FLAG_READ = re.compile(r"g\.state\['flags'\]\.get\((?P<holder>'\w+'|c\.me), _EMPTY_MAPPING\)\.get\('\w+'\)\Z")


def _flag_read(node, calls: list) -> bool:
    """`g.state['flags'].get(HOLDER, _EMPTY_MAPPING).get('flag')` (codegen `_flag_read`) held by `'table'` or by
    `c.me` (noted with `_MY_FLAG`: `_inlined` reads it only when `me` is a str). It cannot raise: a state is
    schema-checked (persist.py) and the engine only sets and pops flags, so `state['flags']` is a dict of dicts;
    `get` with a str key, then on a dict or `_EMPTY_MAPPING`, never raises, and `bool` of plain data never does.
    Any other holder (`(p or c.me)`: a local may hold a list, unhashable) stays the expression's call."""
    found = _FLAG_READ.match(ast.unparse(node)) if type(node) is ast.Call else None
    if found is None:
        return False
    if found["holder"] == "c.me" and _MY_FLAG not in calls:
        calls.append(_MY_FLAG)
    return True


# ------------------------------------------------------------ expressions that only read, written into a `try`
_REDO = object()  # (`_Lowering._read`: the expression is called after all)
_READ_NAMES = frozenset({"g", "E", "int", "_EMPTY_MAPPING"})  # names a body that only reads may read as they are
_TABLE = re.compile(r"T_\w+\Z")  # codegen's tables of the pack's printed fields (`_field_read`): lists of plain data
_GAME_READS = frozenset({"state", "params", "counters_of"})  # the game's own data (Game.__init__)
_GAME_ASKS = frozenset({"in_play_from", "players_from"})  # Table's methods that make a new list and change nothing
_BUILT_IN_READS = frozenset({"type", "bool", "len", "list"})  # built-ins that, on plain data, change nothing


@functools.lru_cache(maxsize=4096)
def _read_only(body: str) -> tuple[str, frozenset] | None:
    """(source, names of the expression's own to bind) of an expression whose returned value is the source `body`
    (codegen), for `_Lowering._read` to write into a `try`; None unless its every step only reads plain data
    (`_reading`): it may raise, but changes nothing (no work charged) before. A helper called where its value is
    the whole expression's (`_add(g, _t0, 1)`, a field's getter `F_id(g, _t0)`...) is replaced by `_REDO`, and a
    field's getter where a table was not read (`T_type[c.card] if ... else F_type(g, c.card)`) by `_redo()`."""
    try:
        tree = ast.parse(body, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    calls: dict = {}
    if not _reading(tree.body, True, False, calls) or id(tree.body) in calls:
        return None
    source = ast.unparse(_Substituting(calls).visit(tree)) if calls else body
    names = {node.id for node in ast.walk(ast.parse(source, mode="eval")) if type(node) is ast.Name}
    names -= _READ_NAMES | _BUILT_IN_READS | {"_REDO", "_redo", "c"}
    return source, frozenset(name for name in names if not _TEMPORARY.match(name))


class _Substituting(ast.NodeTransformer):
    """The tree with each call of `calls` (its id: the node put instead) replaced."""

    def __init__(self, calls: dict):
        self.calls = calls

    def visit_Call(self, node):
        put = self.calls.get(id(node))
        return put if put is not None else self.generic_visit(node)


class _Redo(Exception):
    """(`_redo`: the expression is called after all)"""


def _redo():
    raise _Redo


def _seats(source: str) -> bool:
    """Whether the expression `source` is `g.in_play_from(...)` or `g.players_from(...)` (`_GAME_ASKS`): a new list
    of the state's players, names (never None), as `items_of` would copy it."""
    value = ast.parse(source, mode="eval").body
    function = value.func if type(value) is ast.Call else None
    return (
        type(function) is ast.Attribute
        and type(function.value) is ast.Name
        and function.value.id == "g"
        and (function.attr in _GAME_ASKS)
    )


def _reading(node, tail: bool, fallback: bool, calls: dict) -> bool:
    """Whether `node` only reads (`_read_only`); the calls to replace gathered in `calls`. `tail`: its value is the
    whole expression's; `fallback`: it is worked out only where a test found no faster way (an `else`)."""
    kind = type(node)
    if kind is ast.Constant:
        return type(node.value) in (int, str, bool, float) or node.value is None
    if kind is ast.Name:
        return node.id in _READ_NAMES or _TEMPORARY.match(node.id) is not None or _TABLE.match(node.id) is not None
    if kind is ast.Attribute:
        owner = node.value
        if type(owner) is not ast.Name:
            return False
        return owner.id == "c" and node.attr in ("me", "card") or owner.id == "g" and node.attr in _GAME_READS

    def parts(values) -> bool:  # (values of their own: not the whole expression's)
        return all(_reading(value, False, fallback, calls) for value in values)

    if kind is ast.Subscript:
        return type(node.slice) is not ast.Slice and parts((node.value, node.slice))
    if kind is ast.UnaryOp:
        return type(node.op) in (ast.Not, ast.USub) and parts((node.operand,))
    if kind is ast.BoolOp:
        last = len(node.values) - 1
        return all(_reading(value, tail and i == last, fallback, calls) for i, value in enumerate(node.values))
    if kind is ast.NamedExpr:
        return _TEMPORARY.match(node.target.id) is not None and parts((node.value,))
    if kind is ast.Compare:
        return parts((node.left, *node.comparators))
    if kind is ast.BinOp:
        if type(node.op) not in (ast.Add, ast.Sub, ast.Mult, ast.Mod):
            return False
        if type(node.op) is ast.Mod and (type(node.left) is not ast.Constant or type(node.left.value) is not str):
            return False  # (`%` only to make a text, `'hand:%s' % (p,)`)
        return parts((node.left, node.right))
    if kind in (ast.Tuple, ast.List):
        return parts(node.elts)
    if kind is ast.IfExp:
        return (
            parts((node.test,))
            and _reading(node.body, tail, fallback, calls)
            and _reading(node.orelse, tail, True, calls)
        )
    if kind is ast.Call:
        function = node.func
        if node.keywords or any(type(argument) is ast.Starred for argument in node.args):
            return False
        if (
            type(function) is ast.Attribute
        ):  # `g.in_play_from(p)`, or `get` of a mapping: `flags.get(p, _EMPTY_MAPPING)`
            owner = function.value
            if not parts(node.args):
                return False
            if type(owner) is ast.Name and owner.id == "g":
                return function.attr in _GAME_ASKS
            return function.attr == "get" and len(node.args) in (1, 2) and parts((owner,))
        if type(function) is not ast.Name:
            return False
        if function.id in _BUILT_IN_READS or function.id == "_local":  # (`_local` raises: the call raises it again)
            return parts(node.args)
        if tail and function.id.startswith(("_", "F_", "B_")) and not function.id.startswith("__"):
            calls[id(node)] = ast.Name("_REDO", ast.Load())  # (codegen's helpers, a field's getter, a built-in)
            return True
        if fallback and function.id.startswith("F_"):
            calls[id(node)] = ast.Call(ast.Name("_redo", ast.Load()), [], [])
            return True
    return False


def _local_read(node) -> bool:
    """`(E['x'] if 'x' in E else _local('x'))`: a local read (codegen `_local` raises when the frame lacks it)."""
    test, read, missing = node.test, node.body, node.orelse
    if type(test) is not ast.Compare or len(test.ops) != 1 or type(test.ops[0]) is not ast.In:
        return False
    word = test.left
    if type(word) is not ast.Constant or type(word.value) is not str:
        return False
    frame = test.comparators[0]
    if type(frame) is not ast.Name or frame.id != "E" or type(read) is not ast.Subscript:
        return False
    if type(read.value) is not ast.Name or read.value.id != "E" or type(read.slice) is not ast.Constant:
        return False
    if read.slice.value != word.value or type(missing) is not ast.Call or type(missing.func) is not ast.Name:
        return False
    return missing.func.id == "_local" and len(missing.args) == 1 and not missing.keywords


def _tested_ints(test) -> frozenset:
    """The temporaries `test` says are ints when true: `type(_t0 := ...) is int`, `type(_t1) is type(_t2) is int`."""
    if type(test) is not ast.Compare or not all(type(op) is ast.Is for op in test.ops):
        return frozenset()
    operands = [test.left, *test.comparators]
    typed, last = operands[:-1], operands[-1]
    if type(last) is not ast.Name or last.id != "int":
        return frozenset()
    names = set()
    for operand in typed:
        if type(operand) is not ast.Call or type(operand.func) is not ast.Name or operand.func.id != "type":
            return frozenset()
        if len(operand.args) != 1:
            return frozenset()
        value = operand.args[0]
        if type(value) is ast.NamedExpr:
            value = value.target
        if type(value) is not ast.Name or _TEMPORARY.match(value.id) is None:
            return frozenset()
        names.add(value.id)
    return frozenset(names)


def _int(node, ints: frozenset) -> bool:
    """An int for certain: an int constant, or a temporary tested to be one."""
    if type(node) is ast.Constant:
        return type(node.value) is int
    return type(node) is ast.Name and node.id in ints


def _small_constant(source: str) -> bool:
    """Whether the source is a constant that `bounded_int` never refuses (no int outside the bounds)."""
    try:
        value = ast.literal_eval(source)
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError):
        return False
    return type(value) is not int or -MAX_INT <= value <= MAX_INT
