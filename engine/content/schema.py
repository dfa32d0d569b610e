"""Validate documents against the JSON Schemas in `schemas/` and turn errors into coded diagnostics.

The validators are built once per process; a document's `kind` picks its schema directly (no
big `oneOf`), so messages stay specific. The schemas' `x-dsl` and `x-ref` annotations tell the
later stages which fields hold DSL texts and which hold ids; `field_roles` reads them once per kind.
"""

from __future__ import annotations

import json
from functools import cache, lru_cache

import fastjsonschema
from jsonschema import Draft202012Validator

from engine import fixes
from engine.diagnostics import Diagnostic
from engine.files import resources
from engine.suggestions import suggest

BASE_URI = "https://knapper.invalid/schemas/"


@lru_cache(maxsize=1)
def schema_files() -> dict[str, dict]:
    """file name -> schema, for every schema of the project."""
    folder = resources.root("schemas")
    return {path.name: json.loads(path.read_text(encoding="utf-8")) for path in sorted(folder.glob("*.schema.json"))}


@lru_cache(maxsize=1)
def kinds() -> tuple[str, ...]:
    return tuple(schema_files()["common.schema.json"]["$defs"]["kind"]["enum"])


@cache
def validator(kind: str) -> Draft202012Validator:
    """Built once, on the schema with its `$ref`s inlined: resolving references through the registry
    for every document costs two thirds of a large lint."""
    return Draft202012Validator(inlined(f"{kind}.schema.json"))


def _lookup(target: str, current_file: str):
    file_part, _, pointer = target.partition("#")
    file_name = file_part or current_file
    node = schema_files()[file_name]
    for part in filter(None, pointer.split("/")):
        node = node[part]
    return node, file_name


def _inline(node, current_file: str, depth: int = 0):
    if depth > 40:
        raise ValueError("schema references nest too deeply (a recursive schema?)")
    if isinstance(node, list):
        return [_inline(item, current_file, depth + 1) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target, target_file = _lookup(node["$ref"], current_file)
        merged = _inline(target, target_file, depth + 1)
        for key, value in node.items():
            if key != "$ref":  # siblings of a `$ref` (description, examples) win over the target's
                merged[key] = _inline(value, current_file, depth + 1)
        for key in ("$id", "$schema", "$defs"):
            merged.pop(key, None)
        return merged
    return {key: _inline(value, current_file, depth + 1) for key, value in node.items() if key != "$defs"}


@cache
def inlined(file_name: str) -> dict:
    """A schema with every `$ref` replaced by what it names: self-contained, same meaning (our schemas
    are small and not recursive). Treat the result as read-only."""
    schema = _inline(schema_files()[file_name], file_name)
    schema["$id"] = BASE_URI + "inlined/" + file_name
    schema["$schema"] = schema_files()[file_name]["$schema"]
    return schema


@cache
def field_roles(kind: str) -> tuple[tuple[tuple, str, str], ...]:
    """(path pattern, role, value) for every annotated field of a kind: role `dsl` (value: effect,
    condition or expression), `ref` (value: the id's category) or `refkey` (the keys are ids).
    `*` in a pattern stands for any key or index."""
    found: list[tuple[tuple, str, str]] = []
    for path, schema in _walked(kind):
        if "x-dsl" in schema:
            found.append((path, "dsl", schema["x-dsl"]))
        if "x-ref" in schema:
            found.append((path, "ref", schema["x-ref"]))
        names = schema.get("propertyNames")
        if isinstance(names, dict) and "x-ref" in names:
            found.append((path, "refkey", names["x-ref"]))
    return tuple(found)


@cache
def dsl_words(kind: str) -> dict[tuple, frozenset[str]]:
    """The plain words a DSL field of a kind may hold instead of a text (`x-dsl-words`: `end_turn: never`), by
    the field's path pattern: neither lint nor the runtime reads them as DSL."""
    return {path: frozenset(schema["x-dsl-words"]) for path, schema in _walked(kind) if "x-dsl-words" in schema}


def _walked(kind: str) -> list[tuple[tuple, dict]]:
    """(path pattern, sub-schema) of every field a kind's schema describes, `*` for any key or index."""
    found: list[tuple[tuple, dict]] = []

    def walk(schema, path, depth):
        if depth > 6 or not isinstance(schema, dict):
            return
        found.append((path, schema))
        for key, sub in schema.get("properties", {}).items():
            walk(sub, path + (key,), depth + 1)
        if isinstance(schema.get("items"), dict):
            walk(schema["items"], path + ("*",), depth + 1)
        if isinstance(schema.get("additionalProperties"), dict):
            walk(schema["additionalProperties"], path + ("*",), depth + 1)

    walk(inlined(f"{kind}.schema.json"), (), 0)  # no references left to follow
    return found


def values_at(data, pattern: tuple):
    """Yield (path, value) for every value of `data` matching a pattern from `field_roles`."""
    stack: list[tuple[tuple, object, int]] = [((), data, 0)]  # (path, value, steps of `pattern` matched)
    while stack:
        path, value, i = stack.pop()
        if i == len(pattern):
            yield path, value
            continue
        step = pattern[i]
        if step == "*":
            if isinstance(value, dict):
                stack.extend((path + (k,), v, i + 1) for k, v in reversed(list(value.items())))
            elif isinstance(value, list):
                stack.extend((path + (n,), v, i + 1) for n, v in reversed(list(enumerate(value))))
        elif isinstance(value, dict) and step in value:
            stack.append((path + (step,), value[step], i + 1))


_TYPE_WORDS = {
    "string": "a text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "a mapping",
    "null": "empty",
}


def _type_of(value) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


def _shown(value) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def _where(path) -> str:
    return "`" + ".".join(str(p) for p in path) + "`" if path else "the document"


def validate(data: dict, file: str, doc_index: int) -> list[Diagnostic]:
    """Check one document. Diagnostics carry `path`; the caller resolves it to a line and column."""
    kind = data.get("kind")
    if kind not in kinds():
        message = "the document has no `kind`" if kind is None else f"unknown kind {_shown(kind)}"
        hint = (suggest(str(kind), kinds()) if kind is not None else "") or "kinds: " + ", ".join(kinds())
        return [
            Diagnostic(
                "S007", message, file, hint=hint, doc_index=doc_index, path=("kind",) if kind is not None else ()
            )
        ]
    if is_valid(kind, data):
        return []
    out, seen = [], set()
    for error in validator(kind).iter_errors(data):
        for diag in _convert(error, kind, file, doc_index):
            # jsonschema gives one `required` error per missing property, each naming them all
            key = (diag.code, diag.path, diag.message)
            if key not in seen:
                seen.add(key)
                out.append(diag)
    return out


@cache
def _fast_validator(kind: str):
    """fastjsonschema compiles the (inlined, draft-07-compatible) schema to Python code: about 13 times
    faster than jsonschema on valid documents, which are most of them. jsonschema stays the authority:
    it explains every document this one rejects, and the tests check the two agree."""
    schema = dict(inlined(f"{kind}.schema.json"))
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    return fastjsonschema.compile(schema)


def is_valid(kind: str, data) -> bool:
    try:
        _fast_validator(kind)(data)
    except fastjsonschema.JsonSchemaException:
        return False
    except Exception:  # noqa: BLE001 -- any surprise: let jsonschema decide
        return False
    return True


def _leaf_errors(error):
    """For `oneOf`/`anyOf`, the alternatives' errors tell more than the summary; pick the deepest."""
    if error.validator in ("oneOf", "anyOf") and error.context:
        deepest = max(error.context, key=lambda e: len(e.absolute_path))
        if len(deepest.absolute_path) > len(error.absolute_path):
            return [deepest]
    return [error]


def _type_hint(expected: list, value, fix) -> str:
    """What to write instead: a text with commas where a list is expected was meant as a list (`cost: wood,
    grass`); the parts are those of the fix when there is a sure one."""
    if "array" in expected and isinstance(value, str) and (fix or "," in value):
        parts = fix["new"] if fix else [part.strip() for part in value.split(",") if part.strip()]
        return f"write a list: [{', '.join(parts)}]"
    return "quote numbers that are meant as text" if "string" in expected else ""


def _convert(error, kind, file, doc_index) -> list[Diagnostic]:
    out = []
    for err in _leaf_errors(error):
        path = tuple(err.absolute_path)
        rule = err.validator
        where = _where(path)
        value = err.instance

        def diag(code, message, hint="", at=path, at_key=False, fix=None):
            out.append(Diagnostic(code, message, file, hint=hint, doc_index=doc_index, path=at, at_key=at_key, fix=fix))

        if rule == "required":
            missing = [name for name in err.validator_value if not (isinstance(value, dict) and name in value)]
            for name in missing:
                prop = err.schema.get("properties", {}).get(name, {})  # inlined: no references left
                hint = prop.get("description", "")
                example = prop.get("examples", [None])[0]
                if example is not None and not isinstance(example, (dict, list)):
                    hint = f"{hint} For example: `{name}: {example}`".strip()
                if name == "reason":  # a placeholder or assumption without its reason
                    diag(
                        "V001",
                        f"{where if path else 'the ' + kind} says `provenance: "
                        f"{value.get('provenance')}` but gives no `reason`",
                        "add `reason:` with one line on what is not from the rulebook and why",
                    )
                    continue
                diag("S001", f"{where if path else 'the ' + kind} is missing the required property `{name}`", hint)
        elif rule == "additionalProperties":
            allowed = set(err.schema.get("properties", {}))
            for extra in sorted(set(value) - allowed):
                hint = suggest(extra, allowed) or "allowed: " + ", ".join(sorted(allowed))
                diag(
                    "S002",
                    f"`{extra}` is not a property of a {kind}" + (f" {where}" if path else ""),
                    hint,
                    at=path + (extra,),
                    at_key=True,
                    fix=fixes.key_fix(doc_index, path + (extra,), allowed, value),
                )
        elif rule == "type":
            expected: list[str] = (
                err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
            )
            words = " or ".join(_TYPE_WORDS.get(t, t) for t in expected)
            fix = fixes.list_fix(doc_index, path, value, err.schema) if expected == ["array"] else None
            diag(
                "S003",
                f"{where} must be {words}, not {_TYPE_WORDS.get(_type_of(value), 'this')} ({_shown(value)})",
                _type_hint(expected, value, fix),
                fix=fix,
            )
        elif rule in ("enum", "const"):
            options = err.validator_value if rule == "enum" else [err.validator_value]
            hint = suggest(str(value), [str(o) for o in options]) or "allowed: " + ", ".join(str(o) for o in options)
            diag("S004", f"{where} is {_shown(value)}; it must be one of: {', '.join(str(o) for o in options)}", hint)
        elif rule == "pattern" and "propertyNames" in err.absolute_schema_path and isinstance(value, str):
            # a key of the wrong form: said at the key, not at the mapping that holds it
            hint = err.schema.get("description") or (
                "ids are lower-case snake_case, like `stone_knife`"
                if "a-z" in str(err.validator_value)
                else f"it must match `{err.validator_value}`"
            )
            diag(
                "S005",
                f"the key {_shown(value)} of {where} does not have the required form",
                hint,
                at=path + (value,),
                at_key=True,
            )
        elif rule in ("pattern", "format"):
            hint = (
                "ids are lower-case snake_case, like `stone_knife`"
                if "a-z" in str(err.validator_value)
                else f"it must match `{err.validator_value}`"
            )
            diag("S005", f"{where} is {_shown(value)}, which does not have the required form", hint)
        elif rule in (
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "minItems",
            "maxItems",
            "minLength",
            "maxLength",
            "uniqueItems",
            "minProperties",
            "maxProperties",
        ):
            diag("S006", f"{where}: {err.message}", "")
        elif rule == "not" and "propertyNames" in err.absolute_schema_path:
            diag(
                "S005",
                f"`{value}` is not allowed as a key of {where}",
                err.schema.get("description", ""),
                at=path + (value,),
                at_key=True,
            )
        elif rule == "propertyNames":
            diag("S005", f"{where} has a key that is not allowed: {err.message}", "keys are snake_case ids")
        else:
            diag("S008", f"{where}: {err.message}", "")
    return out
