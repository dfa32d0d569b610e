"""One game in progress: plain-data state, the turn driver, the decision protocol and player views.

The state (`Game.state`) is JSON-serialisable at every decision, including effects half-way through:
their frames (code key, step, locals) sit on an explicit stack. `Game.decision` says who must decide
and what is legal; `Game.apply` takes one answer. Agents and people get `Game.view(player)` only.
"""
from __future__ import annotations

import hashlib
import json
import marshal

from . import lowering
# MAX_CALL_DEPTH and STEP_BUDGET live in budget.py; importable from here as before
from .budget import MAX_CALL_DEPTH, MAX_INT, STEP_BUDGET, WORK_BUDGET, bounded_int, spend  # noqa: F401
from .codegen import pack_function
from .errors import ContentError
from .log_words import worded_log
from .rng import Streams
from .table import Table

FORMAT = "knap-state/1"
MAX_FRAMES = 64                # effects performing effects
DECIDED = 1_000                # what a won (or lost) game is worth to `projected_margin`, beyond any score
END_TURN = "end_turn"
MAX_WHY = 1_000                # characters of the reason an undone action gives (a save's schema allows 4,000)
CHANCE = "chance"


def plain_copy(data):
    """A deep copy of plain data (dicts, lists, text, numbers): marshal does it in C, far faster than
    copy.deepcopy."""
    return marshal.loads(marshal.dumps(data))


class GameError(Exception):
    """An answer that is not legal, or a game that cannot continue."""


class Stalled(GameError):
    """A turn (a round, in a pack played in rounds) has gone on for more answers than the game allows
    (`Game.max_answers_per_turn`) without ending: a content bug, reported with the game's seed. The
    answer that would have passed the limit is not applied, so the game's log replays up to here."""

    def __init__(self, game, answers: int):
        turn = game.state["turn"]
        what = f"round {turn['number']}" if game.rules.in_rounds else f"turn {turn['number']} ({turn['player']})"
        super().__init__(f"{what} has gone on for {answers} answers without ending: the game stalls (an action "
                         "that can be taken again and again at no cost? see `knap lint`, D007)")
        self.turn, self.answers, self.seed = turn["number"], answers, game.state["seed"]


APPEND_ONLY = ("log", "history")     # state lists whose entries, once appended, never change
SIMULTANEOUS = ("invite", "bid", "secret")    # answered by several players at once: never pruned


def allowed_for(pending, player, legal):
    """The options one player may give: a bid up to what the player holds (`limit`), or the player's own
    options of a choice made by everyone at once (`allowed`)."""
    limit = pending.get("limit", {}).get(player)
    if limit is not None:
        legal = [o for o in legal if o < limit]
    allowed = pending.get("allowed", {}).get(player)
    if allowed is not None:
        own = set(allowed)
        legal = [o for o in legal if o in own]
    return legal


class Ctx:
    """What an expression sees: the game, the frame's locals, the acting player, its card, a `where` item."""
    __slots__ = ("g", "env", "me", "card", "item", "depth")

    def __init__(self, g, env, me, card):
        self.g, self.env, self.me, self.card, self.item, self.depth = g, env, me, card, None, 0


class Decision:
    """Who must decide now and what they may answer (option keys index `options`)."""
    __slots__ = ("players", "kind", "prompt", "options", "legal", "blind", "probabilities")

    def __init__(self, pending, legal):
        self.players = list(pending["by"])
        self.kind = pending["kind"]
        self.prompt = pending.get("prompt", "")
        self.options = pending["options"]
        self.legal = legal
        self.blind = pending.get("blind", False)
        self.probabilities = pending.get("probs")

    @property
    def is_chance(self):
        return self.players == [CHANCE]


class Game(Table):
    def __init__(self, rules, state: dict):
        self.rules = rules
        self.state = state
        self.params = state["params"]
        self.counters_of = set(state["players"]) | {"table"}
        self.rng = Streams(state["rng"], state["seed"])
        self.bind_tables()            # the zone and card tables of this pack and seating (table.py)
        self.held_memo: dict = {}     # facts that depend only on where cards lie; emptied by every move
        self.work = WORK_BUDGET       # what is left of this answer's work budget (budget.py)
        self.max_answers_per_turn: int | None = None    # None: no limit (replays, tests, imagined games)
        self._answers_in_turn = (None, 0)               # (turn number, answers given in it)

    # ------------------------------------------------------------------ creating, saving, copying
    @classmethod
    def new(cls, rules, players: int, seed: int = 0, *, max_rounds: int = 500,
            max_answers_per_turn: int | None = None) -> "Game":
        """A new game. `max_answers_per_turn`: a turn that goes on for more answers raises Stalled."""
        low, high = rules.players
        if not low <= players <= high:
            raise GameError(f"this pack is for {low} to {high} players, not {players}")
        names = [f"P{i}" for i in range(1, players + 1)]
        zones = {}
        for zone_id, zone in rules.zones.items():
            keys = [f"{zone_id}:{p}" for p in names] if zone.get("owner") == "player" else [zone_id]
            for key in keys:
                zones[key] = [None] * int(zone["slots"]) if zone.get("type") == "row" and zone.get("slots") else []
        for p in names:
            zones[f"_drawn:{p}"] = []
        zones["_removed"] = []
        loc = []
        for number, (zone, slot, seat) in enumerate(rules.start):
            if seat is not None:          # one set per player; the sets of absent seats stay in the box
                zone = f"{zone}:P{seat}" if seat <= players else "_removed"
            if zone not in zones:
                zone = "_removed"
            if slot and zones[zone] and slot <= len(zones[zone]) and zones[zone][slot - 1] is None:
                zones[zone][slot - 1] = number
            else:
                zones[zone].append(number)
            loc.append(zone)
        counters = {p: {} for p in names + ["table"]}
        for counter_id, counter in rules.counters.items():
            for owner in (names if counter.get("owner") == "player" else ["table"]):
                counters[owner][counter_id] = int(counter.get("start", 0))
        state = {
            "format": FORMAT, "pack": rules.pack_id, "pack_version": rules.fingerprint, "seed": int(seed),
            "players": names,
            "params": rules.parameters(players), "rng": {}, "zones": zones, "loc": loc,
            "orient": [0] * len(rules.instances), "shown": {}, "counters": counters,
            "flags": {p: {} for p in names + ["table"]}, "used": {p: {} for p in names},
            "turn": {"player": names[0], "number": 0, "acted": False, "used": {}, "ending": False},
            "stage": "setup", "stack": [], "pending": None, "ending": None, "attempt": None, "dead": [], "undone": {},
            "result": None, "max_turns": max_rounds * (1 if rules.in_rounds else players), "log": [], "history": [], "steps": 0,
        }
        game = cls(rules, state)
        game.max_answers_per_turn = max_answers_per_turn
        for zone_id, zone in rules.zones.items():
            if zone.get("shuffled"):
                for key in game.zone_keys(zone_id):
                    game.rng.shuffle(f"shuffle:{key}", zones[key])
        game._advance()
        return game

    def clone(self) -> "Game":
        """An independent copy, for search and for agents' imagined games. The log and the history only
        grow and their entries are never changed, so the copy shares the entries (long games carry
        thousands of them) and copies the rest."""
        state = self.state
        copied = plain_copy({k: v for k, v in state.items() if k not in APPEND_ONLY})
        for key in APPEND_ONLY:
            copied[key] = list(state[key])
        return Game(self.rules, copied)

    def save(self) -> str:
        return json.dumps(self.state, separators=(",", ":"), sort_keys=True)

    @classmethod
    def load(cls, rules, text: str | bytes) -> "Game":
        """A saved game, from a file anyone may have written: checked (persist.py) before it is trusted.
        Raises persist.SaveError (a GameError) saying what is wrong and where."""
        from . import persist
        return persist.load_game(rules, persist.parse(text, persist.SaveError))

    def state_hash(self) -> str:
        """The game's fingerprint: equal for equal games, whatever path (or save/load) led there."""
        bookkeeping = ("attempt", "dead", "undone", "steps", "pack_version")
        public = {k: v for k, v in self.state.items() if k not in bookkeeping}
        public["log"] = worded_log(self)       # however the log is kept, the lines it says (log_words.py)
        return hashlib.sha256(json.dumps(public, separators=(",", ":"), sort_keys=True).encode()).hexdigest()

    def call_function(self, name, args, c, key="", at=0):
        """A pack function called from the text `key` at offset `at`: its body's size is paid for.
        (Compiled expressions call `codegen.pack_function`'s caller directly.)"""
        return pack_function(self.rules, name)(c, key, at, *args)

    def view(self, player) -> dict:
        """What `player` may know: counts for what they cannot see, never card numbers or hidden order."""
        from .views import player_view
        return player_view(self, player)

    def determinized(self, player, seed: int) -> "Game":
        """A copy in which everything `player` cannot see is re-dealt at random: hidden cards trade places
        with hidden cards from the same home deck (where a card came from is public: the log says which
        deck was drawn). Its view for `player` is the same as the real game's (tests check this)."""
        import random
        copy = self.clone()
        rnd = random.Random(seed)
        state = copy.state
        groups: dict[str, list[tuple[str, int]]] = {}
        for key, cards in state["zones"].items():
            for i, card in enumerate(cards):
                if card is not None and not copy.can_see(card, player):
                    # a per-player set's cards trade places only with cards of the same set
                    home = (copy.card_def(card).get("deck") or "", self.rules.start[card][2])
                    groups.setdefault(home, []).append((key, i))
        for slots in groups.values():
            cards = [state["zones"][k][i] for k, i in slots]
            rnd.shuffle(cards)
            for (k, i), card in zip(slots, cards):
                state["zones"][k][i] = card
                state["loc"][card] = k
        pending = state["pending"]
        if pending is not None and pending.get("answers"):   # others' secret answers are not known yet
            for other in [p for p in pending["answers"] if p != player]:
                del pending["answers"][other]
                pending["by"].append(other)
        state["rng"] = {name: rnd.getrandbits(64) for name in state["rng"]}
        state["seed"] = rnd.getrandbits(32)
        copy.rng = Streams(state["rng"], state["seed"])
        return copy

    def projected_margin(self, player, *, in_place: bool = False) -> int:
        """The player's score minus the best other score, were the game to end now (the pack's end
        scoring included): a game-independent measure of how well a player is doing. `in_place`: end this
        very game instead of a copy, for a game thrown away afterwards (a bot's imagined game): the same
        number without the cost of a clone. A pack with no score counter ends with no scores
        (driver._result): its measure is the progress of the game as it stands, and nothing is ended."""
        counter = self.rules.score_counter
        over = self.over
        scores = (self.state["result"] or {}).get("scores") if over else None
        if not over and counter:
            now = {p: self.counter(p, counter) for p in self.state["players"]}
            finished = self if in_place else self.clone()
            finished.work = WORK_BUDGET
            state = finished.state
            state["stack"], state["pending"], state["attempt"] = [], None, None
            state["ending"] = state["ending"] or {"rule": "projection", "by": None, "queue": []}
            state["stage"] = "game_end"
            try:
                finished._advance()      # stops early if the scoring asks a question: the score before it is used
                scores = (finished.state["result"] or {}).get("scores")
            except (ContentError, GameError):
                pass
            scores = scores or now
        if not scores:
            scores = {p: self.counter(p, counter) for p in self.state["players"]} if counter else self.progress()
        others = [v for p, v in scores.items() if p != player]
        margin = scores.get(player, 0) - (max(others) if others else 0)
        if over:     # a game decided by winning or losing (a solo or cooperative end) counts that first
            winners = self.state["result"]["winners"]
            margin += DECIDED if player in winners else -DECIDED if winners or not scores else 0
        return margin

    def progress(self) -> dict:
        """Each player's progress towards the end rules that declare one (`progress:`), for games with no
        score: how a bot that looks ahead compares positions. Empty when no end rule declares it."""
        keys = [f"end/{rule['id']}/progress" for rule in self.rules.ends
                if f"end/{rule['id']}/progress" in self.rules.code]
        if not keys:
            return {}
        self.work = WORK_BUDGET
        return {p: sum(int(self.rules.code[k](Ctx(self, {}, p, None)) or 0) for k in keys)
                for p in self.state["players"]}

    # ------------------------------------------------------------------ the decision protocol
    @property
    def over(self) -> bool:
        return self.state["stage"] == "over"

    @property
    def decision(self) -> Decision | None:
        pending = self.state["pending"]
        if pending is None:
            return None
        return Decision(pending, self._legal(pending))

    def _legal(self, pending) -> list[int]:
        """Every option, less those already found to lead to a dead end from this very state."""
        count = len(pending["options"])
        dead = self.state["dead"]
        if not dead or pending["kind"] in SIMULTANEOUS:
            return list(range(count))
        attempt = self.state["attempt"]
        if attempt is None:
            if pending["kind"] != "action":
                return list(range(count))
            path = []
        else:
            path = attempt["path"]
        depth = len(path)
        gone = {d[-1] for d in dead if len(d) == depth + 1 and d[:depth] == path}
        return [i for i in range(count) if i not in gone]

    def rebuild_menu(self):
        """Work out the turn's menu again, after a tool or a test has edited the state by hand."""
        pending = self.state["pending"]
        if pending is not None and pending["kind"] == "action" and self.state["attempt"] is None:
            self.state["pending"] = None
            self.state["dead"], self.state["undone"] = [], {}
            self._advance()

    def legal(self, player=None) -> list[int]:
        pending = self.state["pending"]         # not via `decision`: no Decision is built just for this
        if pending is None or (player is not None and player not in pending["by"]):
            return []
        return allowed_for(pending, player, self._legal(pending))

    def apply(self, option: int, player=None):
        """Answer the pending decision. `player` defaults to the only one who must answer."""
        pending = self.state["pending"]
        if pending is None:
            raise GameError("the game is over" if self.over else "no decision is pending")
        if player is None:
            if len(pending["by"]) != 1:
                raise GameError(f"several players must answer ({', '.join(pending['by'])}): say who")
            player = pending["by"][0]
        if player not in pending["by"]:
            raise GameError(f"{player} has nothing to decide now")
        if option not in allowed_for(pending, player, self._legal(pending)):
            raise GameError(f"{option!r} is not a legal answer")
        if self.max_answers_per_turn is not None:
            self._count_answer()
        self.work = WORK_BUDGET
        self.state["history"].append([player, option])
        if player == CHANCE:   # the stream moves on whoever answered (the state's model or a person)
            self.rng.weighted(f"chance:{pending.get('stream', 'dice')}", pending["probs"])
        self._answer(player, option)
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
        """Let the state's own random stream answer a chance decision (dice, an oracle's model)."""
        pending = self.state["pending"]
        if pending is None or pending["by"] != [CHANCE]:
            raise GameError("no chance decision is pending")
        peek = Streams(dict(self.state["rng"]), self.state["seed"])
        self.apply(peek.weighted(f"chance:{pending.get('stream', 'dice')}", pending["probs"]), CHANCE)

    def _answer(self, player, option):
        state = self.state
        pending = state["pending"]
        if len(pending["by"]) > 1 or pending.get("answers") is not None:
            pending.setdefault("answers", {})[player] = option
            pending["by"] = [p for p in pending["by"] if p != player]
            if pending["by"]:
                return
            answer = [pending["answers"][p] for p in pending["order"]]
            if state["attempt"] is not None:
                state["attempt"]["path"].append(",".join(map(str, answer)))
                state["attempt"]["counts"].append(-1)      # answers of several players: never pruned
            state["pending"] = None
            frame = state["stack"][-1]
            self._resume_verb(frame, self.rules.code[frame["code"]].steps[frame["pc"]], answer)
            return
        else:
            answer = option
        state["pending"] = None
        if state["attempt"] is not None:
            state["attempt"]["path"].append(answer)
            state["attempt"]["counts"].append(len(pending["options"]))
        if pending["kind"] == "action":
            from .driver import start_action
            start_action(self, pending["options"][answer], pending, answer)
            return
        frame = state["stack"][-1]
        step = self.rules.code[frame["code"]].steps[frame["pc"]]
        self._resume_verb(frame, step, answer)

    # ------------------------------------------------------------------ running effects
    def push(self, code_key: str, me, card=None, env=None):
        if len(self.state["stack"]) >= MAX_FRAMES:
            raise ContentError(f"effects perform each other more than {MAX_FRAMES} deep", code_key)
        self.state["stack"].append({"code": code_key, "pc": 0, "env": env or {}, "me": me, "card": card,
                                    "wait": None})

    def _resume_verb(self, frame, step, answer):
        ctx = Ctx(self, frame["env"], frame["me"], frame["card"])
        code = self.rules.code[frame["code"]]
        try:
            pending = step[1].resume(self, ctx, frame, answer)
        except ContentError as exc:
            if not exc.code_key:
                exc.code_key, exc.offset = code.key, code.offsets[frame["pc"]]
            raise
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
            raise ContentError(f"this cannot be done with these values ({exc})", code.key,
                               code.offsets[frame["pc"]]) from None
        if pending is None:
            frame["wait"] = None
            frame["pc"] += 1
        else:
            self.state["pending"] = pending

    def fail(self, why: str | None = None):
        """The current action cannot be done this way: restore the state from before it and remember
        the answers that led here, so they are not offered again (no dead ends reach the players).
        `why` (why.py) is kept for the menu and logged for the player: "<action> undone: <why>"."""
        state = self.state
        attempt = state["attempt"]
        if attempt is None:
            # outside an action (setup, a phase): the effect just stops
            state["stack"].pop()
            return
        dead = state["dead"] + [attempt["path"]]
        # a question all of whose answers are dead ends is itself a dead end, up to the action's own choice
        prefix, counts = attempt["path"], attempt["counts"]
        while len(prefix) > 1 and counts[len(prefix) - 1] >= 0:
            parent = prefix[:-1]
            gone = {d[-1] for d in dead if len(d) == len(prefix) and d[:-1] == parent}
            if len(gone) < counts[len(prefix) - 1]:
                break
            dead.append(parent)
            prefix = parent
        snap = attempt["snap"]
        log, history = state["log"][:attempt["log"]], state["history"]
        undone = dict(state.get("undone") or {})
        state.clear()
        state.update(snap)
        self.held_memo = {}
        state["log"], state["history"], state["dead"] = log, history, dead
        self.rng = Streams(state["rng"], state["seed"])
        action = attempt["action"]
        why = (why or undone.get(action) or "it cannot be done this way")[:MAX_WHY]
        undone[action] = why
        state["undone"] = undone
        me, name = state["turn"]["player"], self.label(action)
        self.log(f"{me} takes back {name}", {me: f"{name} undone: {why}"})

    def _run_frame(self):
        """Run the innermost effect until it ends or waits: its lowered Python (lowering.py) from the step
        its frame is at, else (no such function, or near the step budget) step by step."""
        frame = self.state["stack"][-1]
        code = self.rules.code[frame["code"]]
        entries = code.entries
        if entries is None:
            entries = code.entries = {}
        pc = frame["pc"]
        try:
            run = entries[pc]
        except KeyError:
            run = entries[pc] = lowering.entry(code, pc)
        if run is not None and run(self, frame, Ctx(self, frame["env"], frame["me"], frame["card"])):
            return
        self._interpret(frame, code)

    def _interpret(self, frame, code):
        """The effect's steps one by one, from where its frame is: the reference the lowered functions
        follow, and what runs frames saved at a step no function starts from."""
        state = self.state
        steps = code.steps
        ctx = Ctx(self, frame["env"], frame["me"], frame["card"])
        env = frame["env"]
        while True:
            pc = frame["pc"]
            if pc >= len(steps):
                state["stack"].pop()
                return
            state["steps"] += 1
            if state["steps"] > STEP_BUDGET:
                raise ContentError(f"the effect ran more than {STEP_BUDGET} steps without a decision",
                                   code.key, code.offsets[pc])
            step = steps[pc]
            op = step[0]
            try:
                if op == "verb":
                    outcome = step[1].run(self, ctx, frame)
                    if outcome is None:
                        frame["pc"] = pc + 1
                        continue
                    lowering.stopped(self, frame, ctx, code, pc, outcome)   # failed, yielded or asks
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
                    items = self.items_of(step[2](ctx))
                    spend(self, len(items))
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
                if not exc.code_key:
                    exc.code_key, exc.offset = code.key, code.offsets[pc]
                raise
            except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
                # content combined values in a way no check caught: an error at its line, not a traceback
                raise ContentError(f"this cannot be done with these values ({exc})", code.key,
                                   code.offsets[pc]) from None
            frame["pc"] = pc + 1

    def _advance(self):
        """Run until someone must decide or the game is over."""
        from . import driver
        self.state["steps"] = 0
        while not self.over:
            pending = self.state["pending"]
            if pending is not None:
                legal = self._legal(pending)
                if not legal:
                    if self.state["attempt"] is not None:
                        from .why import dead_end
                        self.fail(dead_end(self, pending.get("prompt", "")))
                        continue
                    raise GameError(f"nobody can answer: {pending.get('prompt', '')}")
                if len(legal) == 1 and pending["by"] != [CHANCE] and len(pending["by"]) == 1 \
                        and pending["kind"] not in ("ask", "invite", "action"):
                    self._answer(pending["by"][0], legal[0])
                    continue
                if pending["kind"] in ("secret", "bid"):   # those with one possible answer give it at once
                    forced = [(p, own[0]) for p in pending["by"] if len(own := allowed_for(pending, p, legal)) == 1]
                    if forced:
                        for player, option in forced:
                            self._answer(player, option)
                        continue
                return
            if self.state["stack"]:
                self._run_frame()
                continue
            driver.step(self)
