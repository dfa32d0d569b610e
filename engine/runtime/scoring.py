"""How well a player is doing, for the bots that look ahead (agents.py): the margin over the best other
player were the game to end now, and the progress towards an end for games with no score."""

from __future__ import annotations

from itertools import repeat

from .budget import WORK_BUDGET
from .context import Ctx
from .driver import push_game_end
from .end_checks import ABSENT
from .errors import ContentError, GameError

DECIDED = 1_000  # what a won (or lost) game is worth to `projected_margin`, beyond any score


def projected_margin(g, player, *, in_place: bool = False) -> int:
    """The player's score minus the best other score (the score itself in a cooperative pack, where the
    others are partners), were the game to end now (the pack's end
    scoring included; the other way round when the fewest points win): a game-independent measure of how
    well a player is doing. `in_place`: end this very game instead of a copy, for a game thrown away
    afterwards (a bot's imagined game): the same number without the cost of a clone. A pack with no score counter ends with no scores
    (driver._result): its measure is the progress of the game as it stands, and nothing is ended."""
    scores, over, cooperative = _projected_scores(g, in_place)
    return _margin(g, scores, over, cooperative, player)


def projected_margins(g, *, in_place: bool = False) -> dict:
    """`projected_margin` of every player, the game ended (or projected) once for all of them: what a search that
    weighs each player's own choices by that player's outcome reads (search.py)."""
    scores, over, cooperative = _projected_scores(g, in_place)
    return {player: _margin(g, scores, over, cooperative, player) for player in g.state["players"]}


def _projected_scores(g, in_place: bool) -> tuple:
    """The scores were the game to end now (negated when the fewest win), whether it was over already, and whether the
    pack is cooperative: `projected_margin`'s reading of the game, before the margin of one player is taken."""
    counter, fewest, cooperative, the_counter, absent = g.rules.__dict__.get("_margin_plan") or _margin_plan(g.rules)
    state = g.state
    over = state["stage"] == "over"  # (`g.over`)
    scores = (state["result"] or {}).get("scores") if over else None
    if not over and counter:
        players = state["players"]
        # the score counter's numbers as they are now, for the score before the end scoring should it not finish
        # (seldom): each owner's number (or ABSENT) read in C by `dict.get` (the plan's endless `repeat`s its other
        # arguments), no owner's counters copied; the players' scores worked out from them only when needed
        counters = state["counters"]
        try:  # (the owners, then their numbers in the same order: no pairs made)
            then = (
                ([*counters], [*map(dict.get, counters.values(), the_counter, absent)]) if "table" in counters else None
            )
        except TypeError:  # (counters not kept in dicts: a state built by hand)
            then = None
        if then is None:  # read now, as ever
            now = dict(zip(players, map(g.counter, players, repeat(counter, len(players))), strict=True))
        finished = g if in_place else g.clone()
        finished.work = WORK_BUDGET
        finished.scores_only = True  # no winners worked out (driver._result)
        state = finished.state
        state["stack"], state["pending"], state["attempt"] = [], None, None
        state["ending"] = state["ending"] or {"rule": "projection", "by": None, "queue": []}
        try:
            push_game_end(finished)  # (the stage "game_end" of driver.step, without going through the driver for it)
            finished._advance()  # stops early if the scoring asks a question: the score before it is used
            scores = (state["result"] or {}).get("scores")
        except (ContentError, GameError):
            pass
        scores = scores or (_scores_then(*then, players) if then is not None else now)
    if not scores:
        scores = {p: g.counter(p, counter) for p in g.state["players"]} if counter else progress(g)
    if fewest:  # `result: least`: the fewest points are the best, so a margin counts them down
        scores = {p: -v for p, v in scores.items()}
    return scores, over, cooperative


def _margin(g, scores: dict, over: bool, cooperative: bool, player) -> int:
    """One player's margin from `_projected_scores`' reading."""
    mine = scores.get(player, 0)
    if cooperative:
        margin = mine
    else:  # over the best other player (none: 0)
        others = scores.copy()
        others.pop(player, None)
        margin = mine - (max(others.values()) if others else 0)  # (no `default=`: a keyword, read slowly)
    if over:  # a game decided by winning or losing (a solo or cooperative end) counts that first
        winners = g.state["result"]["winners"]
        margin += DECIDED if player in winners else -DECIDED if winners or not scores else 0
    return margin


def _scores_then(owners: list, numbers: list, players: list) -> dict:
    """Each player's score from the owners' numbers of the score counter read before the end scoring (ABSENT where an
    owner's counters held none), as `Table.counter` reads it: the player's own, else the table's shared one, else 0."""
    then = dict(zip(owners, numbers, strict=True))
    shared = then["table"]
    shared = 0 if shared is ABSENT else shared
    scores = {}
    for player in players:
        number = then.get(player, ABSENT)
        scores[player] = shared if number is ABSENT else number
    return scores


def _margin_plan(rules) -> tuple:
    """(score counter, whether the fewest win, whether cooperative, then the score counter and ABSENT each repeated
    without end: the arguments of each `dict.get` of the numbers before the end scoring, never used up): what a margin
    reads of the pack, worked out once per pack rather than at each of a bot's projections (several a decision)."""
    counter = rules.score_counter
    plan = (counter, fewest_win(rules), rules.cooperative, repeat(counter), repeat(ABSENT))
    rules.__dict__["_margin_plan"] = plan
    return plan


def fewest_win(rules) -> bool:
    """Whether the end rule that names the score counter makes the fewest of it win (`result: least`)."""
    counter = rules.score_counter
    return any(rule.get("counter") == counter and rule.get("result") == "least" for rule in rules.ends)


def progress(g) -> dict:
    """Each player's progress towards the end rules that declare one (`progress:`), for games with no
    score: how a bot that looks ahead compares positions. Empty when no end rule declares it."""
    keys = [f"end/{rule['id']}/progress" for rule in g.rules.ends if f"end/{rule['id']}/progress" in g.rules.code]
    if not keys:
        return {}
    g.work = WORK_BUDGET
    return {p: sum(int(g.rules.code[k](Ctx(g, {}, p, None)) or 0) for k in keys) for p in g.state["players"]}
