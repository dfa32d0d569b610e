"""Every runtime error code, declared once: what it means and what to do about it.

Lint declares its rules once in `engine/diagnostics.py`; the runtime does the same here. Each raise
of `ContentError`, `GameError` (and its `Stalled`, `RecordError`, `LogError`, `SaveError`) or
`PackError` names one of these codes; the errors look up their hint here, `knap play`, `knap replay`
and `knap sim` print the code and the hint, and docs/runtime-errors.md is generated from this table
(tools/gen_docs.py). Tests match codes, not wording. The prefix `X` is one no lint rule uses.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.markdown_tables import grouped_tables


@dataclass(frozen=True)
class ErrorCode:
    code: str
    name: str
    summary: str  # one sentence: what happened
    hint: str  # what the person who meets it can do


GROUPS = {
    "1": "content at run time: an effect asks for something impossible, or runs past a limit",
    "2": "answers: an answer the game cannot take",
    "3": "games: a game that cannot go on",
    "4": "records: game logs and saved games",
    "5": "packs: a pack that cannot be played",
}


def _error(code, name, summary, hint) -> ErrorCode:
    return ErrorCode(code, name, summary, hint)


ERROR_CODES: dict[str, ErrorCode] = {
    e.code: e
    for e in [
        # ---- content at run time (ContentError)
        _error(
            "X101",
            "out-of-work",
            "One answer made the rules do more work than the work budget allows.",
            "Look for a loop or a `where` over a large list inside the effect named; narrow what it walks over.",
        ),
        _error(
            "X102",
            "number-too-large",
            "A number grew past the bound numbers must stay within.",
            "A value that doubles or multiplies every turn grows without end; cap it with `min(...)` or a "
            "counter's `max`.",
        ),
        _error(
            "X103",
            "list-too-large",
            "A list grew past the size limit.",
            "Build smaller lists: filter with `where` before combining, and avoid lists that grow every turn.",
        ),
        _error(
            "X104",
            "too-deep",
            "Effects perform each other, or functions call each other, deeper than the limit.",
            "An effect or function reaches itself again; give it a condition that stops the recursion.",
        ),
        _error(
            "X105",
            "endless-effect",
            "An effect ran more steps than allowed without asking anything.",
            "A loop whose condition never becomes false; check what changes between its passes.",
        ),
        _error(
            "X106",
            "bad-value",
            "An expression cannot be worked out with the values it met.",
            "The message names the value; check that every name holds what the effect expects at that point.",
        ),
        _error(
            "X107",
            "wrong-kind",
            "A value is not of the kind needed here (a number, a zone, a counter, an action).",
            "Check the spelling of the id, and that the expression gives the kind of value the verb takes.",
        ),
        _error(
            "X108",
            "division-by-zero",
            "An expression divides by zero.",
            "Guard the division with `if DIVISOR > 0:`, or divide by `max(1, DIVISOR)`.",
        ),
        _error(
            "X109",
            "no-value-yet",
            "A name is read before anything has given it a value.",
            "Give the name a value (`let NAME = ...`, or `as NAME` of a question) on every path before it is read.",
        ),
        _error(
            "X110",
            "zone-needs-owner",
            "A zone each player has is named without saying whose.",
            "Write `ZONE(me)` or `ZONE(PLAYER)` instead of the bare zone id.",
        ),
        _error(
            "X111",
            "counter-only-goes-up",
            "A counter declared to only go up was asked to go down.",
            "Drop `monotonic` from the counter, or do not lower it.",
        ),
        _error(
            "X112",
            "zone-full",
            "Cards were moved into a zone past its `capacity`.",
            "Check for room before moving (`if room(ZONE) > 0:`), or raise the zone's capacity.",
        ),
        _error(
            "X113",
            "not-a-slotted-row",
            "`slide` was used on a zone that is not a row with slots.",
            "Give the zone `type: row` and `slots`, or use another verb.",
        ),
        _error(
            "X114",
            "no-discard-pile",
            "A card is discarded but its deck names no `discard` zone.",
            "Add `discard: ZONE` to the deck's zone.",
        ),
        _error(
            "X115",
            "verb-misuse",
            "A verb is used where it cannot work (no hand zone, a shared zone, nothing to ask).",
            "Read the verb's entry in docs/dsl.md and give it what it needs.",
        ),
        _error(
            "X116",
            "bad-oracle-weights",
            "An `oracle` needs one weight (0 or more, not all 0) per outcome.",
            "Give each outcome a weight; at least one must be above 0.",
        ),
        _error(
            "X117",
            "cost-unpayable",
            "A cost that was payable when the action was chosen can no longer be paid.",
            "An effect spends what the cost needs before the cost is paid; pay the cost first.",
        ),
        # ---- answers (GameError)
        _error(
            "X201",
            "nothing-pending",
            "An answer came when the game waits for none (it is over, or waits for chance).",
            "Read `game.decision` before answering; a finished game takes no answers.",
        ),
        _error(
            "X202",
            "say-who",
            "Several players must answer at once, and the answer does not say whose it is.",
            "Pass the player with the answer (`game.apply(option, player)`).",
        ),
        _error(
            "X203",
            "not-your-decision",
            "The player who answered has nothing to decide now.",
            "Answer for one of the players in `game.decision.players`.",
        ),
        _error(
            "X204", "illegal-answer", "The answer is not one of the legal options.", "Pick one of `game.legal(player)`."
        ),
        # ---- games (GameError, Stalled)
        _error(
            "X301",
            "stalled",
            "A turn (or round) went on for more answers than allowed without ending.",
            "A content bug: replay the game's log (`knap replay LOG --show`) to see the turn that never ends; "
            "`knap lint` warns about actions free and unlimited (D007).",
        ),
        _error(
            "X302",
            "nobody-can-answer",
            "The game waits for a decision that no player has a legal answer to.",
            "Make sure every question the rules ask has at least one option (a `pass`, or an `available` check).",
        ),
        _error(
            "X303",
            "game-stuck",
            "The game is neither over nor waiting for a decision.",
            "An engine bug: report it with the pack and the seed.",
        ),
        _error(
            "X304",
            "player-count",
            "The pack is not for this many players.",
            "Pick a player count within the pack's `players: min/max`.",
        ),
        # ---- records (RecordError, LogError, SaveError)
        _error(
            "X401",
            "unreadable-record",
            "The file is not JSON knap can read (bad syntax, too big, too deep, not UTF-8).",
            "Use a log or save file written by knap, unchanged.",
        ),
        _error(
            "X402",
            "not-a-log",
            "The file is not a Knapper game log.",
            'A log has `"format": "knap-log/1"`; `knap play` and `knap sim --log-dir` write them.',
        ),
        _error(
            "X403",
            "log-shape",
            "The log does not have the shape of a game log (schemas/runtime/log.schema.json).",
            "The file was edited or damaged; the pointer says which value is wrong.",
        ),
        _error(
            "X404",
            "log-of-another-game",
            "The log is of another pack, or of a player count this pack does not allow.",
            "Replay it with the pack it was played with (`--pack`).",
        ),
        _error(
            "X405",
            "log-diverges",
            "An answer of the log is not one the game can take at that point.",
            "The log was edited, or the pack changed since it was written; replay it with the pack it was played with.",
        ),
        _error(
            "X406",
            "final-state-differs",
            "The replayed game ends in another state than the log records.",
            "The pack or the engine changed since the log was written, or the log was edited.",
        ),
        _error(
            "X411",
            "not-a-save",
            "The file is not a saved Knapper game (nor a saved `knap play` session).",
            'A save has `"format": "knap-state/..."`; leaving `knap play` writes one.',
        ),
        _error(
            "X412",
            "save-shape",
            "The save does not have the shape of a saved game (schemas/runtime/).",
            "The file was edited or damaged; the pointer says which value is wrong.",
        ),
        _error(
            "X413",
            "save-of-another-pack",
            "The game was saved with another pack.",
            "Load it with the pack it was saved with (`--pack`).",
        ),
        _error(
            "X414",
            "pack-changed",
            "The pack has changed since the game was saved.",
            "A game half-way through an effect cannot go on with other rules; replay its log instead.",
        ),
        _error(
            "X415",
            "save-inconsistent",
            "The saved state does not fit the pack or does not fit together.",
            "The file was edited or damaged; the pointer says which value is wrong.",
        ),
        _error(
            "X416",
            "unknown-agent",
            "A saved session names an agent knap does not have.",
            "Use `human` or one of the agents `knap play --agents` lists.",
        ),
        # ---- packs (PackError, ContentError while compiling)
        _error(
            "X501",
            "pack-has-errors",
            "The pack does not lint clean, so it cannot be played.",
            "Run `knap lint PACK` and fix the errors it lists.",
        ),
        _error(
            "X502",
            "cannot-compile",
            "A text of the pack cannot be compiled (an unknown name, function or verb).",
            "Run `knap lint PACK`: it reports the same problem with its rule code.",
        ),
    ]
}


def hint_for(code: str) -> str:
    entry = ERROR_CODES.get(code)
    return entry.hint if entry is not None else ""


def coded(code: str, message: str) -> str:
    """`X204 message`, as lint writes `D007 message`; the bare message for an error without a code."""
    return f"{code} {message}" if code else message


def render_page() -> str:
    """docs/runtime-errors.md, written by tools/gen_docs.py (a test checks it is up to date)."""
    out = [
        "# Runtime errors\n",
        "<!-- Generated by tools/gen_docs.py from engine/runtime/error_codes.py. Do not edit by hand. -->\n",
        (
            "When a game cannot go on, `knap play`, `knap replay` and `knap sim` say why with one of these codes, "
            "as `knap lint` does with its rule codes: `FILE:LINE:COL: CODE message` (for an error of the pack's "
            "content, the line it points at follows, with a caret under the column), then `= hint: ...`. `knap sim --format json` gives the code of each failed or stalled game it samples "
            "(`error_samples[].code`, `stall_samples[].code`; null for an error that is a bug of knap itself). "
            "In Python, every runtime error (`ContentError`, `GameError` and its `Stalled`, `LogError` and "
            "`SaveError`, and `PackError`) has `.code` and `.hint`. Exit codes do not depend on the code: 1 for "
            "a game, log, save or pack that cannot be used, 2 for a usage error.\n"
        ),
    ]
    out += grouped_tables(
        ([code, entry.name, entry.summary, entry.hint] for code, entry in ERROR_CODES.items()),
        lambda row: row[0][1],
        lambda group: f"X{group}xx — {GROUPS[group]}",
        ["code", "name", "meaning", "what to do"],
    )
    return "\n".join(out) + "\n"
