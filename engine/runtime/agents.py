"""Players that are not people at the table: they all speak the decision protocol and see only views.

`act(view, legal, model)` returns one of the legal option keys. `model()` gives a copy of the game
as the agent's player could imagine it (what they cannot see re-randomised), for agents that look
ahead; it is never the real game. An agent that reads nothing of the board sets `needs_view = False`
and gets only `{"you": PLAYER}`: building a full view for every decision of a simulation is costly.
"""

from __future__ import annotations

import random

from .log_words import unread_log as _unread_log  # (kept under its old name)
from .protocol import CHANCE, END_TURN
from .rollout import play_on
from .search import SearchAgent


class RandomAgent:
    name = "random"
    needs_view = False

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def act(self, view, legal, model=None):
        return legal[self.rng.randrange(len(legal))]


class GreedyAgent:
    """Tries each option on an imagined copy of the game, plays the rest of its own decisions at random,
    and keeps the option whose "if the game ended now" score (the pack's own end scoring) is best.

    Ending the turn is chosen only when it is strictly best. The score seldom moves within one turn (what
    an action gathers scores later, beyond the rollout), so ending the turn often ties with acting; a blind
    tie-break then threw away whole turns (about one turn in twelve in a built-in pack's 3-player games). After
    `TIED_ACTIONS` actions in one turn a tie no longer keeps the turn going: a free action that changes
    nothing would otherwise be taken for ever.

    The look-ahead is most of a bot's cost, so it copies no more than it must (issue 16): the imagined
    deal is copied for each option but the last, which plays on the deal itself, and each rollout's game
    is scored in place (`projected_margin(in_place=True)`). The choices are those of copying everything
    (tests/test_greedy_agent.py plays both side by side)."""

    name = "greedy"
    TIED_ACTIONS = 20
    needs_view = False
    # `greedy:N` tries each option on N imagined deals and adds up the margins: one random look-ahead says
    # little in a game of many dice and draws, N of them say more, for N times the cost
    option = ("rollouts", 1, 64)

    def __init__(self, seed: int = 0, rollout_steps: int = 40, rollouts: int = 1):
        self.rng = random.Random(seed)
        self.rollout_steps = rollout_steps
        self.rollouts = rollouts

    def act(self, view, legal, model=None):
        if model is None or len(legal) == 1:
            return legal[self.rng.randrange(len(legal))]
        me = view["you"]
        totals = [0] * len(legal)
        passes: set | tuple = ()
        for deal in range(self.rollouts):
            imagined = model(deal) if deal else model()  # one imagined deal, tried once per option
            at_menu = imagined.pending["kind"] == "action"
            # the imagined game's legal answers, worked out once for every option's copy (each copies the same
            # decision): an option among them is taken as `apply` takes it, without its checks again per option
            legal_here = imagined._legal_now(imagined.pending, me) if _answers_unchecked(imagined, me) else ()
            if not deal:
                pending = imagined.pending  # read before the last option uses the imagined game up
                acting = pending["kind"] == "action" and sum(imagined.turn["used"].values()) < self.TIED_ACTIONS
                passes = {o for o in legal if pending["options"][o] == END_TURN} if acting else ()
            last = len(legal) - 1
            for number, option in enumerate(legal):
                # the last option may use up the deal; the others' copies share its zone lists and maps of counters, and
                # copy only those they change (imagine.clone): the deal is left as it is until the last option
                game = imagined.clone(sharing_lists=True) if number < last else imagined
                game.menus_for = me  # the rollout stops at another's menu: it is not worked out (driver._main)
                game.log = _unread_log  # nobody reads the log of a game thrown away: its lines are not kept (Table.log)
                if number < last and at_menu:  # the deal is left as it is until the last option: the action
                    game.undo_base = imagined.state  # chosen keeps it as its undo snapshot, with no copy of its own
                if option in legal_here:
                    game._take(me, option)  # (Game.apply, its checks passed: a legal answer of this player's)
                else:
                    game.apply(option, me)  # (raises as ever for an option not legal here)
                self._rollout(game, me)
                totals[number] += game.projected_margin(me, in_place=True)  # (scoring.py) the game is thrown away
        best_value = max(totals)
        best = [option for option, total in zip(legal, totals, strict=True) if total == best_value]
        if len(best) > 1 and passes:  # a tie: act, not pass
            best = [o for o in best if o not in passes]
        return best[self.rng.randrange(len(best))]

    def _rollout(self, game, me):
        """Play on at random as `rollout.play_on` does (its docstring says where it stops)."""
        play_on(game, me, self.rng.getrandbits, self.rollout_steps)


def _answers_unchecked(game, player) -> bool:
    """Whether `game.apply(option, player)` of a legal option is `game._take(player, option)`: the player must answer
    the pending decision, is no chance, and no answers are counted (an imagined game's, as `Game.clone` makes it)."""
    pending = game.state["pending"]
    return pending is not None and player in pending["by"] and player != CHANCE and game.max_answers_per_turn is None


AGENTS = {"random": RandomAgent, "greedy": GreedyAgent, "ismcts": SearchAgent}


def _parsed(name: str):
    """An agent's class and settings from its name: `greedy`, or `greedy:4` for an agent with an `option`
    (its name, lowest and highest value), or `ismcts:250ms` for one with `units` (a suffix, and the option it sets
    instead); None for a name that is no agent."""
    base, colon, value = name.partition(":")
    kind = AGENTS.get(base)
    if kind is None or not colon:
        return (kind, {}) if kind is not None else None
    option = getattr(kind, "option", None)
    for unit, instead in getattr(kind, "units", {}).items():
        if value.endswith(unit):
            option, value = instead, value[: -len(unit)]
            break
    if option is None or not value.isdigit() or not option[1] <= int(value) <= option[2]:
        return None
    return kind, {option[0]: int(value)}


def known(name: str) -> bool:
    """Whether a name names an agent (`greedy`, `greedy:4`)."""
    return _parsed(name) is not None


def names() -> str:
    """The agents' names for a message: `random, greedy[:ROLLOUTS 1-64], ismcts[:ITERATIONS 1-100000|MILLISECONDS
    1-600000ms]`."""
    return ", ".join(name + _options_named(kind) for name, kind in AGENTS.items())


def _options_named(kind) -> str:
    option = getattr(kind, "option", None)
    if option is None:
        return ""
    named = [f"{option[0].upper()} {option[1]}-{option[2]}"]
    named += [f"{o[0].upper()} {o[1]}-{o[2]}{unit}" for unit, o in getattr(kind, "units", {}).items()]
    return f"[:{'|'.join(named)}]"


def make(name: str, seed: int):
    parsed = _parsed(name)
    if parsed is None:
        raise ValueError(f"unknown agent `{name}`; agents: {names()}")
    kind, settings = parsed
    return kind(seed, **settings)
