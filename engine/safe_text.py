"""Pack text on its way to a terminal or a log: a pack may come from a stranger, so a name, a log line or a
file name must not drive the terminal (escape sequences set the title, clear the screen, fake output),
reorder what is shown (bidi overrides, the "Trojan Source" trick) or be read by rich as markup or emoji.

`plain` is for people (the text without those characters), `markup` is `plain` escaped for rich,
`visible` is for authors (each such character written as `\\u202e`, so a linter shows where it is), and
`dumps` writes JSON whose values stay exact while the bytes on the wire carry none of them raw.
"""

from __future__ import annotations

import json
import re

# C0 controls but tab and newline, DEL, C1 controls (NEL, CSI and OSC among them); the bidi embeddings,
# overrides and isolates (U+202A-U+202E, U+2066-U+2069); invisible characters that can hide or fake a word
# (zero-width space, word joiner and invisible operators, deprecated format characters, the byte-order mark,
# interlinear annotations); lone surrogates, which cannot even be written as UTF-8. Kept on purpose: the
# zero-width joiner and non-joiner (emoji sequences, Persian and Indic scripts) and the implicit direction
# marks LRM, RLM and ALM (right-to-left text needs them; they reorder no strong character).
_UNSAFE = (
    "\x00-\x08\x0b-\x1f\x7f-\x9f\u200b\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u206f"
    "\ufeff\ufff9-\ufffb\ud800-\udfff"
)
_UNSAFE_IN_LINES = re.compile(f"[{_UNSAFE}]")
_UNSAFE_IN_ONE_LINE = re.compile(f"[\t\n{_UNSAFE}]")
_LINE_BREAKS = re.compile("\r\n|[\r\u2028\u2029]")


def plain(text, lines: bool = False) -> str:
    """`text` without the characters that could drive or fool a terminal. With `lines`, newlines and tabs
    stay (a multi-line text); without, each becomes a space, so one value cannot fake a line of its own."""
    text = _LINE_BREAKS.sub("\n", str(text))
    if lines:
        return _UNSAFE_IN_LINES.sub("", text)
    return _UNSAFE_IN_ONE_LINE.sub(lambda m: " " if m.group() in "\t\n" else "", text)


_BRACKET = re.compile(r"(\\*)\[")
_TAG_AFTER_BRACKET = re.compile(r"[a-z#/@][^[]*?]")  # what rich reads as a tag after a `[`
_FINAL_BACKSLASHES = re.compile(r"(\\+)\Z")


def markup(text, lines: bool = False) -> str:
    """`plain(text)` escaped for rich markup, alone or inside a tag (`f"[red]{markup(x)}[/red]"`): it prints
    exactly as `plain(text)`. `[see rulebook]` stays text, `[/dim]` breaks nothing. (`rich.markup.escape`
    is not enough: rich also drops the backslash of a `\\[` that starts no tag, and a final backslash would
    escape the tag that follows.)"""
    text = plain(text, lines)

    def bracket(match: re.Match) -> str:
        run = len(match.group(1))  # k backslashes then `[`: rich shows k of 2k+1 before a tag, k of k+1 else
        starts_tag = _TAG_AFTER_BRACKET.match(text, match.end())
        return "\\" * (2 * run + 1 if starts_tag else run + 1) + "["

    escaped = _BRACKET.sub(bracket, text)
    # k final backslashes: 2k of them before an empty tag show k, and no tag of the caller is escaped
    return _FINAL_BACKSLASHES.sub(lambda m: m.group(1) * 2 + "[dim][/dim]", escaped)


def _escaped(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text, lines: bool = True) -> str:
    """`text` with each unsafe character written as an escape (`\\x1b`, `\\u202e`): for reports to authors,
    who need to see that the character is there and where. With `lines`, newlines and tabs stay."""
    return (_UNSAFE_IN_LINES if lines else _UNSAFE_IN_ONE_LINE).sub(_escaped, str(text))


def _json_escaped(match: re.Match) -> str:
    return f"\\u{ord(match.group()):04x}"


def dumps(data, **kwargs) -> str:
    """`json.dumps` with non-ASCII text kept readable but every unsafe character escaped as `\\uXXXX`: the
    parsed values are exactly the same. (Outside strings JSON is ASCII, so the substitution is always valid.)"""
    return _UNSAFE_IN_LINES.sub(_json_escaped, json.dumps(data, ensure_ascii=False, **kwargs))


def console(**kwargs):
    """A rich console for pack text: `:100:` stays text (not an emoji) and numbers are not recoloured.
    Pass text through `markup` (or print `Text(plain(...))`) before printing it."""
    from rich.console import Console  # on first use: safe_text is imported by every command, rich is heavy

    return Console(emoji=False, highlight=False, **kwargs)
