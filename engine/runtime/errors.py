"""The runtime's one content error, shared by the compilers, the verbs and the game."""
from __future__ import annotations


class ContentError(Exception):
    """Content asked for something impossible at run time (a bad value, a limit); it names the spot."""

    def __init__(self, message: str, code_key: str = "", offset: int = 0):
        super().__init__(message)
        self.message = message
        self.code_key = code_key
        self.offset = offset
