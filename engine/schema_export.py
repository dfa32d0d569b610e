"""`knap schema export`: self-contained copies of the schemas for editors.

yaml-language-server reads draft-07, where a `$ref` hides its sibling keywords; so the copies have
every `$ref` inlined (the sibling `description`/`examples` win over the target's) and no `$defs`.
The result has an absolute `$id` and no cross-file references.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

from .schema_check import BASE_URI, inlined, schema_files

DRAFTS = {"draft-07": "http://json-schema.org/draft-07/schema#",
          "2020-12": "https://json-schema.org/draft/2020-12/schema"}


def bundle(file_name: str, draft: str = "draft-07") -> dict:
    body = copy.deepcopy(inlined(file_name))
    out = {"$schema": DRAFTS[draft], "$id": f"{BASE_URI}{draft}/{file_name}"}
    out.update({k: v for k, v in body.items() if k not in ("$schema", "$id")})
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
