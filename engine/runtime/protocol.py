"""The decision protocol (DESIGN §6): who must decide now and what they may answer.

`Game.decision` builds a `Decision` from the state's pending decision; `Game.apply` takes one answer.
One meaning of "legal" throughout: the answers one player may give now (`Game.legal(player)`), which are the
*live* options (every option of the pending decision less those known to lead to a dead end, undo.py) that
`allowed_for` leaves to that player. `Decision.legal` holds the live options, for every player at once.
Everything that speaks the protocol (the game, the driver, views, agents, saves) reads these names from
here, so this module imports nothing of the runtime.
"""

from __future__ import annotations

CHANCE = "chance"  # who answers dice and oracles
END_TURN = "end_turn"  # the turn menu's last option
DONE = "$done"  # the option that ends a `choose ... up to` early: no action or card has this name
SIMULTANEOUS = ("invite", "bid", "secret")  # answered by several players at once: never pruned
ASKED_ALWAYS = ("ask", "invite", "action")  # asked even with one possible answer


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


def allowed_for(pending, player, live):
    """The legal answers of one player, out of the `live` options (undo.live_options: every option less the known
    dead ends): a bid up to what the player holds (`limit`), or the player's own options of a choice made by
    everyone at once (`allowed`)."""
    # (`in`, then the item: compiled, it costs less than a call of `get`, and most decisions have neither field)
    if "limit" in pending:
        limits = pending["limit"]
        limit = limits.get(player) if limits is not None else None
        if limit is not None:
            live = [o for o in live if o < limit]
    if "allowed" in pending:
        allowed = pending["allowed"]
        own = None
        if allowed is not None and player in allowed:
            own = allowed[player]
        if own is not None:
            if len(live) == len(pending["options"]):  # every option live (always, for a choice made at once): the
                # player's own in the order of the options, without a look at each option (most are others')
                kept = sorted(own)
                for i in range(1, len(kept)):  # an option twice (rare): each once, as a set keeps them
                    if kept[i] == kept[i - 1]:
                        kept = sorted(set(own))
                        break
                if not kept or (kept[0] >= 0 and kept[-1] < len(live)):
                    return kept
            live = list(filter(set(own).__contains__, live))  # in the order of `live`
    return live
