"""The games `knap serve` holds in memory: who plays each seat, the bots that play by themselves, undo,
save and load.

A table is changed only under its lock, and every change moves its `version` on, which is all a page asks
when it polls. Bots think on a copy of the game outside the lock (a person's tab is never kept waiting by a
bot's look-ahead) and their answer is applied only if nothing changed meanwhile.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
from dataclasses import dataclass, field

from engine.runtime import agents, session
from engine.runtime.errors import ContentError
from engine.runtime.game import CHANCE, Game, GameError

HUMAN = session.HUMAN
MAX_TABLES = 64  # games kept in memory at once; the oldest finished one makes way for a new one
ORACLES = ("model", "ask")


class Refused(Exception):
    """A request the table cannot take (an answer no longer legal, a seat that is not a person's): the words
    say why, and the page shows them."""


@dataclass
class Snapshot:
    seat: str
    answers: int  # how many answers the game had when the seat was asked
    saved: str  # Game.save() at that moment


@dataclass
class Table:
    id: str
    rules: object
    game: Game
    seats: list[str]  # per seat, in turn order: "human" or an agent's name
    oracle: str = "model"  # "ask": a person answers the physical outcomes
    tokens: dict[str, str] = field(default_factory=dict)  # seat -> the secret in its page's address
    version: int = 0
    snapshots: list[Snapshot] = field(default_factory=list)
    branches: list[list] = field(default_factory=list)  # the answers an undo left behind, each a branch
    error: str = ""
    lock: threading.RLock = field(default_factory=threading.RLock)
    _worker: threading.Thread | None = None

    def __post_init__(self):
        for player in self.game.players:
            self.tokens.setdefault(player, secrets.token_urlsafe(12))

    # ------------------------------------------------------------------ who plays
    def seat_kind(self, player: str) -> str:
        return self.seats[self.game.players.index(player)]

    def is_human(self, player: str) -> bool:
        return self.seat_kind(player) == HUMAN

    @property
    def humans(self) -> list[str]:
        return [p for p in self.game.players if self.is_human(p)]

    def oracle_for_people(self) -> bool:
        """The game waits for a physical outcome that a person reports (oracle `ask`)."""
        decision = self.game.decision
        return decision is not None and decision.is_chance and decision.kind == "oracle" and self.oracle == "ask"

    def can_undo(self, seat: str) -> bool:
        return any(s.seat == seat for s in self.snapshots)

    # ------------------------------------------------------------------ a person's answers
    def seat_view(self, seat: str) -> dict:
        """What `seat`'s page shows: the seat's view, with the physical outcome to report when the people
        at the table report them."""
        with self.lock:
            if self.oracle_for_people() and seat in self.humans:
                return session.oracle_view(self.game, seat)
            return self.game.view(seat)

    def mark(self, seat: str, view: dict) -> str:
        """A fingerprint of the question `seat` is shown: an answer posted from a page whose question is no
        longer the one asked is refused. Another seat's answer (a bot's part of a choice made at once) does
        not change it; an answer of this seat's, a new turn or an undo does."""
        own = sum(1 for who, _ in self.game.history if who == seat)
        decision = view.get("decision") or {}
        asked = [decision.get("prompt"), [(o["key"], o["label"]) for o in decision.get("options", [])]]
        text = json.dumps([self.game.turn_number, own, len(self.branches), asked], default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def answer(self, seat: str, key: int, mark: str | None = None) -> None:
        """`seat` answers `key`; Refused when it is not this seat's to answer (any more)."""
        with self.lock:
            if mark is not None and mark != self.mark(seat, self.seat_view(seat)):
                raise Refused("the question changed before your answer arrived: look again")
            game = self.game
            if self.oracle_for_people() and seat in self.humans:
                legal, who = game.decision.legal if game.decision else [], CHANCE
            else:
                legal, who = game.legal(seat), seat
            if key not in legal:
                raise Refused("that is not an answer you can give now")
            self._remember(seat)
            self._apply(key, who)
        self.kick()

    def _remember(self, seat: str) -> None:
        answers = len(self.game.history)
        if not any(s.seat == seat and s.answers == answers for s in self.snapshots):
            self.snapshots.append(Snapshot(seat, answers, self.game.save()))

    def _apply(self, key: int, who: str) -> None:
        try:
            self.game.apply(key, who)
        except (ContentError, GameError) as exc:
            self.error = f"{session.imagined_in(exc)}{exc}"
        self.version += 1

    def undo(self, seat: str) -> None:
        """Back to `seat`'s last decision: the game as it was then (Game.load of its save), a new branch;
        the answers given since are kept as a branch left behind."""
        with self.lock:
            mine = [i for i, s in enumerate(self.snapshots) if s.seat == seat]
            if not mine:
                raise Refused("you have made no decision to go back to")
            snapshot = self.snapshots[mine[-1]]
            self.branches.append(list(self.game.history[snapshot.answers :]))
            limit = self.game.max_answers_per_turn
            self.game = Game.load(self.rules, snapshot.saved)
            self.game.max_answers_per_turn = limit
            del self.snapshots[mine[-1] :]
            self.error = ""
            self.version += 1
        self.kick()

    # ------------------------------------------------------------------ the bots
    def bot_step(self) -> bool:
        """Let chance or one bot answer, if the game waits for them; False when it waits for people only."""
        with self.lock:
            game, version = self.game, self.version
            decision = game.decision
            if decision is None or self.error:
                return False
            if decision.is_chance:
                if self.oracle_for_people():
                    return False
                try:
                    game.apply_chance()
                except (ContentError, GameError) as exc:
                    self.error = str(exc)
                self.version += 1
                return True
            bots = [p for p in decision.players if not self.is_human(p) and game.legal(p)]
            if not bots:
                return False
            player = bots[0]
            thinking = game.clone()  # the bot thinks on a copy, outside the lock
            legal = game.legal(player)
            answered = len(game.history)
        agent = agents.make(self.seat_kind(player), game.seed * 31 + answered * 1_000_003 + len(player))
        view = thinking.view(player) if getattr(agent, "needs_view", True) else {"you": player}
        try:
            option = agent.act(view, legal, lambda k=0: thinking.determinized(player, answered + k * 7919))
        except (ContentError, GameError) as exc:
            with self.lock:
                self.error = f"{player}'s bot, trying out its options in an imagined game, met: {exc}"
                self.version += 1
            return False
        with self.lock:
            if self.version == version:
                self._apply(option, player)
        return True

    def play_bots(self) -> None:
        while self.bot_step():
            pass

    def kick(self) -> None:
        """Let the bots play in the background until the game waits for a person (or ends)."""
        with self.lock:
            if self._worker is not None and self._worker.is_alive():
                return
            self._worker = threading.Thread(target=self.play_bots, name=f"bots-{self.id}", daemon=True)
            self._worker.start()

    def settle(self, timeout: float = 30.0) -> None:
        """Wait for the bots to stop (tests, the benchmark)."""
        worker = self._worker
        if worker is not None:
            worker.join(timeout)

    # ------------------------------------------------------------------ what leaves the table whole
    def saved(self) -> str:
        with self.lock:
            data = session.session_data(
                self.game, self.seats, oracle=self.oracle, max_answers_per_turn=self.game.max_answers_per_turn
            )
        return json.dumps(data, indent=1)

    def replay_log(self) -> str:
        with self.lock:
            return json.dumps(session.game_log(self.game, agents=self.seats), indent=1)

    def waiting_for(self) -> list[str]:
        decision = self.game.decision
        if decision is None:
            return []
        if decision.is_chance:
            return ["the people at the table"] if self.oracle_for_people() else []
        return [p for p in decision.players if self.game.legal(p)]


class Tables:
    """Every table of this server, by id, and each seat's page by its secret token."""

    def __init__(self):
        self.by_id: dict[str, Table] = {}
        self.lock = threading.Lock()

    def add(self, rules, game: Game, seats: list[str], oracle: str = "model") -> Table:
        with self.lock:
            if len(self.by_id) >= MAX_TABLES:
                done = [t for t in self.by_id if self.by_id[t].game.over]
                if not done:
                    raise Refused(f"{MAX_TABLES} games are in progress: finish one first")
                del self.by_id[done[0]]
            table_id = secrets.token_hex(4)
            table = Table(table_id, rules, game, seats, oracle)
            self.by_id[table_id] = table
        table.kick()
        return table

    def get(self, table_id: str) -> Table | None:
        return self.by_id.get(table_id)

    def seat(self, token: str) -> tuple[Table, str] | None:
        """The table and seat a page's token names, or None for a token no table gave."""
        for table in list(self.by_id.values()):
            for player, known in table.tokens.items():
                if secrets.compare_digest(known, token):
                    return table, player
        return None


def seats_from(text: str, low: int, high: int) -> list[str]:
    """The seats of a new game from `human,random,greedy`: one entry per seat, each a person or an agent."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not low <= len(names) <= high:
        raise Refused(f"this pack is for {low} to {high} players, not {len(names)}")
    for name in names:
        if name != HUMAN and not agents.known(name):
            raise Refused(f"`{name}` is neither {HUMAN} nor an agent ({agents.names()})")
    return names
