"""Demo / self-test of the yaml-language-server harness (tests/yls.py, tools/yls/check.mjs).

Uses toy schemas only; it proves the harness sees what an editor sees: diagnostics on the
right line, nothing on a valid file, schema-driven completion, draft 2020-12 keywords, and
broken schemas reported as schema errors instead of silently "valid".
"""

from __future__ import annotations

import json

import pytest
from yls import complete, run_yls

TOY_DRAFT7 = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
        "kind": {"type": "string", "description": "What it is."},
        "count": {"type": "integer", "description": "How many."},
    },
    "required": ["kind", "count"],
    "additionalProperties": False,
}

TOY_2020 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "kind": {"type": "string"},
        "count": {"type": "integer"},
        "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": False},
        "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}},
    },
    "required": ["kind", "count"],
    "unevaluatedProperties": False,
    "$defs": {"tag": {"enum": ["a", "b"]}},
}


def _write(tmp_path, name, content):
    p = tmp_path / name
    p.write_text(content if isinstance(content, str) else json.dumps(content, indent=2))
    return p


def test_diagnostics_on_the_right_line(tmp_path):
    schema = _write(tmp_path, "toy.schema.json", TOY_DRAFT7)
    bad = _write(tmp_path, "bad.yaml", 'kind: widget\ncount: "x"\n')
    good = _write(tmp_path, "good.yaml", "kind: widget\ncount: 3\n")

    res = run_yls(schema, [bad, good])

    assert res["schema_errors"] == []
    assert res["files"][str(good)] == []
    diags = res["files"][str(bad)]
    assert [(d["line"], d["col"]) for d in diags] == [(2, 8)], diags
    assert "integer" in diags[0]["message"]


def test_completion_offers_schema_properties(tmp_path):
    schema = _write(tmp_path, "toy.schema.json", TOY_DRAFT7)
    doc = _write(tmp_path, "empty.yaml", "# a comment\n\n")
    labels = complete(schema, doc, line=2, col=1)
    assert {"kind", "count"} <= set(labels), labels

    partial = _write(tmp_path, "partial.yaml", "kind: widget\n\n")
    labels = complete(schema, partial, line=2, col=1)
    assert "count" in labels and "kind" not in labels, labels


def test_draft_2020_12_keywords_are_honoured(tmp_path):
    schema = _write(tmp_path, "toy2020.schema.json", TOY_2020)
    good = _write(tmp_path, "good.yaml", "kind: k\ncount: 1\npair: [x, 2]\ntags: [a]\n")
    bad = _write(tmp_path, "bad.yaml", "kind: k\ncount: 1\npair: [x, 2, 3]\ntags: [zz]\nextra: 1\n")

    res = run_yls(schema, [good, bad])

    assert res["schema_errors"] == []
    assert res["files"][str(good)] == []
    lines = sorted({d["line"] for d in res["files"][str(bad)]})
    # prefixItems + items:false (line 3), $defs enum (line 4), unevaluatedProperties (line 5)
    assert lines == [3, 4, 5], res["files"][str(bad)]


def test_2020_12_keywords_need_the_dollar_schema_declaration(tmp_path):
    """Without "$schema" yls 2.0.0 falls back to draft-07 rules: prefixItems is ignored and
    ``items: false`` then rejects every element, so a valid document gets a false error."""
    undeclared = {k: v for k, v in TOY_2020.items() if k != "$schema"}
    schema = _write(tmp_path, "undeclared.schema.json", undeclared)
    good = _write(tmp_path, "good.yaml", "kind: k\ncount: 1\npair: [x, 2]\n")
    res = run_yls(schema, [good])
    assert res["schema_errors"] == []
    assert res["files"][str(good)] != []


def test_invalid_schema_is_reported_not_silently_valid(tmp_path):
    broken = json.loads(json.dumps(TOY_DRAFT7))
    broken["properties"]["count"]["type"] = "integr"
    schema = _write(tmp_path, "broken.schema.json", broken)
    doc = _write(tmp_path, "doc.yaml", 'kind: widget\ncount: "x"\n')
    res = run_yls(schema, [doc])
    assert res["schema_errors"], res
    assert "is not valid" in res["schema_errors"][0]["message"]
    # ...and the server then validates nothing, which is why callers must check schema_errors
    assert res["files"][str(doc)] == []


@pytest.mark.parametrize("name", ["dir with space/[odd] (name).yaml"])
def test_awkward_paths_still_get_the_schema(tmp_path, name):
    schema = _write(tmp_path, "toy.schema.json", TOY_DRAFT7)
    doc = tmp_path / name
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text('kind: widget\ncount: "x"\n')
    res = run_yls(schema, [doc])
    assert res["schema_errors"] == []
    assert [d["line"] for d in res["files"][str(doc)]] == [2]
