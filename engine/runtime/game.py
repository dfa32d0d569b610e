"""One game in progress: the `Game` object everything else holds, and the decision protocol's entry points.

`Game.decision` says who must decide and what is legal (protocol.py); `Game.apply` takes one answer;
agents and people get `Game.view(player)` only (views.py). The rest is done elsewhere, one job a module:

    state.py        the state's typed shape (plain data, JSON at every decision) and a new game's state
    table.py        where cards lie, counters, who sees what, the log (the `Table` mixin: the DSL's helpers)
    interpreter.py  running effects (frames on the state's stack) until someone must decide
    driver.py       the turn structure: setup, turns of actions, the menu, end conditions, final scoring
    undo.py         undoing an action that proves impossible, and pruning the answers that lead there
    imagine.py      copies of a game: `clone`, and `determinized` (re-dealt as one player imagines it)
    scoring.py      how well a player is doing, for the bots that look ahead
    persist.py      checking saves and logs from files; views.py, why.py: what a player may see and why
"""

from __future__ import annotations

import hashlib
import json

from . import imagine, interpreter, persist, scoring, undo

# MAX_CALL_DEPTH and STEP_BUDGET live in budget.py; importable from here as before
from .budget import MAX_CALL_DEPTH, MAX_INT, STEP_BUDGET, WORK_BUDGET, bounded_int, spend  # noqa: F401
from .codegen import pack_function
from .context import Ctx  # noqa: F401 (importable from here as before)
from .errors import ContentError, GameError, Stalled  # noqa: F401 (importable from here as before)
from .log_words import worded_log
from .protocol import CHANCE, END_TURN, SIMULTANEOUS, Decision, allowed_for  # noqa: F401 (as before)
from .rng import Streams
from .scoring import DECIDED  # noqa: F401 (importable from here as before)
from .state import FORMAT, Attempt, Pending, Result, State, Turn, first_state, plain_copy  # noqa: F401
from .table import Table
from .undo import EVERY_OPTION, MANY_OPTIONS
from .views import player_view


class Game(Table):
    state: State
    scores_only = False  # ended only for its scores, then thrown away (scoring.projected_margin, driver._result)
    # the counters' numbers with which every end trigger was last found false (driver._check_end): a game's own, kept
    # off the state; a clone may take its source's, as it says what the numbers were, not which state had them
    ends_quiet: list | None = None
    # the decision answered by several at once (protocol.SIMULTANEOUS) `_advance` last stopped at, none of whose players
    # it could answer at once: while others are still to answer it, an answer only kept changes nothing it reads
    # (interpreter.answer)
    settled: dict | None = None

    def __init__(self, rules, state: State, tables_of: Game | None = None):  # tables_of: the game cloned
        self.rules = rules
        self.state = state
        self.params = state["params"]
        # the owners of counters: a clone's are its source's, as are its players (a game's players never change), a set
        # read only, shared rather than made again for each of a bot's imagined games
        self.counters_of: set[str] = set(state["players"]) | {"table"} if tables_of is None else tables_of.counters_of
        self.rng = Streams(state["rng"], state["seed"])
        self.ends_quiet = None  # (driver._check_end; a clone's is its source's)
        if tables_of is not None and tables_of.layout.order == tuple(state["zones"]):
            self._take_tables(tables_of)
            self.ends_quiet = tables_of.ends_quiet
        else:
            self.bind_tables()  # the zone and card tables of this pack and seating (table.py)
        self.held_memo: dict = {}  # facts that depend only on where cards lie; emptied by every move
        self.work = WORK_BUDGET  # what is left of this answer's work budget (budget.py)
        self.max_answers_per_turn: int | None = None  # None: no limit (replays, tests, imagined games)
        self._answers_in_turn = (None, 0)  # (turn number, answers given in it)
        # the live options and legal answers of one decision, with what they are worked out from (_live_now)
        self._answerable: tuple = (None, -1, None, 0, None, ([], {}), -1)
        # an imagined game read only at this player's menus (agents.GreedyAgent): others' are not worked out (driver._main)
        self.menus_for: str | None = None
        # made here, though their classes' defaults say the same, so that every game holds the same attributes in
        # the same order from the start: CPython then keeps them in one shared layout and reads them fast (an
        # attribute first set later, in play or in clones alone, gives that game an ordinary dict). It lays out 29
        # names at most, for all the games made: these 28, and the `log` a bot's imagined games are given
        # (agents.GreedyAgent), which then stay in place too (the seats' bits are the layout's: log_words.seat_bits;
        # the log's worded lines are kept beside the game: log_words.lines_for)
        self.settled = None
        self.undo_base = None
        self.sharing_snapshot = None  # (Table.sharing_snapshot: a new, loaded or cloned game's state is its own)

    def _take_tables(self, source: Game) -> None:
        """`bind_tables` for a clone (same seating, same zones): the source's tables, its zone masks included. A zone's
        mask is worked out from the seating and the zone's rule alone (log_words._zone_sight), both the clone's as
        they are its source's: a mask one game works out serves all its copies, not worked out again in each.
        Read and set as attributes, in `bind_tables`' order, neither game's `__dict__` read: reading it makes CPython keep
        the game's attributes in a dict of their own, whose every read is then some times slower (vars() did so).
        Each read and set by name, `_BOUND_TABLES` in order: compiled, a third of a loop of `setattr` over the names and
        an `attrgetter`'s tuple of them (issue 16: a bot clones a game for each option it tries;
        tests/test_runtime_speed_t_greedy_look_ahead.py holds the names to `bind_tables`' and each to its table)."""
        self.layout = source.layout
        self._zone_defs = source._zone_defs
        self._slotted = source._slotted
        self._capacity = source._capacity
        self._sight = source._sight
        self._zone_names = source._zone_names
        self._zone_owner = source._zone_owner
        self._own_keys = source._own_keys
        self._card_defs = source._card_defs
        self._card_names = source._card_names
        self._text_names = source._text_names
        self._counter_limits = source._counter_limits
        self.sight_masks = source.sight_masks

    # ------------------------------------------------------------------ creating, saving, copying
    @classmethod
    def new(
        cls, rules, players: int, seed: int = 0, *, max_rounds: int = 500, max_answers_per_turn: int | None = None
    ) -> Game:
        """A new game. `max_answers_per_turn`: a turn that goes on for more answers raises Stalled."""
        low, high = rules.players
        if not low <= players <= high:
            raise GameError(f"this pack is for {low} to {high} players, not {players}", code="X304")
        game = cls(rules, first_state(rules, [f"P{i}" for i in range(1, players + 1)], seed, max_rounds))
        game.max_answers_per_turn = max_answers_per_turn
        for zone_id, zone in rules.zones.items():
            if zone.get("shuffled"):
                for key in game.zone_keys(zone_id):
                    game.rng.shuffle(f"shuffle:{key}", game.state["zones"][key])
        game._advance()
        return game

    def save(self) -> str:
        return json.dumps(self.state, separators=(",", ":"), sort_keys=True)

    @classmethod
    def load(cls, rules, text: str | bytes) -> Game:
        """A saved game, from a file anyone may have written: checked (persist.py) before it is trusted.
        Raises persist.SaveError (a GameError) saying what is wrong and where."""
        return cls.from_save(rules, persist.parse(text, persist.SaveError))

    @classmethod
    def from_save(cls, rules, state, *, schema_checked: bool = False) -> Game:
        """A game from a saved state (parsed JSON), checked against its schema, the pack and itself (persist.py);
        raises SaveError. `schema_checked`: the caller has already run `persist.check_save_schema`."""
        persist.check_loadable(rules, state, schema_checked=schema_checked)
        game = cls(rules, state)
        persist.try_out(game)
        return game

    clone = imagine.clone
    determinized = imagine.determinized
    projected_margin = scoring.projected_margin
    progress = scoring.progress

    def state_hash(self) -> str:
        """The game's fingerprint: equal for equal games, whatever path (or save/load) led there."""
        # `known` (who knows where an unseen card lies) follows from the log: games hash as before it was kept
        bookkeeping = ("attempt", "dead", "undone", "steps", "pack_version", "known")
        public = {k: v for k, v in self.state.items() if k not in bookkeeping}
        public["log"] = worded_log(self)  # however the log is kept, the lines it says (log_words.py)
        return hashlib.sha256(json.dumps(public, separators=(",", ":"), sort_keys=True).encode()).hexdigest()

    def call_function(self, name, args, c, key="", at=0):
        """A pack function called from the text `key` at offset `at`: its body's size is paid for.
        (Compiled expressions call `codegen.pack_function`'s caller directly.)"""
        return pack_function(self.rules, name)(c, key, at, *args)

    def view(self, player) -> dict:
        """What `player` may know: counts for what they cannot see, never card numbers or hidden order."""
        return player_view(self, player)

    # ------------------------------------------------------------------ the state, by name
    # For code outside the game that reads the state now and then; code that runs at every step keeps
    # `state = g.state` in a local (typed by state.State) instead.
    @property
    def over(self) -> bool:
        return self.state["stage"] == "over"

    @property
    def pending(self) -> Pending | None:
        """The decision the game waits for (None when it is over, or between decisions)."""
        return self.state["pending"]

    @property
    def turn(self) -> Turn:
        return self.state["turn"]

    @property
    def turn_number(self) -> int:
        return self.state["turn"]["number"]

    @property
    def turn_player(self) -> str:
        return self.state["turn"]["player"]

    @property
    def players(self) -> list[str]:
        """The seats, in turn order."""
        return self.state["players"]

    @property
    def history(self) -> list:
        """Every answer so far, `[who, option]`: with the seed and the pack, the whole game."""
        return self.state["history"]

    @property
    def result(self) -> Result | None:
        """Winners, scores, the reason and the turns, once the game is over."""
        return self.state["result"]

    @property
    def seed(self) -> int:
        return self.state["seed"]

    @property
    def attempt(self) -> Attempt | None:
        """The action under way, with the state to return to should it prove impossible (undo.py)."""
        return self.state["attempt"]

    # ------------------------------------------------------------------ the decision protocol
    @property
    def decision(self) -> Decision | None:
        pending = self.state["pending"]
        if pending is None:
            return None
        return Decision(pending, list(self._live_now(pending)[0]))

    def _live_now(self, pending) -> tuple[list[int], dict]:
        """The live options of `pending` (undo.live_options) and a place for each player's legal answers among
        them (`_legal_now`), worked out once for the decision rather than at each of `decision`, `legal`,
        `apply` and the run to the next decision (interpreter.advance), which all ask. Kept with all it is
        worked out from: the pending decision itself (a new decision is a new dict; the engine changes one in
        place only as its players answer, which `allowed_for` does not read: `by`, `answers`), its options, the
        dead ends known (a new list whenever undo.fail adds one) and the answers so far of the action under way
        (the attempt's `path`, appended to as a decision is answered). With no dead end known the live options
        are every option, whatever the path: kept with no list of dead ends (None), the repeat asks compare only
        the decision, by identity, and its number of options. Callers never change what it returns."""
        known = self._answerable
        if known[0] is pending and known[1] == len(pending["options"]):
            dead = self.state["dead"]
            if not dead:
                if known[2] is None:  # worked out with no dead end known either
                    return known[5]
            elif known[2] is dead and known[3] == len(dead):
                attempt = self.state["attempt"]
                if known[4] is attempt and (attempt is None or known[6] == len(attempt["path"])):
                    return known[5]
        return self._work_out_live(pending)

    def _work_out_live(self, pending) -> tuple[list[int], dict]:
        """`_live_now` for a decision asked for the first time (or whose key has changed): kept with its key."""
        state = self.state
        dead, attempt = state["dead"], state["attempt"]
        count = len(pending["options"])
        # with no dead end known, `undo.live_options`' answer without its call: every option
        live = EVERY_OPTION[count][:] if not dead and count < MANY_OPTIONS else self._live(pending)
        answerable: tuple[list[int], dict] = (live, {})
        self._answerable = (
            pending,
            count,
            dead or None,  # the dead ends and the action's answers so far matter only when there are some
            len(dead),
            attempt,
            answerable,
            len(attempt["path"]) if attempt is not None else -1,
        )
        return answerable

    def _legal_now(self, pending, player) -> list[int]:
        """`allowed_for(pending, player, live options)`, once per decision and player (`_live_now`)."""
        known = self._answerable
        if known[0] is pending and known[2] is None and not self.state["dead"] and known[1] == len(pending["options"]):
            live, legal = known[5]  # (`_live_now`'s commonest answer without its call: no dead end known, nor then)
        else:
            live, legal = self._live_now(pending)
        answers = legal.get(player)
        if answers is None:
            answers = legal[player] = allowed_for(pending, player, live)
        return answers

    def rebuild_menu(self):
        """Work out the turn's menu again, after a tool or a test has edited the state by hand."""
        pending = self.state["pending"]
        if pending is not None and pending["kind"] == "action" and self.state["attempt"] is None:
            self.state["pending"] = None
            self.state["dead"], self.state["undone"] = [], {}
            self._advance()

    def legal(self, player=None) -> list[int]:
        pending = self.state["pending"]  # not via `decision`: no Decision is built just for this
        if pending is None or (player is not None and player not in pending["by"]):
            return []
        return list(self._legal_now(pending, player))

    def apply(self, option: int, player=None):
        """Answer the pending decision. `player` defaults to the only one who must answer."""
        pending = self.state["pending"]
        if pending is None:
            raise GameError("the game is over" if self.over else "no decision is pending", code="X201")
        if player is None:
            if len(pending["by"]) != 1:
                raise GameError(f"several players must answer ({', '.join(pending['by'])}): say who", code="X202")
            player = pending["by"][0]
        if player not in pending["by"]:
            raise GameError(f"{player} has nothing to decide now", code="X203")
        if option not in self._legal_now(pending, player):
            raise GameError(f"{option!r} is not a legal answer", code="X204")
        if self.max_answers_per_turn is not None:
            self._count_answer()
        if player == CHANCE:  # the stream moves on whoever answered (the state's model or a person)
            self.rng.weighted(f"chance:{pending.get('stream', 'dice')}", pending["probs"])
        self._take(player, option)

    def _take(self, player, option):
        """Apply an answer found legal (and counted): recorded, given, and the game run to the next decision."""
        self.work = WORK_BUDGET
        self.state["history"].append([player, option])
        if self._answer(player, option):  # only kept, and `_advance` would stop at once: only its first line is run
            self.state["steps"] = 0
            return
        self._advance()

    def _count_answer(self):
        """One more answer in this turn; Stalled, before it is applied, when it passes the limit."""
        number = self.state["turn"]["number"]
        seen, answers = self._answers_in_turn
        if seen != number:
            answers = 0
        if answers >= self.max_answers_per_turn:
            raise Stalled(self, answers)
        self._answers_in_turn = (number, answers + 1)

    def apply_chance(self):
        """Let the state's own random stream answer a chance decision (dice, an oracle's model).
        The draw `apply` makes for a chance answer is made once, on the game's stream: an outcome that is legal
        with no answer limit to count is taken at once; otherwise the stream is put back as it was and `apply`
        answers the long way (it checks, counts and draws again, the same draw), raising as it always has."""
        pending = self.state["pending"]
        if pending is None or pending["by"] != [CHANCE]:
            raise GameError("no chance decision is pending", code="X201")
        stream = f"chance:{pending.get('stream', 'dice')}"
        table = self.rng.table
        before = table.get(stream)
        option = self.rng.weighted(stream, pending["probs"])
        if self.max_answers_per_turn is None and option in self._legal_now(pending, CHANCE):
            self._take(CHANCE, option)
            return
        if before is None:
            del table[stream]
        else:
            table[stream] = before
        self.apply(option, CHANCE)

    # ------------------------------------------------------------------ done elsewhere, bound here
    # Plain functions of the game, bound as methods: `self._advance()` costs what it did as a method.
    push = interpreter.push  # start an effect
    _answer = interpreter.answer  # one answer, to the verb that asked or the menu
    _run_frame = interpreter.run_frame  # run the innermost effect until it ends or waits
    _interpret = interpreter.interpret  # ... step by step
    _advance = interpreter.advance  # run until someone must decide
    _live = undo.live_options  # the options, less the known dead ends
    fail = undo.fail  # undo the current action: it cannot be done this way


# what Table.bind_tables sets that is the same for every game of a pack and seating (Game._take_tables sets each)
_BOUND_TABLES = (
    "layout",
    "_zone_defs",
    "_slotted",
    "_capacity",
    "_sight",
    "_zone_names",
    "_zone_owner",
    "_own_keys",
    "_card_defs",
    "_card_names",
    "_text_names",
    "_counter_limits",
)
