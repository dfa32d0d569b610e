"""What must hold after every decision of every game, whatever the pack: every card in exactly one zone,
no place over its capacity, counters within their bounds, pools kept, monotonic counters never down, a legal
option for whoever must decide, the pack's own limits (pack_invariants.py) — and scores (every counter, and
where every card lies) change only by the rules."""

from __future__ import annotations

import pack_invariants


class Watch:
    """Checks the invariants of one game after every step it is called for (`play_randomly(after=...)`).
    With `by_the_rules` (the default) it keeps a copy of the game that only the rules move: every answer
    the game was given is applied to the copy too, and the two must agree after every step."""

    def __init__(self, game, *, by_the_rules: bool = True, rules_copy=None):
        """`rules_copy`: the copy to keep instead of a clone of `game` (the soak passes the game its log,
        still empty, replays to, so that the copy is the log replayed answer by answer)."""
        self.scores = check(game)
        self.pack_checks = pack_invariants.checks_for(game)
        for pack_check in self.pack_checks:
            pack_check(game)
        if rules_copy is not None:
            assert rules_copy.state_hash() == game.state_hash(), "the copy does not start where the game does"
        self.rules_copy = (rules_copy or game.clone()) if by_the_rules else None

    def __call__(self, game):
        self.scores = check(game, self.scores)
        for pack_check in self.pack_checks:
            pack_check(game)
        if self.rules_copy is not None:
            changed_only_by_the_rules(self.rules_copy, game)


def score_counters(rules) -> list[str]:
    """The counters the end rules rank players by (the scores), then every other counter."""
    scores = [end["counter"] for end in rules.ends if isinstance(end.get("counter"), str)]
    return list(dict.fromkeys(scores + list(rules.counters)))


def changed_only_by_the_rules(rules_copy, game):
    """Scores change only by the rules: `rules_copy` is given the answers `game` was given since the last
    step (its history), so the rules alone move it; a counter (the scores first) or a card that differs
    from it changed by something else: a forged or leaked write, a copy that shares state, a bad load."""
    history = game.state["history"]
    done = len(rules_copy.state["history"])
    assert history[:done] == rules_copy.state["history"], "the game's past answers changed"
    for player, option in history[done:]:
        rules_copy.apply(option, player)
    mine, theirs = game.state["counters"], rules_copy.state["counters"]
    if mine != theirs:
        for counter in score_counters(game.rules):
            for owner in sorted(set(mine) | set(theirs)):
                have, should = mine.get(owner, {}).get(counter), theirs.get(owner, {}).get(counter)
                assert have == should, (
                    f"{owner}'s {counter} is {have} after decision {len(history)}, but the "
                    f"rules make it {should}: it changed outside the rules"
                )
        assert mine == theirs, "a counter changed outside the rules"
    assert game.state["zones"] == rules_copy.state["zones"], (
        f"after decision {len(history)} the cards lie where the rules did not put them"
    )


def check(game, previous_scores: dict | None = None) -> dict:
    state = game.state
    seen = []
    for key, cards in state["zones"].items():
        for card in cards:
            if card is not None:
                seen.append(card)
                assert state["loc"][card] == key, f"card {card} is in {key} but thinks it is in {state['loc'][card]}"
    assert sorted(seen) == list(range(len(game.rules.instances))), "a card is missing or in two zones"
    for owner, values in state["counters"].items():
        for counter, held in values.items():
            low, high = game.rules.counters[counter].get("min"), game.rules.counters[counter].get("max")
            for value in held.values() if isinstance(held, dict) else [held]:  # a counter with `keys`: each
                assert low is None or value >= low, f"{owner}'s {counter} is {value}, below its minimum"
                assert high is None or value <= high, f"{owner}'s {counter} is {value}, above its maximum"
    for zone_id, zone in game.rules.zones.items():
        if zone.get("capacity") is not None:  # a place's capacity counts every player's cards there
            held = sum(1 for key in game.zone_keys(zone_id) for x in state["zones"][key] if x is not None)
            assert held <= zone["capacity"], f"{zone_id} holds {held}, more than its capacity {zone['capacity']}"
    scores = {}
    pools: dict[str, int] = {}
    for counter, spec in game.rules.counters.items():
        if spec.get("pool"):  # tokens that move between places (a bag, the players), never appear or vanish
            pools[spec["pool"]] = pools.get(spec["pool"], 0) + sum(
                values.get(counter, 0) for values in state["counters"].values()
            )
    for pool, total in pools.items():
        scores[("pool", pool)] = total
        if previous_scores is not None and ("pool", pool) in previous_scores:
            assert total == previous_scores[("pool", pool)], (
                f"the {pool} pool went from {previous_scores[('pool', pool)]} to {total}"
            )
    for counter, spec in game.rules.counters.items():
        if spec.get("monotonic") and spec.get("keys") is None:  # with keys: set_counter checks each
            for owner, values in state["counters"].items():
                if counter in values:
                    scores[(owner, counter)] = values[counter]
                    if previous_scores is not None:
                        assert values[counter] >= previous_scores[(owner, counter)], f"{owner}'s {counter} went down"
    if not game.over:
        decision = game.decision
        assert decision is not None, "the game waits for nothing"
        for player in decision.players:
            assert game.legal(player), f"{player} must decide but has no legal option"
    return scores
