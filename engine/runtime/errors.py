"""The runtime's errors: content that asks the impossible, and answers or games that cannot go on."""

from __future__ import annotations

from .error_codes import hint_for


class ContentError(Exception):
    """Content asked for something impossible at run time (a bad value, a limit); it names the spot
    (`code_key`, the pack text, and `offset` in it) and the error's `code` (error_codes.py)."""

    imagined_by: str  # only on an error in a game a bot imagined (session.play_out): read with getattr

    def __init__(self, message: str, code_key: str = "", offset: int = 0, *, code: str = ""):
        super().__init__(message)
        self.message = message
        self.code_key = code_key
        self.offset = offset
        self.code = code

    @property
    def hint(self) -> str:
        return hint_for(self.code)


# The Python errors a content's values can cause in the engine's code (a text combined what no check could
# foresee): each becomes the content's X106 at its line, never a traceback.
PYTHON_ERRORS = (TypeError, ValueError, ZeroDivisionError, IndexError, KeyError, AttributeError)


def at_text(exc: ContentError, code_key: str, offset: int) -> ContentError:
    """`exc`, placed at the pack text `code_key`, `offset` in it, unless it already names its spot."""
    if not exc.code_key:
        exc.code_key, exc.offset = code_key, offset
    return exc


def values_error(exc: Exception, code_key: str, offset: int) -> ContentError:
    """The content error a Python error (one of PYTHON_ERRORS) raised by a text's values is."""
    return ContentError(f"this cannot be done with these values ({exc})", code_key, offset, code="X106")


def not_a_card(number: int, cards: int) -> ContentError:
    """A number read as a card that no card has (a game's cards are numbered 0 to `cards` - 1); a negative
    one must not be read as a list index from the end, which would give another card."""
    return ContentError(f"{number} is not a card: this game's cards are numbered 0 to {cards - 1}", code="X106")


class GameError(Exception):
    """An answer that is not legal, or a game that cannot continue; `code` says which (error_codes.py)."""

    code = ""
    imagined_by: str  # only on an error in a game a bot imagined (session.play_out): read with getattr

    def __init__(self, message: str = "", *, code: str = ""):
        super().__init__(message)
        self.code = code or type(self).code

    @property
    def hint(self) -> str:
        return hint_for(self.code)


class Stalled(GameError):
    """A turn (a round, in a pack played in rounds) has gone on for more answers than the game allows
    (`Game.max_answers_per_turn`) without ending: a content bug, reported with the game's seed. The
    answer that would have passed the limit is not applied, so the game's log replays up to here."""

    code = "X301"

    def __init__(self, game, answers: int):
        turn = game.state["turn"]
        what = f"round {turn['number']}" if game.rules.in_rounds else f"turn {turn['number']} ({turn['player']})"
        super().__init__(
            f"{what} has gone on for {answers} answers without ending: the game stalls (an action "
            "that can be taken again and again at no cost? see `knap lint`, D007)"
        )
        self.turn, self.answers, self.seed = turn["number"], answers, game.state["seed"]
