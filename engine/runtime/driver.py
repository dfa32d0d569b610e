"""The turn structure every pack shares: setup, turns of actions, end conditions, final scoring.
A pack with `turns: rounds` plays round after round instead, each driven by its phases alone.

Packs say what happens at each point (phases `when: setup | turn_start | ...`, actions with costs
and limits, end rules, scoring); this module only says when those points come. It runs between
effects, when the effect stack is empty, and moves `state["stage"]` along. It also keeps the rounds (a
pass of the seats from the round's first player), the order of turns (`next_turn`), the players out
(`eliminate`), when "end turn" is on the menu (pack.yaml `end_turn`, `menu`), and decides the winners.
"""

from __future__ import annotations

from .context import Ctx
from .end_checks import ABSENT, trigger_inputs
from .errors import ContentError
from .exists import compile_condition
from .protocol import END_TURN
from .state import State, copy_state

NOBODY = "$nobody"  # in a frame's locals: what it does is nobody's act (a phase outside any player's turn)
NOBODYS_PHASES = ("setup", "game_start", "round_start", "round_end", "game_end")
SCORED_BETWEEN = ("round_end", "turn_end")  # the moments other than the game's end at which a `scoring` may run


def step(g) -> None:
    state: State = g.state
    stage = state["stage"]
    if stage == "main":  # (the commonest first)
        _main(g)
    elif stage == "setup":
        _push_phases(g, ("setup", "game_start"), state["players"][0])
        state["stage"] = "next"
        state["turn"]["number"] = 0
    elif stage == "turn_end":
        _push_phases(g, ("turn_end",), state["turn"]["player"])
        state["stage"] = "round_end"
    elif stage == "round_end":
        state["stage"] = "next"
        if g.rules.in_rounds or _round_ends(g):
            state["turn"]["round_over"] = True
            _push_phases(g, ("round_end",), first_player(g))
    elif stage == "next":
        _next_turn(g)
    elif stage == "game_end":
        push_game_end(g)
    elif stage == "result":
        _result(g)
    else:  # pragma: no cover
        raise ContentError(f"unknown stage {stage}", code="X303")


def push_game_end(g) -> None:
    """The game's end: its phases and its final scorings pushed (TurnPlan.game_end), nobody's act (each frame its own
    env, as `_push_phases` pushes them) as the round's first player. `step` at the stage "game_end", and a bot's
    projection (scoring.projected_margin), which ends its imagined game with no call of `step` for it."""
    me = first_player(g)
    keys = turn_plan(g.rules).game_end
    stack = g.state["stack"]
    if stack or len(keys) > _PUSHED_HERE:  # (never so at the game's end: its stack is empty) as `g.push` pushes them
        for key in keys:
            g.push(key, me, None, {NOBODY: True})
    else:  # `g.push`'s frames, its depth check passed, made here: as many calls less (a bot's projection is one)
        stack += [{"code": key, "pc": 0, "env": {NOBODY: True}, "me": me, "card": None, "wait": None} for key in keys]
    g.state["stage"] = "result"  # `win` and `end_game` from here on only declare (verbs.EndGame)


# the most frames `push_game_end` makes itself on an empty stack: fewer than interpreter.MAX_FRAMES, whose check it skips
_PUSHED_HERE = 32


def _push_phases(g, whens: tuple, me):
    """Push the phases of `whens` to run in order, as `me`; a phase outside any player's turn (setup, a
    round's start or end, the game's end) is nobody's act in the log (NOBODY), whoever `me` is. On an empty stack (the
    driver's steps run between effects) `g.push`'s frames are made here, as push_game_end makes them."""
    rules = g.rules
    frames = turn_plan(rules).pushed_at(rules, whens)
    stack = g.state["stack"]
    if stack or len(frames) > _PUSHED_HERE:
        for key, nobodys in frames:
            g.push(key, me, None, {NOBODY: True} if nobodys else None)
        return
    for key, nobodys in frames:
        stack.append(
            {"code": key, "pc": 0, "env": {NOBODY: True} if nobodys else {}, "me": me, "card": None, "wait": None}
        )


def _phase_frames(rules, whens: tuple) -> tuple:
    """(code key, whether nobody's act) of the phases of `whens` in the order they are pushed (the last to run
    first): the phases of each moment with an effect, in order, then a scoring `when: round_end` (turn_end) after
    that moment's phases."""
    frames = []
    for when in whens:
        for phase in rules.phases.get(when, []):
            if phase.get("effect"):
                frames.append((f"phase/{phase['id']}/effect", when in NOBODYS_PHASES))
        if when in SCORED_BETWEEN:
            for scoring in rules.scorings:
                if scoring.get("when") == when and scoring.get("effect"):
                    frames.append((f"scoring/{scoring['id']}/effect", when in NOBODYS_PHASES))
    return tuple(reversed(frames))


# ---------------------------------------------------------------- who plays, rounds, players out
def out_of_play(g) -> dict:
    """The players out of the game ("game") or of the round ("round"): `eliminate`."""
    return g.state.get("out") or {}


def first_player(g) -> str:
    """The round's first player: who `me` is in phases that are nobody's turn (round_start, round_end,
    game_end) and in a `turns: rounds` pack's whole round."""
    turn = g.state["turn"]
    return turn.get("first") or turn["player"]


def _after(g, player, include=False) -> str | None:
    """The first player in play from `player` on in seat order (`player` itself only when `include`)."""
    seats = g.in_play_from(player)
    if not include and seats and seats[0] == player:
        seats = seats[1:] + seats[:1]
    return seats[0] if seats else None


def _round_ends(g) -> bool:
    """Whether the turn that ends now is the round's last: the next turn's player (`next_turn`'s, else the
    next in seat order) comes before this one in the round's order, which begins with its first player, or
    is this one again though not by `next_turn` (the only player left)."""
    turn = g.state["turn"]
    upcoming = turn.get("next")
    upcoming = _after(g, upcoming, include=True) if upcoming else _after(g, turn["player"])
    if upcoming is None:
        return True
    order = g.players_from(first_player(g))
    if upcoming == turn["player"]:  # the same player again: by `next_turn` (plays again), else the only one left
        return not turn.get("next")
    return order.index(upcoming) < order.index(turn["player"])


def _new_round(g):
    """A round ends: the players out of it only are back."""
    out = g.state.get("out")
    if out:
        back = [p for p, why in out.items() if why == "round"]
        for p in back:
            del out[p]
            g.log(f"{p} is back in the game")


def _next_turn(g):
    state: State = g.state
    _check_end(g)
    if state["stage"] != "next":
        return
    turn = state["turn"]
    ending = state["ending"]
    wanted = turn.get("next")
    new_round = turn["number"] == 0 or bool(turn.get("round_over"))
    if new_round and turn["number"]:
        _new_round(g)
    if ending is not None:
        out = out_of_play(g)
        while ending["queue"] and ending["queue"][0] in out:  # the players out have no last turn
            ending["queue"].pop(0)
        if not ending["queue"]:
            state["stage"] = "game_end"
            return
        player = ending["queue"].pop(0)
    elif turn["number"] and turn["number"] >= state["max_turns"]:
        state["ending"] = {"rule": "turn_limit", "by": None, "queue": []}
        g.log("The turn limit is reached")
        state["stage"] = "game_end"
        return
    elif g.rules.in_rounds:  # the round's first player, until `next_turn` names another
        player = _after(g, wanted or turn.get("first") or state["players"][0], include=True)
    elif wanted:
        player = _after(g, wanted, include=True)
    else:
        player = _after(g, turn["player"], include=turn["number"] == 0)
    if player is None:
        state["ending"] = {"rule": "everyone_out", "by": None, "queue": []}
        g.log("Everyone is out of the game")
        state["stage"] = "game_end"
        return
    rounds = turn.get("round", turn["number"] if g.rules.in_rounds else 0) + new_round  # (saves of before rounds)
    state["dead"], state["undone"] = [], {}
    state["turn"] = {
        "player": player,
        "number": turn["number"] + 1,
        "acted": False,
        "used": {},
        "closing": False,
        "round": rounds,
        "first": player if new_round else first_player(g),
    }
    for flags in state["flags"].values():
        flags.pop("$turn", None)
    g.log(f"Round {rounds}" if g.rules.in_rounds else f"Turn {state['turn']['number']}: {player}")
    state["stage"] = "main"
    _push_phases(g, ("turn_start",), player)
    if new_round:
        _push_phases(g, ("round_start",), player)


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
    plan = turn_plan(g.rules)
    _check_end(g, plan)
    if state["stage"] != "main":
        return
    me = turn["player"]
    # a round is played by its phases, and so is a turn of a pack without a menu; a player out has no turn
    if turn["closing"] or g.rules.in_rounds or not plan.menu or me in out_of_play(g):
        state["stage"] = "turn_end"
        return
    if g.menus_for is not None and g.menus_for != me and plan.end_turn is None:
        # a look-ahead stops at another player's menu unread (agents.GreedyAgent): with "end turn" always on it, it
        # is never empty (nothing_left), so working it out changes nothing; only who decides is set
        state["pending"] = {"kind": "action", "by": [me], "options": [END_TURN]}
        return
    ctx = Ctx(g, {}, me, None)  # one context for every check of this menu: conditions only read it
    options = _on_menu(g, plan, me, ctx)
    may_end = _end_refusal(plan, ctx) is None
    if may_end:
        options.append(END_TURN)
    elif not options:
        nothing_left(g)
        return
    g.state["pending"] = {
        "kind": "action",
        "by": [me],
        "prompt": "Choose an action, or end your turn" if may_end else "Choose an action",
        "options": options,
    }


def nothing_left(g) -> None:
    """The turn's player may not end the turn, and nothing is left that they can do: the turn ends by
    itself (also when every action on such a menu has proved impossible, undo.py)."""
    state: State = g.state
    state["pending"] = None
    state["dead"], state["undone"] = [], {}
    g.log(f"{state['turn']['player']} has nothing left to do")
    state["stage"] = "turn_end"


def end_refusal(g, me, ctx=None) -> tuple | None:
    """None when `me` may end the turn now (pack.yaml `end_turn`), else ("never",) or ("condition",)."""
    return _end_refusal(turn_plan(g.rules), ctx or Ctx(g, {}, me, None))


def _end_refusal(plan, ctx) -> tuple | None:
    rule = plan.end_turn
    if rule is None:
        return None
    if rule is False:
        return _NEVER
    return None if rule(ctx) else _CONDITION


def refusal(g, action_id, me, ctx=None) -> tuple | None:
    """None when the action is on `me`'s menu now, else the first thing that keeps it off, as a small tuple
    that why.py words only when a view asks (bots never pay for the words): ("hidden",) for an action
    never offered by itself, ("whole_turn",), ("limit", LIMIT), ("cost", COUNTER, AMOUNT, HAVE),
    ("available",). The checks run cheapest first, from a plan made once per pack (TurnPlan); `ctx`, the
    menu's one context for `me`, saves making one per action."""
    return _refusal(g, turn_plan(g.rules).checks[action_id], me, ctx)


def _refusal(g, check, me, ctx) -> tuple | None:
    """`refusal`, given the action's checks (TurnPlan.checks): the menu asks it of each action it offers."""
    hidden, whole_turn, limit, cost, available, action_id = check
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


def _on_menu(g, plan, me, ctx) -> list[str]:
    """The actions on `me`'s menu now, in the pack's order: those offered that `_refusal` keeps none of, by its checks in
    its order, in one function made for the plan (`_menu_checks`: a menu is worked out hundreds of times a game; the
    reasons are not needed)."""
    state: State = g.state
    turn = state["turn"]
    have = {counter_id: g.counter(me, counter_id) for counter_id in plan.cost_counters}  # (conditions only read)
    return plan.menu_checks(have, turn["acted"], turn["used"], state["used"][me], ctx)


def _menu_checks(on_menu: tuple):
    """`_on_menu`'s checks of the plan's `on_menu` as one function of the counters had, whether the player acted, the
    actions used this turn and this game, and the context: per action, only the checks it needs, as statements, in
    `_refusal`'s order (no loop over the plan, none over a cost of one counter). The pack's names are values of the
    function's namespace, never text of its source."""
    namespace: dict = {}
    lines = ["def _menu(have, acted, used_this_turn, used_this_game, ctx):", "    options = []"]
    for i, (action_id, whole_turn, limit, cost, available) in enumerate(on_menu):
        namespace[f"A{i}"] = action_id
        tests = ["not acted"] if whole_turn else []
        if limit is not None:
            tests.append(f"not {'used_this_turn' if limit == 'once_per_turn' else 'used_this_game'}.get(A{i})")
        for j, (counter_id, amount) in enumerate(cost):
            namespace[f"K{i}_{j}"], namespace[f"N{i}_{j}"] = counter_id, amount
            tests.append(f"not (have[K{i}_{j}] < N{i}_{j})")
        if available is not None:
            namespace[f"V{i}"] = available
            tests.append(f"V{i}(ctx)")
        appended = f"options.append(A{i})"
        lines += [f"    if {' and '.join(tests)}:", f"        {appended}"] if tests else [f"    {appended}"]
    lines.append("    return options")
    exec(compile("\n".join(lines) + "\n", "<turn menu>", "exec"), namespace)  # noqa: S102 -- names only as values
    return namespace["_menu"]


_HIDDEN, _WHOLE_TURN, _AVAILABLE = ("hidden",), ("whole_turn",), ("available",)
_NEVER, _CONDITION = ("never",), ("condition",)
_LIMITED = ("once_per_turn", "once_per_game")


class TurnPlan:
    """What the menu reads of the pack, worked out once per pack rather than at each of a game's hundreds
    of menus. `checks`: action id -> (hidden, whole_turn, limit or None, cost as (counter, amount) pairs,
    available test or None, the action id), the test compiled by exists.py so that "is there some X?" stops at
    the first X; `offered`: (action id, its checks) of the actions that are not hidden, in the pack's order, and
    `on_menu` the same as (action id, whole_turn, limit, cost, available), `menu_checks` those checks as one function
    (`_menu_checks`) that `_on_menu` calls, and
    `cost_counters` the counters their costs name, read once a menu;
    `triggers`: (end rule, its trigger, compiled the same way) for the end rules that have one, and `trigger_reads`,
    when every trigger provably reads only counters by name and zones' lengths (end_checks.py), the counters they read
    (`_check_end`'s key), else None, with `trigger_zones` the zones they count (zone id, whether each player's), else
    None; `menu`: whether
    turns have a menu (pack.yaml `menu: false`: a turn is its phases); `end_turn`: None when "end turn" is
    always on the menu, False when never, else the condition (pack.yaml `end_turn`) under which it is;
    `phase_frames`: the frames pushed at each moment of the turn (`pushed_at`), from the pack's phases and scorings;
    `game_end`: the code keys of the frames pushed at the game's end (its phases, then its scorings, the last pushed
    running first)."""

    __slots__ = (
        "checks",
        "cost_counters",
        "end_turn",
        "game_end",
        "menu",
        "menu_checks",
        "offered",
        "on_menu",
        "phase_frames",
        "trigger_reads",
        "trigger_zones",
        "triggers",
    )

    def __init__(self, rules):
        self.phase_frames: dict[tuple, tuple] = {}  # moments (_push_phases's `whens`) -> their frames, as asked
        self.menu = rules.manifest.get("menu", True) is not False
        rule = rules.manifest.get("end_turn")
        key = f"pack/{rules.manifest.get('id')}/end_turn"  # compiled when a condition, not `always` or `never`
        self.end_turn = False if rule == "never" else compile_condition(rules, key, rule) if key in rules.code else None
        self.checks: dict[str, tuple] = {}
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
                action_id,
            )
        self.offered = tuple((a, check) for a, check in self.checks.items() if not check[0])
        self.on_menu = tuple((a, *check[1:5]) for a, check in self.offered)
        self.menu_checks = _menu_checks(self.on_menu)
        self.cost_counters = tuple(dict.fromkeys(counter for _, check in self.offered for counter, _ in check[3]))
        self.triggers = tuple(
            (rule, compile_condition(rules, f"end/{rule['id']}/trigger", rule["trigger"]))
            for rule in rules.ends
            if f"end/{rule['id']}/trigger" in rules.code
        )
        inputs = trigger_inputs(rules, [rule["trigger"] for rule, _ in self.triggers]) if self.triggers else None
        self.trigger_reads, self.trigger_zones = inputs or (None, None)
        self.game_end = tuple(key for key, _ in _phase_frames(rules, ("game_end",))) + tuple(
            f"scoring/{scoring['id']}/effect"
            for scoring in reversed(rules.scorings)
            if scoring.get("when", "game_end") == "game_end" and scoring.get("effect")
        )

    def pushed_at(self, rules, whens: tuple) -> tuple:
        """The frames `_push_phases` pushes for `whens` (`_phase_frames`), worked out at its first push (`rules`: the
        pack this plan is of)."""
        frames = self.phase_frames.get(whens)
        if frames is None:
            frames = self.phase_frames[whens] = _phase_frames(rules, whens)
        return frames


def turn_plan(rules) -> TurnPlan:
    try:
        return rules._turn_plan
    except AttributeError:  # the pack's first turn
        plan = rules._turn_plan = TurnPlan(rules)
        return plan


# kept in the undo snapshot as they are, not copied: the pack's parameters (fixed for the game), the menu just
# answered (a decision, once answered, is replaced, never changed: it is only offered again by an undo, as it was), the
# turn and the actions used (start_action gives the state new maps of them, as it is the one to change them); the zones
# and the counters are the state's lists and maps in a map of the snapshot's own, copied when they are changed
# (Table.sharing_snapshot); so are the seats that know where a card lies (`known`), whose lists are never changed,
# only replaced (log_words.remember) or dropped
_SHARED_BY_SNAPSHOT = ("params", "pending", "turn", "used", "zones", "counters", "known")
_LEFT_OUT_OF_SNAPSHOT = ("log", "history", "dead", "undone", "attempt")  # kept by undo.fail as they are at the fail


def start_action(g, action_id, pending, answer):
    """Begin an action chosen from the turn's menu, keeping a copy of the state to return to if it
    turns out to be impossible the way it is being done (see Game.fail). The copy shares with the state what the
    action cannot change in place unseen: its largest parts are copied as the action changes them, not all of them
    here (issue 16)."""
    state: State = g.state
    me = state["turn"]["player"]
    base, g.undo_base = g.undo_base, None  # (Table.undo_base) good for this very answer only
    if action_id == END_TURN:
        state["turn"]["closing"] = True
        state["dead"], state["undone"] = [], {}
        return
    if base is not None:  # an untouched copy of this state: the snapshot shares its parts, copies nothing
        snap = base.copy()  # (in C, then the few keys left out taken out: the same keys in the same order)
        for key in _LEFT_OUT_OF_SNAPSHOT:
            snap.pop(key, None)
    else:
        snap = copy_state(state, shared=_SHARED_BY_SNAPSHOT, skip=_LEFT_OUT_OF_SNAPSHOT)
        snap["zones"] = state["zones"].copy()  # (the lists copied on write: Table.move)
        snap["counters"] = state["counters"].copy()  # (Table.set_counter)
        known = state.get("known")  # (None: a game saved before players' knowledge was kept)
        if known is not None:
            snap["known"] = known.copy()
    snap["pending"] = pending
    snap["attempt"] = None
    if base is None:
        g.sharing_snapshot = snap  # (a base shares nothing with the state: the snapshot before it may still)
    # the maps this start changes are new ones in the state, the snapshot keeps those the state held: no map that any
    # snapshot holds is changed again (the action's count, then the turn's `acted` and `closing`, go in the new ones)
    turn, used = state["turn"], state["used"]
    state["turn"] = {**turn, "used": turn["used"].copy()}
    state["used"] = {**used, me: used[me].copy()}
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


def _check_end(g, plan=None):
    """Test each end rule's trigger for every player in play, from the turn's player on (the first that holds
    ends the game, as its `then` says): after every action and before every turn. Triggers that read only counters
    by name and zones' lengths (TurnPlan.trigger_reads, trigger_zones) are not tested again while those counters'
    numbers, of every owner, and those lengths are those with which all were last found false with no player out
    (`Game.ends_quiet`): most actions change none of them. A trigger that counts a zone pays its length in work: a key
    with zones ends with the work the tests it was made by charged (the same tests, the same work), charged again
    instead of the tests, or the tests made when it would run the answer out of work (they run out where they do)."""
    state: State = g.state
    plan = plan or turn_plan(g.rules)
    reads, quiet = plan.trigger_reads, None
    if reads is not None and not state.get("out"):  # (nothing else to test while they are unchanged: return)
        # each owner, then the number (or ABSENT) of each counter read of theirs: compiled, `dict.get` of a dict is a
        # lookup in C, with no call (an owner's counters that are no dict, in a state built by hand: their own `get`)
        quiet = []
        if reads:
            for owner, values in state["counters"].items():
                quiet.append(owner)
                for counter in reads:
                    quiet.append(
                        dict.get(values, counter, ABSENT) if isinstance(values, dict) else values.get(counter, ABSENT)
                    )
        if not plan.trigger_zones:
            if quiet == g.ends_quiet:
                return
        else:
            quiet = _with_zone_lengths(g, state, plan.trigger_zones, quiet)
            if quiet is not None and quiet == g.ends_quiet and g.work >= quiet[-1]:  # (else tested: out of work there)
                if state["ending"] is None and state["stage"] not in _ENDED:  # (the tests that would be made)
                    g.work -= quiet[-1]  # (the work of the tests that made the key)
                return
    triggers = plan.triggers
    if not triggers or state["ending"] is not None or state["stage"] in _ENDED:
        return
    current = state["turn"]["player"]
    out = state.get("out") or {}  # out_of_play
    seats = g.players_from(current)
    # a player out triggers nothing, unless all are
    testing = ([p for p in seats if p not in out] or seats) if out else seats
    ctx = Ctx(g, {}, current, None)
    work = g.work
    for rule, trigger in triggers:
        for player in testing:
            ctx.me = player
            if trigger(ctx):
                _end_triggered(g, rule, player, current, seats, out)
                return
    if quiet is not None and _UNCHANGING.issuperset(map(type, quiet)):  # (no number that changes in place)
        if plan.trigger_zones:
            quiet[-1] = work - g.work
        g.ends_quiet = quiet


def _with_zone_lengths(g, state: State, counted: tuple, quiet: list) -> list | None:
    """`quiet`, `_check_end`'s key, with the lengths of the zones its triggers count (TurnPlan.trigger_zones: of a
    player's zone, each player's in seat order, the keys `ZONE(me)` reads), then the work charged by the tests with
    which the last key was made, if this is that key (else None: made anew); None where a zone is not the state's list
    (its count is not its length: the triggers are tested)."""
    zones = state["zones"]
    players = state["players"]
    if len(quiet):  # (the owners' counters read too: each player's, of the same seat as their zone's length)
        quiet += players
    own_keys = g._own_keys
    try:  # (`_count` of a zone that is the state's: its length)
        for zone_id, per_player in counted:
            if per_player:
                keys = own_keys[zone_id]
                for player in players:
                    quiet.append(len(zones[keys[player]]))
            else:
                quiet.append(len(zones[zone_id]))
    except (KeyError, TypeError):
        return None
    kept = g.ends_quiet
    quiet.append(kept[-1] if kept else None)
    return quiet


_ENDED = ("game_end", "result", "over")
_UNCHANGING = frozenset((int, bool, str, type(None), object))  # what a key of `_check_end` may hold (object: ABSENT)


def _end_triggered(g, rule, player, current, seats, out):
    """The end rule `rule` holds for `player`: the game ends as its `then` says."""
    state: State = g.state
    then = rule.get("then", "immediate")
    queue = []
    if then == "last_turns_then_trigger_player":
        # the others in turn order after the current turn (which counts as its player's last),
        # then the trigger player
        queue = [p for p in seats[1:] if p != player and p not in out] + [player]
        if player == current:
            state["turn"]["closing"] = True
    elif then == "finish_round" and not g.rules.in_rounds:  # a round of a `rounds` pack is one turn
        order = g.players_from(first_player(g))
        queue = [p for p in order[order.index(current) + 1 :] if p not in out]
    state["ending"] = {"rule": rule["id"], "by": player, "queue": queue, "then": then}
    g.log(f"{player} triggers the end of the game ({rule.get('name', rule['id'])})")
    if then == "immediate":
        state["stack"].clear()
        state["stage"] = "game_end"


def _result(g):
    """The game's result: the scores, and (`_decided`) the winners and the log line, but for a projection's game
    (`Game.scores_only`: scoring.projected_margin), which reads the scores alone. Compiled, a function that holds
    closures makes their cell at each call: `_decided` holds them, not called by a projection."""
    state: State = g.state
    ending = state["ending"] or {"rule": "declared", "by": None}
    counter = g.rules.score_counter
    scores = {}
    if counter:  # each player's `g.counter(player, counter)`, read here: as many calls less (one a player)
        counters = state["counters"]
        for player in state["players"]:
            values = counters.get(player)
            scores[player] = (
                values[counter] if values is not None and counter in values else counters["table"].get(counter, 0)
            )
    if g.scores_only:  # a projection (scoring.projected_margin) reads the scores alone: no winners, no log line
        turns = state["turn"]["number"]
        state["result"] = {"winners": [], "scores": scores, "reason": ending.get("rule"), "turns": turns}
        state["stage"], state["pending"] = "over", None
        return
    _decided(g, state, ending, counter, scores)


def _decided(g, state: State, ending: dict, counter, scores: dict) -> None:
    """The end of `_result` for a game played on: its winners (the end rule's, else by the scores) and its log line."""
    rule: dict = next((r for r in g.rules.ends if r["id"] == ending.get("rule")), {})
    if not rule and counter:  # ended otherwise (a turn limit, `end_game` with no rule holding): by the score
        rule = next((r for r in g.rules.ends if r.get("counter") == counter), {})
    if state.get("declared") is not None:
        winners = state["declared"]
    elif rule.get("result") == "win" and ending.get("by"):
        winners = [ending["by"]]
    elif rule.get("result") == "loss" and ending.get("by"):
        winners = [p for p in state["players"] if p != ending["by"]]
    elif scores:
        out = out_of_play(g)
        contenders = [p for p in state["players"] if p not in out] or state["players"]
        fewest = rule.get("result") == "least"
        best = (min if fewest else max)(scores[p] for p in contenders)
        winners = [p for p in contenders if scores[p] == best]
        if len(winners) > 1:  # the end rule's tie-breakers decide among the tied
            winners = _tie_broken(g, rule, winners)
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


def _tie_broken(g, rule, tied: list) -> list:
    """The tied players the end rule's `tiebreak` prefers: one expression, or a list applied in order, each
    an expression or `{most: EXPR}` (more is better) or `{least: EXPR}` (less is better), `me` the tied
    player; the first entry that tells them apart decides, and those still tied share the win."""
    spec = rule.get("tiebreak")
    base = f"end/{rule.get('id')}/tiebreak"  # each text compiled under its place in `tiebreak` (compiler.code_key)
    keys = (
        [(base, False)]
        if isinstance(spec, str)
        else [
            (f"{base}/{n}{word}", word == "/least") for n in range(len(spec or [])) for word in ("", "/most", "/least")
        ]
    )
    for key, fewest in keys:
        if len(tied) < 2:
            break
        test = g.rules.code.get(key)
        if test is None:
            continue
        values = {p: _number(test(Ctx(g, {}, p, None))) for p in tied}
        best = (min if fewest else max)(values.values())
        tied = [p for p in tied if values[p] == best]
    return tied


def _number(value) -> int:
    if value is None:
        return 0
    if isinstance(value, (bool, int)):
        return int(value)
    raise ContentError(f"a tie-breaker must be a number, got {value!r}", code="X107")
