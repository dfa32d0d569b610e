"""`knap schema export`: self-contained draft-07 copies that give the same verdict as our schemas."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from jsonschema import Draft7Validator, Draft202012Validator

from engine.content import schema as schema_check
from engine.content.packs import discover
from engine.content.yamlload import load_file
from engine.files import resources

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def exported_dirs(tmp_path_factory):
    """draft -> folder of a fresh `knap schema export --draft DRAFT`."""
    from engine.commands.cli import main

    dirs = {}
    for draft in ("draft-07", "2020-12"):
        dirs[draft] = tmp_path_factory.mktemp(draft)
        assert main(["schema", "export", str(dirs[draft]), "--draft", draft]) == 0
    return dirs


@pytest.fixture(scope="module")
def exported(exported_dirs):
    """The default export (draft-07): file name -> schema."""
    return {p.name: json.loads(p.read_text()) for p in exported_dirs["draft-07"].glob("*.json")}


def _all_documents():
    """Every document of the built-in packs and of the bad-content corpus (a mix of verdicts)."""
    docs = []
    for root in [resources.root("content"), REPO / "tests" / "bad_content"]:
        packs, _loose = discover([root]) if root.exists() else ([], [])
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
    yield {k: v for k, v in data.items() if k != "id"}  # missing required
    yield {**data, "colour": "red"}  # unknown property
    yield {**data, "id": "Not An Id"}  # pattern
    yield {**data, "id": 7}  # type
    yield {**data, "provenance": "invented"}  # enum
    yield (
        {**data, "provenance": "placeholder", "reason": None}
        if "reason" in data
        else {**data, "provenance": "placeholder"}
    )  # missing reason


@pytest.mark.parametrize("draft", ["draft-07", "2020-12"])
def test_exported_copies_give_the_same_verdict_as_the_source_schemas(exported_dirs, draft):
    validator_class = {"draft-07": Draft7Validator, "2020-12": Draft202012Validator}[draft]
    exported = {p.name: json.loads(p.read_text()) for p in exported_dirs[draft].glob("*.json")}
    document = validator_class(exported["document.schema.json"])
    kinds = {kind: validator_class(exported[f"{kind}.schema.json"]) for kind in schema_check.kinds()}
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
        if data.get("kind") in kinds:  # the fast path agrees with jsonschema, document by document
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


_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.sampled_from(
        ["axe", "Axe", "forest", "player", "table", "deck", "placeholder", "1.0.0", "x y", "", "gain 1 vp"]
    ),
)
_value = st.recursive(
    _leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "vp", "min", "max"]), inner, max_size=3)
    ),
    max_leaves=8,
)


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


# ---------------------------------------------------------------- editors' strict loaders (ajv)


def test_exported_copies_pass_ajv_strict_mode_in_both_drafts(exported_dirs):
    """The real ajv (`new Ajv({strict: true})`, `Ajv2020` for 2020-12) compiles every exported copy:
    no unknown keyword (`x-dsl`, `x-ref`), no union type, no undeclared `required` name."""
    from yls import run_ajv

    files = sorted(p for folder in exported_dirs.values() for p in folder.glob("*.json"))
    result = run_ajv(files)
    assert len(result["files"]) == len(files) >= 2 * len(schema_check.kinds())
    drafts = {entry["draft"] for entry in result["files"].values()}
    assert drafts == {"draft-07", "2020-12"}
    assert {path: entry["errors"] for path, entry in result["files"].items() if entry["errors"]} == {}


def test_ajv_check_reports_what_strict_mode_refuses(tmp_path):
    """The harness can fail: a schema with an `x-` keyword, a union type and an undeclared required name."""
    from yls import run_ajv

    bad = tmp_path / "bad.schema.json"
    bad.write_text(
        json.dumps(
            {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "properties": {"a": {"type": ["string", "integer"], "x-ref": "card"}},
                "oneOf": [{"required": ["b"]}],
            }
        )
    )
    errors = " ".join(run_ajv([bad])["files"][str(bad)]["errors"])
    assert "x-ref" in errors and "allowUnionTypes" in errors and '"b"' in errors


def test_lint_reads_the_x_marks_from_the_source_schemas_not_the_copies(exported_dirs):
    source = json.dumps(schema_check.schema_files())
    assert '"x-dsl"' in source and '"x-ref"' in source
    for folder in exported_dirs.values():
        for path in folder.glob("*.json"):
            assert '"x-dsl"' not in path.read_text() and '"x-ref"' not in path.read_text(), path
    roles = {role for kind in schema_check.kinds() for _, role, _ in schema_check.field_roles(kind)}
    assert roles == {"dsl", "ref", "refkey"}


_names = st.sampled_from(["a", "b", "x-a"])
_types = st.sampled_from(["string", "integer", "boolean", "array", "object", "null"])


def _schemas(depth=2):
    """Small schemas made of a few keywords each, with the three shapes the rewrite changes among them."""
    simple = st.one_of(
        st.just({}),
        st.builds(lambda t: {"type": t}, st.one_of(_types, st.lists(_types, min_size=2, max_size=3, unique=True))),
        st.builds(lambda names: {"required": names}, st.lists(_names, min_size=1, max_size=2, unique=True)),
        st.sampled_from([{"x-ref": "card"}, {"x-dsl": "effect"}, {"minItems": 1}, {"maxLength": 0}]),
        st.builds(
            lambda values: {"enum": values},
            st.lists(st.sampled_from([1, "a", None, True]), min_size=1, max_size=3, unique=True),
        ),
    )
    if depth > 0:
        inner = _schemas(depth - 1)
        simple = st.one_of(
            simple,
            st.one_of(
                st.builds(lambda props: {"properties": props}, st.dictionaries(_names, inner, min_size=1, max_size=2)),
                st.builds(lambda sub: {"additionalProperties": sub}, st.one_of(st.booleans(), inner)),
                st.builds(lambda sub: {"patternProperties": {"^x": sub}}, inner),
                st.builds(
                    lambda key, subs: {key: subs},
                    st.sampled_from(["allOf", "anyOf", "oneOf"]),
                    st.lists(inner, min_size=1, max_size=2),
                ),
                st.builds(lambda key, sub: {key: sub}, st.sampled_from(["not", "if", "then", "else", "items"]), inner),
            ),
        )
    return st.lists(simple, min_size=1, max_size=3).map(lambda parts: {k: v for part in parts for k, v in part.items()})


_instances = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(0, 2), st.sampled_from(["", "a"])),
    lambda inner: st.one_of(st.lists(inner, max_size=2), st.dictionaries(_names, inner, max_size=3)),
    max_leaves=6,
)


@settings(max_examples=150, deadline=None)
@given(_schemas(), st.lists(_instances, min_size=1, max_size=6))
@example({"type": ["string", "integer"], "anyOf": [{"enum": [1]}], "maxLength": 0}, ["a", "", 1, None])
@example({"additionalProperties": {"type": "integer"}, "required": ["a"]}, [{"a": 1}, {"a": "a"}])
def test_editor_safe_rewrite_never_changes_a_verdict(schema, instances):
    """Dropping `x-` marks, splitting union types and declaring required names accepts and rejects
    exactly what the schema did, in both drafts (random schemas and documents)."""
    import copy

    from engine.commands.schema_export import editor_safe

    rewritten = editor_safe(copy.deepcopy(schema))
    assert '"x-ref"' not in json.dumps(rewritten) and '"x-dsl"' not in json.dumps(rewritten)
    for validator in (Draft7Validator, Draft202012Validator):
        before, after = validator(schema), validator(rewritten)
        for instance in instances:
            assert before.is_valid(instance) == after.is_valid(instance), (validator.__name__, instance, rewritten)


def test_export_into_a_file_is_a_clear_error(tmp_path, capsys):
    from engine.commands.cli import main

    blocker = tmp_path / "taken"
    blocker.write_text("a file, not a folder")
    assert main(["schema", "export", str(blocker / "schemas")]) == 1
    err = capsys.readouterr().err
    assert "taken" in err and "internal error" not in err and "Traceback" not in err


def test_schema_without_an_action_is_a_usage_error(capsys):
    from engine.commands.cli import main

    assert main(["schema"]) == 2
    assert "ACTION" in capsys.readouterr().err
