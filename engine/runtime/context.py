"""What a compiled expression or verb sees while it runs (`Ctx`): kept apart so that the driver, the
verbs, the interpreter and the "why not" words all build one without importing the game."""

from __future__ import annotations


class Ctx:
    """What an expression sees: the game, the frame's locals, the acting player, its card, a `where` item."""

    __slots__ = ("card", "depth", "env", "g", "item", "me")

    def __init__(self, g, env, me, card):
        self.g, self.env, self.me, self.card, self.item, self.depth = g, env, me, card, None, 0
