"""`knap schema export`: self-contained copies of the schemas for editors.

yaml-language-server reads draft-07, where a `$ref` hides its sibling keywords; so the copies have
every `$ref` inlined (the sibling `description`/`examples` win over the target's) and no `$defs`.
The result has an absolute `$id` and no cross-file references.

The copies also compile under ajv's strict mode (`new Ajv({strict: true})`, `Ajv2020` for 2020-12), as
tools that load schemas strictly require, without changing what they accept (`editor_safe`). The source
schemas keep their `x-dsl`/`x-ref` marks: lint reads them there, never from the copies.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

from engine.content.schema import BASE_URI, inlined, schema_files
from engine.files.atomic import write_text

DRAFTS = {
    "draft-07": "http://json-schema.org/draft-07/schema#",
    "2020-12": "https://json-schema.org/draft/2020-12/schema",
}

# Where a schema holds subschemas (both drafts): everything else is data (`enum`, `examples`, ...) and
# is never touched, so a property named `x-...` or an example holding `type: [...]` stays as it is.
_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_VALUES = (
    "additionalProperties",
    "additionalItems",
    "unevaluatedProperties",
    "unevaluatedItems",
    "items",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
)
_SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems", "items")


def bundle(file_name: str, draft: str = "draft-07") -> dict:
    body = editor_safe(copy.deepcopy(inlined(file_name)))
    out = {"$schema": DRAFTS[draft], "$id": f"{BASE_URI}{draft}/{file_name}"}
    out.update({k: v for k, v in body.items() if k not in ("$schema", "$id")})
    return out


def editor_safe(schema):
    """The same schema, rewritten in place where ajv's strict mode refuses it:
    - `x-...` annotation keywords (unknown keywords) are dropped;
    - a union `type: [a, b]` (strictTypes) becomes `anyOf: [{type: a}, {type: b}]`, each branch taking
      the keywords that only apply to its type (`items` goes with `array`);
    - a name in `required` that the same schema object does not declare (strictRequired, e.g. in an
      `if`/`then` or a `oneOf` branch) is declared with the schema the name already gets there.
    None of these changes what the schema accepts (tests/test_schema_export.py checks it on random schemas)."""
    if not isinstance(schema, dict):
        return schema
    for key in [k for k in schema if k.startswith("x-")]:
        del schema[key]
    _split_union_type(schema)
    for key in _SCHEMA_MAPS:
        if isinstance(schema.get(key), dict):
            for sub in schema[key].values():
                editor_safe(sub)
    for key in _SCHEMA_VALUES:
        if isinstance(schema.get(key), dict):
            editor_safe(schema[key])
    for key in _SCHEMA_LISTS:
        if isinstance(schema.get(key), list):
            for sub in schema[key]:
                editor_safe(sub)
    _declare_required(schema)
    return schema


# The keywords that apply to one type of instance only (ajv's strictTypes wants that type declared beside them).
_TYPE_KEYWORDS = {
    "array": (
        "items",
        "prefixItems",
        "additionalItems",
        "contains",
        "minContains",
        "maxContains",
        "minItems",
        "maxItems",
        "uniqueItems",
    ),
    "object": (
        "properties",
        "patternProperties",
        "additionalProperties",
        "propertyNames",
        "required",
        "minProperties",
        "maxProperties",
        "dependencies",
        "dependentRequired",
        "dependentSchemas",
    ),
    "string": ("minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType", "contentSchema"),
    "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
}
_TYPE_KEYWORDS["integer"] = _TYPE_KEYWORDS["number"]


def _split_union_type(schema: dict) -> None:
    types = schema.get("type")
    if not isinstance(types, list) or len(set(types) - {"null"}) < 2:  # ajv allows [t, "null"]
        return
    if "unevaluatedProperties" in schema or "unevaluatedItems" in schema:
        raise ValueError("cannot split a union `type` next to `unevaluated...` without changing its meaning")
    del schema["type"]
    branches = []
    for name in types:
        branch = {"type": name}
        for keyword in _TYPE_KEYWORDS.get(name, ()):
            if keyword in schema:
                branch[keyword] = copy.deepcopy(schema[keyword])
        branches.append(branch)
    for keyword in {k for name in _TYPE_KEYWORDS for k in _TYPE_KEYWORDS[name]}:
        schema.pop(keyword, None)  # moved into the branch of its type, or never applied (type not allowed)
    if "anyOf" in schema:  # keep both: an instance must satisfy each
        schema.setdefault("allOf", []).append({"anyOf": branches})
    else:
        schema["anyOf"] = branches


def _declare_required(schema: dict) -> None:
    required = schema.get("required")
    if not isinstance(required, list):
        return
    declared = schema.get("properties")
    if not isinstance(declared, dict):
        declared = {}
    missing = [name for name in required if isinstance(name, str) and name not in declared]
    if not missing:
        return
    if "unevaluatedProperties" in schema:
        # declaring a name would mark it evaluated; our schemas do not combine the two
        raise ValueError("cannot make `required` strict-mode safe next to `unevaluatedProperties`")
    properties = schema.setdefault("properties", {})
    patterns = schema.get("patternProperties", {})
    for name in missing:
        if any(re.search(pattern, name) for pattern in patterns) or "additionalProperties" not in schema:
            properties[name] = {}  # what it got before: nothing from this object (patterns still apply)
        else:
            properties[name] = copy.deepcopy(schema["additionalProperties"])


def export(directory: Path, draft: str = "draft-07") -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for file_name in schema_files():
        if file_name == "common.schema.json":
            continue  # inlined everywhere
        target = directory / file_name
        write_text(target, json.dumps(bundle(file_name, draft), indent=2, ensure_ascii=False) + "\n")
        written.append(target)
    return written
