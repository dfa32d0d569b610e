"""`knap schema export`: self-contained copies of the schemas for editors.

yaml-language-server reads draft-07, where a `$ref` hides its sibling keywords; so every `$ref` is
inlined (our schemas are small and not recursive), the sibling `description`/`examples` win over the
target's, and `$defs` disappear. The result has an absolute `$id` and no cross-file references.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

from .schema_check import BASE_URI, schema_files

DRAFTS = {"draft-07": "http://json-schema.org/draft-07/schema#",
          "2020-12": "https://json-schema.org/draft/2020-12/schema"}


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
        merged = _inline(copy.deepcopy(target), target_file, depth + 1)
        for key, value in node.items():
            if key != "$ref":
                merged[key] = _inline(value, current_file, depth + 1)
        for key in ("$id", "$schema", "$defs"):
            merged.pop(key, None)
        return merged
    return {key: _inline(value, current_file, depth + 1) for key, value in node.items() if key != "$defs"}


def bundle(file_name: str, draft: str = "draft-07") -> dict:
    schema = schema_files()[file_name]
    bundled = _inline(copy.deepcopy(schema), file_name)
    bundled.pop("$defs", None)
    out = {"$schema": DRAFTS[draft], "$id": f"{BASE_URI}{draft}/{file_name}"}
    out.update({k: v for k, v in bundled.items() if k not in ("$schema", "$id")})
    return out


def export(directory: Path, draft: str = "draft-07") -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for file_name in schema_files():
        if file_name == "common.schema.json":
            continue  # inlined everywhere
        target = directory / file_name
        target.write_text(json.dumps(bundle(file_name, draft), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(target)
    return written
