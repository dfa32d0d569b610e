"""What one simulated game leaves in its run's record besides its outcome (sim._one): read from the game as it is
played and once it is over, never from a game's words (which cards, rules and zones a pack has come from the pack).

A run records every game (a million, some runs), so watching costs next to nothing: `step` compares a round number
after each answer and copies the score counters when a round has ended; the cards are read once, at `finish`, from
the game's log of moves (log_words: `["move", setup, actor, verb, source, target, cards, masks]`; an undone action's
moves were cut out of it, so it holds what happened).

The record's keys (docs/balance.md):
    first       the seat of the first turn
    track       each seat's score counter (`rules.score_counter`) at the end of each round (a pass of the seats in a
                pack played by turns), in seat order: `[[P1, P2, ...], ...]`; the last entry is the score when the game
                stopped (the end of its last round, whole or not). None when the pack has no score counter
    margin      the best winner's final score minus the best score of the seats that did not win; None without
                scores, winners or losers (a cooperative game, a stalled one)
    drawn       seat -> card id -> times: a card came from a zone nobody sees (a hidden deck or bag) into the seat's
                zones, its play area (`_drawn`) included; the setup's deals count
    taken       seat -> card id -> times: a card came, by the seat's own act, into one of its zones (not its play area)
                from a zone that was not its own (a market, a discard pile, another's hand, a hidden deck, its play
                area); the setup is left out
    used        seat -> card id -> times: a card left one of the seat's zones (not its play area), by its own act,
                for a zone no seat owns (spent, discarded, played to the table, out of the game), or for another of
                its zones that everyone sees from one they did not (played from a hand to a tableau); the setup is
                left out. A discard is the owner's act whoever asked for it (the log says so: verbs.Discard)
    actions     seat -> action id -> times the seat took it (the state's `used`: undone actions are not counted)

A card's identity is its id in the pack (`rules.instances`), never its number.
"""

from __future__ import annotations

from collections import Counter

from .layout import HIDDEN, PUBLIC

_PLAY_AREA = "_drawn:"  # the zone a `draw` without `to` lands in (state.first_state): drawn, not yet kept


class _Zone:
    """What a move's zone says for the record: whose it is (a seat's own zone, or its play area) and who sees it."""

    __slots__ = ("area", "hidden", "public", "seat")

    def __init__(self, key: str, owner, sight: tuple):
        self.area = owner if key.startswith(_PLAY_AREA) else None  # the seat whose play area it is
        self.seat = owner if self.area is None and not key.startswith("_") else None  # the seat owning it
        self.hidden = sight[0] == HIDDEN  # nobody sees its cards by the zone alone
        self.public = sight[0] == PUBLIC


def _zones(game) -> dict[str, _Zone]:
    """`_Zone` of every zone key of the game's seating, worked out once per layout and kept on the rules (as
    table.text_names keeps its names)."""
    layout = game.layout
    cache = game.rules.__dict__.setdefault("_record_zones", {})
    zones = cache.get(layout)
    if zones is None:
        zones = cache[layout] = {
            key: _Zone(key, layout.owner.get(key), layout.sight[key]) for key in layout.order if key in layout.sight
        }
    return zones


class GameRecorder:
    """Watches one game: `step(game)` after each answer (play_out's `on_step`: it must stay cheap), `finish(game)` once
    it is over (or stopped), returning the record's extra keys."""

    __slots__ = ("counter", "first", "round", "track")

    def __init__(self, game):
        state = game.state
        self.first = state["turn"]["player"]
        self.counter = game.rules.score_counter
        self.round = state["turn"].get("round", 0)
        self.track: list[list] | None = [] if self.counter else None

    def step(self, game) -> None:
        if game.state["turn"].get("round", 0) != self.round:
            self._rounds(game)

    def _rounds(self, game) -> None:
        """A new round began: the scores as they stand close each round since the last one seen."""
        now = game.state["turn"].get("round", 0)
        if now < self.round:  # (an undone action never crosses a round; a state put back by hand might)
            self.round = now
            return
        if self.track is not None:
            scores = self._scores(game)
            for number in range(self.round, now):
                if number >= 1:  # round 0 is the setup
                    self.track.append(scores)
        self.round = now

    def _scores(self, game) -> list:
        counter = self.counter
        return [game.counter(p, counter) for p in game.state["players"]]

    def finish(self, game) -> dict:
        state = game.state
        result = state.get("result")
        players = state["players"]
        if state["turn"].get("round", 0) != self.round:  # rounds that passed after the last answer (chance's)
            self._rounds(game)
        track = self.track
        if track is not None:
            scores = result.get("scores") if result else None
            last = [scores.get(p, 0) for p in players] if scores else self._scores(game)
            track = [*track, last] if self.round >= 1 else track  # a game stopped in its setup played no round
            if not all(type(v) is int for row in track for v in row):  # a counter with keys holds a map: no track
                track = None
        drawn, taken, used = _cards(game)
        return {
            "first": self.first,
            "track": track,
            "margin": margin(result),
            "drawn": drawn,
            "taken": taken,
            "used": used,
            "actions": {p: dict(sorted(state["used"].get(p, {}).items())) for p in players},
        }


def margin(result) -> int | None:
    """The best winner's score minus the best score of the seats that did not win (None without both)."""
    if not result or not result.get("scores") or not result.get("winners"):
        return None
    scores, winners = result["scores"], set(result["winners"])
    best = [v for p, v in scores.items() if p in winners]
    rest = [v for p, v in scores.items() if p not in winners]
    if not best or not rest:
        return None
    return max(best) - max(rest)


def _cards(game) -> tuple[dict, dict, dict]:
    """The cards each seat drew, took and used (see the module's docstring), read from the log's moves."""
    zones = _zones(game)
    ids = game.rules.instances
    players = game.state["players"]
    drawn: dict[str, Counter] = {p: Counter() for p in players}
    taken: dict[str, Counter] = {p: Counter() for p in players}
    used: dict[str, Counter] = {p: Counter() for p in players}
    for entry in game.state["log"]:
        if entry[0] != "move" or len(entry) != 8:
            continue
        _, setup, actor, _verb, source, target, cards, _ = entry
        src, dst = zones.get(source), zones.get(target)
        if src is None or dst is None:
            continue
        if src.hidden:
            into = dst.seat or dst.area
            if into is not None:
                drawn[into].update([ids[c] for c in cards])
        if setup or actor is None:
            continue
        if dst.seat == actor and src.seat != actor:
            taken[actor].update([ids[c] for c in cards])
        elif src.seat == actor and (
            (dst.seat is None and dst.area is None) or (dst.seat == actor and dst.public and not src.public)
        ):
            used[actor].update([ids[c] for c in cards])
    return _plain(drawn), _plain(taken), _plain(used)


def _plain(per_seat: dict[str, Counter]) -> dict[str, dict[str, int]]:
    """Counters as JSON's maps, each sorted by card id (the same record whatever the order of the moves)."""
    return {p: dict(sorted(counts.items())) for p, counts in per_seat.items()}
