"""A bot that searches: information-set Monte Carlo tree search (ISMCTS), knowing no game.

Each iteration imagines the game as the searching player could (`model(k)`: `Game.determinized`, what the player
cannot see dealt at random, others' secret answers forgotten), walks one tree of answers down from the decision
asked, adds one answer to it, plays on at random for a few answers and scores every player as the bots that look
ahead do (`scoring.projected_margins`: the margin over the best other player, were the game to end now). One tree
serves every imagined deal: an answer is an edge of the tree whatever deal it was tried in, and an edge is chosen by
UCB1 among those legal in this iteration's deal, weighed by how often it was available (Cowling, Powley and
Whitehouse, "Information Set Monte Carlo Tree Search", 2012: single-observer ISMCTS with availability counts).

- Every player's answers are chosen in the tree, each for that player's own margin (max-n).
- A decision several players answer at once (protocol.SIMULTANEOUS) is one node: each player chooses from the node's
  own statistics without seeing the others' choices (decoupled UCT), and the child is the answers together.
- Chance (dice, oracles' models) is drawn from the imagined game's streams, re-seeded with every deal, and makes no
  branch: the node after a roll gathers every outcome (open loop), so a few hundred iterations reach a few answers
  deep rather than spreading over every roll.
- Margins are in the pack's points, unbounded: each iteration's margins are scaled to [0, 1] by the least and
  greatest margin this decision's search has seen so far (a running scale: what the first iterations add is scaled
  by a narrower range than the last's), so one exploration constant serves every pack.

The budget is iterations (`ismcts:500`, the same answer for the same seed) or milliseconds (`ismcts:250ms`, as many
iterations as fit: faster machines search deeper, so games played with it are not reproducible).
"""

from __future__ import annotations

import math
import random
import time
from typing import ClassVar

from .log_words import unread_log
from .protocol import CHANCE
from .rollout import play_on
from .scoring import projected_margins

EXPLORATION = 0.7  # UCB1's constant, for rewards scaled to [0, 1]


class Edge:
    """One answer of one player at one node: how often it was tried, what it earned that player, and how often it
    was among the legal answers when the node was reached (ISMCTS's availability count)."""

    __slots__ = ("available", "total", "visits")

    def __init__(self):
        self.visits = 0
        self.total = 0.0
        self.available = 0


class Node:
    """A place in the tree: the answers tried there by each player, and the node each choice of answers leads to."""

    __slots__ = ("children", "edges")

    def __init__(self):
        self.edges: dict = {}  # player -> {answer key -> Edge}
        self.children: dict = {}  # the answers chosen, ((player, key), ...) -> Node


class SearchAgent:
    """ISMCTS within a budget of iterations or milliseconds per decision (see the module's docstring)."""

    name = "ismcts"
    needs_view = False
    # `ismcts:N` searches N iterations a decision; `ismcts:Nms` for N milliseconds (agents._parsed)
    option = ("iterations", 1, 100_000)
    units: ClassVar[dict] = {"ms": ("milliseconds", 1, 600_000)}

    def __init__(
        self,
        seed: int = 0,
        iterations: int = 200,
        milliseconds: int | None = None,
        rollout_steps: int = 40,
        exploration: float = EXPLORATION,
    ):
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.milliseconds = milliseconds
        self.rollout_steps = rollout_steps
        self.exploration = exploration
        self.tree: Node | None = None  # the last decision's search, kept until the next (for a look inside)
        self.iterations_done = 0  # how many iterations that search ran
        self.root_keys: dict = {}  # the answers asked, option -> the key of its edge at the root
        self.low = math.inf  # the least and greatest margin seen so far in this decision's search (`_iterate`)
        self.high = -math.inf

    def act(self, view, legal, model=None):
        if model is None or len(legal) == 1:
            return legal[self.rng.randrange(len(legal))]
        me = view["you"]
        root = self.tree = Node()
        self.root_keys = {}  # (the first iteration's walk fills it)
        self.low, self.high = math.inf, -math.inf
        deadline = None if self.milliseconds is None else time.perf_counter() + self.milliseconds / 1000
        iteration = 0
        while iteration < (self.iterations if deadline is None else 1_000_000):
            self._iterate(root, model(iteration), me, legal)
            iteration += 1
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self.iterations_done = iteration
        mine = root.edges.get(me, {})
        best, best_rank = None, None
        for option in legal:  # the answer tried most; among those, the best on average; then the first
            edge = mine.get(self.root_keys[option])
            rank = (edge.visits, edge.total / edge.visits) if edge is not None and edge.visits else (0, 0.0)
            if best_rank is None or rank > best_rank:
                best, best_rank = option, rank
        return best

    # ------------------------------------------------------------------ one iteration
    def _iterate(self, root: Node, game, me, legal) -> None:
        """Select and expand in the tree, play on at random, and back the margins up the path."""
        game.log = unread_log  # nobody reads the log of an imagined game: its lines are not kept
        state = game.state
        node = root
        path = []  # (node, player, key) of every answer chosen in the tree
        expanded = False
        first = True
        draws = 0  # chance's answers in the walk: bounded as the play-on's are (a pack that rolls for ever stops here)
        while not expanded:
            pending = state["pending"]
            if pending is None:
                break
            players = pending["by"]
            if players == [CHANCE]:
                if draws == self.rollout_steps:
                    break
                draws += 1
                game.apply_chance()
                continue
            # the players who answer here, each their legal answers as this deal has them (the root's: those asked)
            values = pending["options"]
            if first and not self.root_keys:  # the answers asked, as the tree knows them (the same in every deal)
                self.root_keys = {option: _key(values[option]) for option in legal}
            choices = []
            for player in list(players):
                options = legal if first and player == me else game.legal(player)
                if not options:
                    continue
                edges = node.edges.get(player)
                if edges is None:
                    edges = node.edges[player] = {}
                option, key, new = self._choose(edges, options, values)
                expanded = expanded or new
                choices.append((player, option, key))
            first = False
            if not choices:
                break
            answered = []
            for player, option, key in choices:
                now = state["pending"]
                if now is not pending or player not in now["by"]:
                    break  # (an answer that ended the decision, or moved it on, for the others too)
                game.apply(option, player)
                path.append((node, player, key))
                answered.append((player, key))
            joint = tuple(answered)
            child = node.children.get(joint)
            if child is None:
                child = node.children[joint] = Node()
                expanded = True
            node = child
        play_on(game, me, self.rng.getrandbits, self.rollout_steps)  # (where it stops: rollout.py)
        margins = projected_margins(game, in_place=True)  # the game is thrown away
        low = min(self.low, *margins.values())
        high = max(self.high, *margins.values())
        self.low, self.high = low, high
        spread = high - low
        for node, player, key in path:
            edge = node.edges[player][key]
            edge.visits += 1
            edge.total += (margins.get(player, 0) - low) / spread if spread else 0.5

    def _choose(self, edges: dict, options, values) -> tuple:
        """One answer out of `options` (indices of the decision's `values`) for the player whose `edges` these are: an
        answer never tried here first (at random), else the best by UCB1 with availability counts. Returns (option,
        its key, whether it was new)."""
        untried = []
        keys = []
        for option in options:
            key = _key(values[option])
            keys.append(key)
            edge = edges.get(key)
            if edge is None:
                edge = edges[key] = Edge()
            edge.available += 1
            if not edge.visits:
                untried.append((option, key))
        if untried:
            option, key = untried[self.rng.randrange(len(untried))]
            return option, key, True
        best, best_score = None, -math.inf
        c = self.exploration
        for option, key in zip(options, keys, strict=True):
            edge = edges[key]
            score = edge.total / edge.visits + c * math.sqrt(math.log(edge.available) / edge.visits)
            if score > best_score:
                best, best_score = (option, key), score
        assert best is not None
        return best[0], best[1], False


def _key(option):
    """An answer as an edge of the tree: the option itself, the same answer in every deal (an option is a name, a
    number or a truth value; anything else by its text)."""
    return option if isinstance(option, str | int | float | bool) or option is None else repr(option)
