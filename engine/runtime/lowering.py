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
at the very step. Nothing of the content becomes code: the source names steps by their index and locals
only through `repr`; expressions and verbs are bound in the namespace as objects.
"""

from __future__ import annotations

from .budget import MAX_INT, STEP_BUDGET, bounded_int, spend
from .codegen import compiled
from .errors import PYTHON_ERRORS, ContentError, at_text, values_error
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
        if path is None or _depth(code.tree) > MAX_NESTING or _size(code.tree) != len(code.steps):
            return None  # (a tree that does not hold every step: code not made by the compiler)
        lowering = _Lowering(code)
        return lowering.function(pc, lowering.ops(code.tree) if pc == 0 else lowering.continuation(path))
    except (SyntaxError, RecursionError, MemoryError, ValueError, OverflowError):  # Python's own limits
        return None


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


def _depth(nodes) -> int:
    """How many blocks deep the tree nests."""
    deepest = 0
    for node in nodes:
        if node[0] == "if":
            inner = [b for _, b, _ in node[1]] + ([node[2]] if node[2] is not None else [])
            deepest = max(deepest, 1 + max(_depth(b) for b in inner))
        elif node[0] in ("repeat", "for"):
            deepest = max(deepest, 1 + _depth(node[3]))
    return deepest


def _size(nodes) -> int:
    """How many steps the tree holds."""
    total = 0
    for node in nodes:
        if node[0] == "step":
            total += 1
        elif node[0] == "if":
            total += sum(2 + _size(body) for _, body, _ in node[1]) + (_size(node[2]) if node[2] is not None else 0)
        else:
            total += 3 + _size(node[3])
    return total


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
        self.namespace = {
            "ContentError": ContentError,
            "PYTHON_ERRORS": PYTHON_ERRORS,  # placed as interpreter.py places them (errors.py)
            "at_text": at_text,
            "values_error": values_error,
            "BUDGET": STEP_BUDGET,
            "MAX_INT": MAX_INT,
            "bounded_int": bounded_int,
            "spend": spend,
            "stopped": stopped,
            "over_budget": over_budget,
            "CODE": code,
            "KEY": code.key,
            "OFFSETS": code.offsets,
        }

    def _bind(self, prefix: str, pc: int, value) -> str:
        name = f"{prefix}{int(pc)}"
        self.namespace[name] = value
        return name

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
            value = self._bind("X", pc, step[2])

            def render(correction):
                return [
                    f"pc = {pc}",
                    f"v = {value}(c)",
                    f"if type(v) is int and not {-MAX_INT} <= v <= {MAX_INT}:",  # the bounds as constants
                    "    bounded_int(v)",
                    f"E[{step[1]!r}] = v",
                ]
        elif op == "verb":
            run = self._bind("V", pc, step[1].run)

            def render(correction):
                return [
                    f"pc = {pc}",
                    f"out = {run}(g, c, frame)",
                    f"if out is not None: return stopped(g, frame, c, CODE, {pc}, out, steps - {correction})",
                ]
        elif op == "stop":

            def render(correction):
                return [f"state['steps'] = steps - {correction}", "state['stack'].pop()", "return True"]
        elif op == "repeat_init":
            count = self._bind("X", pc, step[2])

            def render(correction):
                return [f"pc = {pc}", f"E[{step[1]!r}] = max(0, int({count}(c) or 0))"]
        elif op == "for_init":
            items = self._bind("X", pc, step[2])

            def render(correction):
                return [
                    f"pc = {pc}",
                    f"items = g.items_of({items}(c))",
                    "spend(g, len(items))",
                    f"E[{step[1]!r}] = [items, 0]",
                ]
        else:  # pragma: no cover -- the tree holds no other steps
            raise ValueError(f"step {op} in a block")
        return ("simple", pc, render)

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
        exec(compiled("\n".join(lines) + "\n", f"<lowered {self.code.key}>"), namespace)  # noqa: S102
        return namespace[f"run_from_{int(pc)}"]

    def _emit(self, ops, indent: int, lines: list, depth: int):
        pad = "    " * indent
        i, n = 0, len(ops)
        while i < n:
            run = []
            while i < n and ops[i][0] == "simple":
                run.append(ops[i])
                i += 1
            branch = ops[i] if i < n and ops[i][0] == "branch" else None
            if branch is not None:
                i += 1
            total = len(run) + (branch is not None)
            if total:
                # total > 0 and no run: there is a branch (mypy does not tie `total` to `branch`)
                self._pay(run[0][1] if run else branch[1], total, pad, lines)  # type: ignore[index]
                for k, (_, _, render) in enumerate(run):
                    lines.extend(pad + line for line in render(total - k - 1))
            if branch is not None:
                _, unless, then, otherwise = branch
                test = self._bind("X", unless, self.code.steps[unless][1])
                lines += [f"{pad}pc = {unless}", f"{pad}if {test}(c):"]
                self._emit(then, indent + 1, lines, depth)
                if otherwise:
                    lines.append(f"{pad}else:")
                    self._emit(otherwise, indent + 1, lines, depth)
            if i < n and ops[i][0] == "loop":
                self._emit_loop(ops[i], indent, lines, depth)
                i += 1

    def _emit_loop(self, op, indent, lines, depth):
        _, kind, head, slot, variable, body = op
        pad = "    " * indent
        lines.append(f"{pad}while True:")
        self._pay(head, 1, pad + "    ", lines)
        inner = pad + "    "
        lines.append(f"{inner}pc = {head}")
        if kind == "repeat":
            lines += [f"{inner}if E[{slot!r}] <= 0:", f"{inner}    break", f"{inner}E[{slot!r}] -= 1"]
        else:
            lines += [
                f"{inner}items{depth}, i{depth} = E[{slot!r}]",
                f"{inner}if i{depth} >= len(items{depth}):",
                f"{inner}    break",
                f"{inner}E[{variable!r}] = items{depth}[i{depth}]",
                f"{inner}E[{slot!r}][1] = i{depth} + 1",
            ]
        self._emit(body, indent + 1, lines, depth + 1)

    @staticmethod
    def _pay(pc, count, pad, lines):
        """Count a straight run of `count` steps from step `pc`, or leave the run to the interpreter when
        it would pass the budget (it stops at the very step, as it always did)."""
        lines += [
            f"{pad}if steps + {count} > BUDGET: return over_budget(g, frame, {pc}, steps)",
            f"{pad}steps += {count}",
        ]
