"""The random play-on of the bots that look ahead (agents.GreedyAgent, search.SearchAgent): where it stops decides what
a bot's look-ahead can see, so both stop in the same place."""

from __future__ import annotations

from .protocol import CHANCE


def play_on(game, me, bits, steps: int) -> None:
    """Play on at random, for at most `steps` answers (each drawn with `bits`, a `random.Random`'s `getrandbits`, as its
    `randrange` draws: the same numbers), while the decisions are this player's own, chance's, or ones it takes part
    in with others at once (their answers imagined at random too); stop at a decision of others alone.
    In a pack played in rounds, everyone's card is carried out in the same round: the others' answers
    are imagined to the end of the round, else what a choice earns (pieces after the others' objections,
    food after the others' cards) never shows and every choice ties (issue 11, docs/calibration.md)."""
    in_rounds, number = game.rules.in_rounds, game.turn_number
    state = game.state  # the pending decision read from the state: no Decision built for it
    quick = game.max_answers_per_turn is None  # an imagined game counts no answers: none is refused
    for _ in range(steps):
        pending = state["pending"]
        if pending is None or (in_rounds and state["turn"]["number"] != number):
            return
        players = pending["by"]
        if players == [CHANCE]:
            game.apply_chance()
            continue
        if me not in players and not in_rounds:
            return
        kind = pending["kind"]
        for player in list(players):  # as they were asked: answering changes `by`
            unchecked = quick and player in pending["by"] and player != CHANCE  # Game.legal and apply, unchecked
            options = game._legal_now(pending, player) if unchecked else game.legal(player)
            count = len(options)  # `randrange(count)` without its two calls (random.Random._randbelow_with_getrandbits)
            size = count.bit_length()
            pick = bits(size)
            while pick >= count:
                if not count:
                    raise ValueError("empty range for randrange()")
                pick = bits(size)
            if unchecked:
                game._take(player, options[pick])
            else:
                game.apply(options[pick], player)
            after = pending = state["pending"]
            if after is None or after["kind"] != kind:
                break
