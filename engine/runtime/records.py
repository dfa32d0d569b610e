"""What one simulated game leaves in its run's record besides its outcome (sim._one): read from the game as it is
played and once it is over, never from a game's words (which cards, rules and zones a pack has come from the pack)."""

from __future__ import annotations


class GameRecorder:
    """Watches one game: `step(game)` after each answer (play_out's `on_step`: it must stay cheap), `finish(game)` once
    it is over (or stopped), returning the record's extra keys."""

    def __init__(self, game):
        self.first = game.state["turn"]["player"]

    def step(self, game) -> None:
        pass

    def finish(self, game) -> dict:
        return {"first": self.first}
