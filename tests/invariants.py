"""What must hold after every decision of every game, whatever the pack."""
from __future__ import annotations


class Watch:
    """Checks the invariants of one game after every step it is called for (`play_randomly(after=...)`)."""

    def __init__(self, game):
        self.scores = check(game)

    def __call__(self, game):
        self.scores = check(game, self.scores)


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
        for counter, value in values.items():
            low, high = game.rules.counters[counter].get("min"), game.rules.counters[counter].get("max")
            assert low is None or value >= low, f"{owner}'s {counter} is {value}, below its minimum"
            assert high is None or value <= high, f"{owner}'s {counter} is {value}, above its maximum"
    for zone_id, zone in game.rules.zones.items():
        if zone.get("capacity") is not None:     # a place's capacity counts every player's cards there
            held = sum(1 for key in game.zone_keys(zone_id) for x in state["zones"][key] if x is not None)
            assert held <= zone["capacity"], f"{zone_id} holds {held}, more than its capacity {zone['capacity']}"
    scores = {}
    pools: dict[str, int] = {}
    for counter, spec in game.rules.counters.items():
        if spec.get("pool"):      # tokens that move between places (a bag, the players), never appear or vanish
            pools[spec["pool"]] = pools.get(spec["pool"], 0) + sum(
                values.get(counter, 0) for values in state["counters"].values())
    for pool, total in pools.items():
        scores[("pool", pool)] = total
        if previous_scores is not None and ("pool", pool) in previous_scores:
            assert total == previous_scores[("pool", pool)], f"the {pool} pool went from " \
                f"{previous_scores[('pool', pool)]} to {total}"
    for counter, spec in game.rules.counters.items():
        if spec.get("monotonic"):
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
