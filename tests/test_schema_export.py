"""`knap schema export`: self-contained draft-07 copies that give the same verdict as our schemas."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st
from jsonschema import Draft7Validator, Draft202012Validator

from engine import resources, schema_check
from engine.packs import discover
from engine.yamlload import load_file

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    from engine.cli import main
    target = tmp_path_factory.mktemp("schemas")
    assert main(["schema", "export", str(target)]) == 0
    return {p.name: json.loads(p.read_text()) for p in target.glob("*.json")}


def _all_documents():
    """Every document of the built-in packs and of the bad-content corpus (a mix of verdicts)."""
    docs = []
    for root in [resources.root("content"), REPO / "tests" / "bad_content"]:
        packs, loose, _ = discover([root]) if root.exists() else ([], [], None)
        for pack in packs:
            for path in pack.files:
                docs.extend(d.data for d in load_file(str(path)).documents)
    return docs


def test_exports_are_self_contained_draft_07(exported):
    assert "document.schema.json" in exported and "card.schema.json" in exported
    for name, schema in exported.items():
        Draft7Validator.check_schema(schema)
        assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
        assert schema["$id"].startswith("https://") and schema["$id"].endswith(name)
        text = json.dumps(schema)
        assert '"$ref"' not in text and '"$defs"' not in text


def test_every_property_has_a_description_and_an_example(exported):
    """Editors show the description on hover and offer the example."""
    def walk(schema, where):
        for key, prop in schema.get("properties", {}).items():
            assert prop.get("description"), f"{where}.{key} has no description"
            assert prop.get("examples"), f"{where}.{key} has no example"
            walk(prop, f"{where}.{key}")
        for sub in ("items", "additionalProperties"):
            if isinstance(schema.get(sub), dict):
                walk(schema[sub], f"{where}.{sub}")
    for name, schema in exported.items():
        walk(schema, name)


def _broken_variants(data):
    """A few schema-breaking edits of a valid document: each kind of violation once."""
    yield {k: v for k, v in data.items() if k != "id"}                       # missing required
    yield {**data, "colour": "red"}                                           # unknown property
    yield {**data, "id": "Not An Id"}                                         # pattern
    yield {**data, "id": 7}                                                   # type
    yield {**data, "provenance": "invented"}                                  # enum
    yield {**data, "provenance": "placeholder", "reason": None} if "reason" in data else \
        {**data, "provenance": "placeholder"}                                # missing reason


def test_exported_copies_give_the_same_verdict_as_the_source_schemas(exported):
    document = Draft7Validator(exported["document.schema.json"])
    kinds = {kind: Draft7Validator(exported[f"{kind}.schema.json"]) for kind in schema_check.kinds()}
    docs = _all_documents()
    seen_kinds = set()
    for data in list(docs):
        if data.get("kind") not in seen_kinds and not schema_check.validate(data, "x.yaml", 0):
            seen_kinds.add(data["kind"])
            docs.extend(_broken_variants(data))
    assert seen_kinds == set(schema_check.kinds())
    valid = invalid = 0
    for data in docs:
        ours = not schema_check.validate(data, "x.yaml", 0)
        theirs = document.is_valid(data)
        assert ours == theirs, data
        if data.get("kind") in kinds:   # the fast path agrees with jsonschema, document by document
            assert schema_check.is_valid(data["kind"], data) == ours, data
        if data.get("kind") in kinds:
            assert kinds[data["kind"]].is_valid(data) == ours, data
        valid, invalid = valid + ours, invalid + (not ours)
    assert valid > 100 and invalid >= 10


def test_source_schemas_are_valid_2020_12():
    for name, schema in schema_check.schema_files().items():
        Draft202012Validator.check_schema(schema)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema", name


def test_content_files_name_their_schema():
    """Every content file carries a `# yaml-language-server: $schema=...` line that resolves to a schema."""
    for path in resources.root("content").rglob("*.yaml"):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# yaml-language-server: $schema="), path
        target = (path.parent / first.split("=", 1)[1]).resolve()
        assert target.is_file(), (path, target)


_leaf = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.sampled_from(
    ["axe", "Axe", "forest", "player", "table", "deck", "placeholder", "1.0.0", "x y", "", "gain 1 vp"]))
_value = st.recursive(_leaf, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                     st.dictionaries(st.sampled_from(["a", "vp", "min", "max"]),
                                                                     inner, max_size=3)), max_leaves=8)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(schema_check.kinds())), st.data())
def test_fast_validator_agrees_with_jsonschema(kind, data):
    """The fast path may only say "valid" when jsonschema does."""
    properties = sorted(schema_check.inlined(f"{kind}.schema.json")["properties"])
    document = data.draw(st.dictionaries(st.sampled_from(properties + ["extra"]), _value, max_size=6))
    document["kind"] = kind
    if data.draw(st.booleans()):
        document.setdefault("id", "axe")
        document.setdefault("name", "Axe")
    assert schema_check.is_valid(kind, document) == schema_check.validator(kind).is_valid(document)
