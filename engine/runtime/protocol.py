"""The decision protocol (DESIGN §6): who must decide now and what they may answer.

`Game.decision` builds a `Decision` from the state's pending decision; `Game.apply` takes one answer.
Everything that speaks the protocol (the game, the driver, views, agents, saves) reads these names from
here, so this module imports nothing of the runtime.
"""

from __future__ import annotations

CHANCE = "chance"  # who answers dice and oracles
END_TURN = "end_turn"  # the turn menu's last option
SIMULTANEOUS = ("invite", "bid", "secret")  # answered by several players at once: never pruned


class Decision:
    """Who must decide now and what they may answer (option keys index `options`)."""

    __slots__ = ("blind", "kind", "legal", "options", "players", "probabilities", "prompt")

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
