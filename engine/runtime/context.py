"""What a compiled expression or verb sees while it runs (`Ctx`): kept apart so that the driver, the
verbs, the interpreter and the "why not" words all build one without importing the game."""

from __future__ import annotations


class Ctx:
    """What an expression sees: the game, the frame's locals, the acting player, its card, and how deep pack
    functions call each other (codegen.function_caller). Made at every step of the way: kept small."""

    __slots__ = ("card", "depth", "env", "g", "me")

    def __init__(self, g, env, me, card):
        self.g = g
        self.env = env
        self.me = me
        self.card = card
        self.depth = 0
