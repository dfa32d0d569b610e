"""Many cards from one document: `generate:` on a card (docs/authoring.md, "Many cards at once").

A card document with `generate: {n: {from: 3, to: 35}}` (a range) or `generate: [{n: 1, colour: red}, ...]`
(a table: a list of mappings with the same keys) stands for one card per value or row: every text of the
document has `{n}` (`{colour}`) replaced, and a text that is exactly `"{n}"` takes the value itself (a number
stays a number). The cards are made when the file is read (yamlload.py), each a document of its own that keeps
the generating document's YAML node: every problem found in a generated card, by the schema, the checks or the
runtime, is reported at the generating document's line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_GENERATED = 1000  # cards one document may generate
# a generated card's index in its file: the generating document's index plus a multiple of this, so the
# documents after it keep theirs (a file of at most 1 MiB holds far fewer documents)
INDEX_STRIDE = 1_000_000
_PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
_SCALAR = (str, int, bool)


SHAPE = (
    "`generate` is a range, `{n: {from: 3, to: 35}}` (one key, whole numbers), or a table, `[{n: 1, colour: red}, "
    "{n: 2, colour: blue}]` (a list of mappings of numbers and words, with the same keys)"
)


@dataclass
class Problem:
    """What is wrong with a `generate`, at `path` in the generating document."""

    code: str
    message: str
    path: tuple
    hint: str = ""


def _rows(spec) -> list[dict] | Problem:
    """The values of `generate`, one mapping a card, or what is wrong with it."""
    if isinstance(spec, dict) and len(spec) == 1:
        [(key, bounds)] = spec.items()
        if (
            _PLACEHOLDER.fullmatch("{" + str(key) + "}")
            and isinstance(bounds, dict)
            and set(bounds) == {"from", "to"}
            and all(type(bounds[b]) is int for b in ("from", "to"))
        ):
            low, high = bounds["from"], bounds["to"]
            if high < low:
                return Problem("S006", f"the range of `{key}` is empty: `from: {low}` is above `to: {high}`", (key,))
            if high - low + 1 > MAX_GENERATED:
                return Problem(
                    "S006", f"the range of `{key}` makes {high - low + 1} cards; at most {MAX_GENERATED}", (key,)
                )
            return [{key: n} for n in range(low, high + 1)]
    elif isinstance(spec, list) and spec and all(isinstance(row, dict) and row for row in spec):
        if len(spec) > MAX_GENERATED:
            return Problem("S006", f"the table has {len(spec)} rows; at most {MAX_GENERATED}", ())
        keys = list(spec[0])
        for number, row in enumerate(spec):
            if not all(isinstance(v, _SCALAR) for v in row.values()) or not all(
                _PLACEHOLDER.fullmatch("{" + str(k) + "}") for k in row
            ):
                return Problem("S003", SHAPE, (number,))
            if set(row) != set(keys):
                return Problem(
                    "S008",
                    f"row {number + 1} of the table has the keys {', '.join(sorted(row))}, "
                    f"not those of the first row ({', '.join(keys)})",
                    (number,),
                    "give every row the same keys",
                )
        return spec
    return Problem("S003", SHAPE, ())


def _wants_text(schema, at: tuple) -> bool:
    """Whether the card schema asks for a text at `at`: there `"{n}"` stays a text (`name: "{n}"` is "7")."""
    for step in at:
        if not isinstance(schema, dict):
            return False
        if isinstance(step, int):
            schema = schema.get("items")
        else:
            schema = (schema.get("properties") or {}).get(step, schema.get("additionalProperties"))
    return isinstance(schema, dict) and schema.get("type") == "string"


def _fill(value, row: dict, unknown: dict, dsl: bool, at: tuple, schema=None):
    """`value` with every `{key}` of its texts replaced by the row's value; a `{word}` that is not a key of the
    row goes to `unknown` (word -> where), except in an effect text (`dsl`), where braces are the DSL's own
    words with values (`log "{pot} chips"`). A text that is exactly `{key}` is the value itself, a number
    staying a number, unless the schema asks for a text there."""
    if isinstance(value, str):
        whole = _PLACEHOLDER.fullmatch(value)
        if whole and whole.group(1) in row and not _wants_text(schema, at):
            return row[whole.group(1)]

        def put(match):
            key = match.group(1)
            if key in row:
                return str(row[key]).lower() if isinstance(row[key], bool) else str(row[key])
            if not dsl:
                unknown.setdefault(key, at)
            return match.group(0)

        return _PLACEHOLDER.sub(put, value)
    if isinstance(value, list):
        return [_fill(v, row, unknown, dsl, (*at, i), schema) for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {
            _fill(k, row, unknown, dsl, (), {"type": "string"}): _fill(v, row, unknown, dsl, (*at, k), schema)
            for k, v in value.items()
        }
    return value


def expand(data: dict) -> list[dict] | Problem:
    """The cards a card document with `generate` stands for, or a Problem for a `generate` that cannot make
    cards (the document is then left out, as a broken one)."""
    from .schema import field_roles, inlined  # the schemas are read only for a file that generates cards

    rows = _rows(data["generate"])
    if isinstance(rows, Problem):
        rows.path = ("generate", *rows.path)
        return rows
    dsl_fields = {p[0] for p, role, _ in field_roles("card") if role == "dsl" and p}
    unknown: dict[str, tuple] = {}
    schema = inlined("card.schema.json")
    cards = [
        {k: _fill(v, row, unknown, k in dsl_fields, (k,), schema) for k, v in data.items() if k != "generate"}
        for row in rows
    ]
    if unknown:
        word, at = next(iter(unknown.items()))
        keys = ", ".join(f"`{{{k}}}`" for k in rows[0])
        return Problem(
            "S008", f"`{{{word}}}` is not a key of `generate` (its keys: {keys})", at, "write one of its keys"
        )
    return cards
