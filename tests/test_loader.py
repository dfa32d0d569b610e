"""The YAML loader: plain data out, every problem a diagnostic with a position, never an exception."""

from __future__ import annotations

import string

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.content.packs import PackFiles
from engine.content.yamlload import MAX_DEPTH, load_bytes, load_text, position, text_position
from engine.lint.checks import PackChecker, check_file


def codes(text):
    loaded = load_text(text, "f.yaml")
    return [(d.code, d.line, d.col) for d in loaded.diagnostics]


def test_plain_values_come_out_as_python_data():
    loaded = load_text("a: 1\nb: [x, 2.5, true, null]\nc: {d: '0x1F'}\ne: 2024-01-01\n", "f.yaml")
    assert loaded.documents[0].data == {"a": 1, "b": ["x", 2.5, True, None], "c": {"d": "0x1F"}, "e": "2024-01-01"}


def test_duplicate_key_points_at_the_second_key_and_names_the_first():
    loaded = load_text("kind: card\nid: a\nid: b\n", "f.yaml")
    (diag,) = loaded.diagnostics
    assert (diag.code, diag.line, diag.col) == ("Y002", 3, 1)
    assert "first at line 2" in diag.message


def test_keys_that_yaml_reads_as_booleans_or_numbers_are_refused():
    assert codes("on: 1\n2: x\nnull: y\n") == [("Y003", 1, 1), ("Y003", 2, 1), ("Y003", 3, 1)]


def test_python_tags_never_construct_objects():
    assert codes("a: !!python/object/apply:os.system ['echo hi']\n") == [("Y004", 1, 4)]
    assert codes("a: !custom 1\n") == [("Y004", 1, 4)]


def test_alias_bomb_is_stopped_at_the_alias_that_overflows():
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 9):
        lines.append(f"a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * 10) + "]")
    found = codes("\n".join(lines) + "\n")
    assert found and found[0][0] == "Y005"


def test_shared_anchors_within_the_limit_are_fine():
    loaded = load_text("base: &b {x: 1}\none: *b\ntwo: {<<: *b, y: 2}\n", "f.yaml")
    assert loaded.documents[0].data == {"base": {"x": 1}, "one": {"x": 1}, "two": {"x": 1, "y": 2}}


def test_nesting_past_the_limit_is_an_error_not_a_crash():
    deep = "a:\n" + "".join("  " * i + "- \n" for i in range(1, MAX_DEPTH + 5))
    assert [c for c, *_ in codes(deep)] == ["Y007"]
    flow = "a: " + "[" * 5000 + "]" * 5000 + "\n"
    assert [c for c, *_ in codes(flow)] == ["Y007"]


def test_syntax_errors_have_positions_and_hints():
    loaded = load_text("kind: card\nname: [a, b\nid: x\n", "f.yaml")
    (diag,) = loaded.diagnostics
    assert diag.code == "Y001" and diag.line >= 2 and diag.hint


def test_bad_utf8_and_binary_are_reported():
    assert [d.code for d in load_bytes(b"kind: card\nname: \xff\n", "f.yaml").diagnostics] == ["Y008"]
    assert [(d.code, d.line) for d in load_bytes(b"a: 1\n\x00", "f.yaml").diagnostics] == [("Y008", 2)]


def test_non_mapping_documents_are_reported():
    assert [c for c, *_ in codes("- a\n- b\n")] == ["Y009"]
    assert codes("---\n---\nkind: card\n") == []  # empty documents are skipped


def test_positions_follow_paths_to_keys_and_values():
    loaded = load_text("kind: card\nstats:\n  vp: 2\ncost: [wood, stone]\n", "f.yaml")
    node = loaded.documents[0].node
    assert position(node, ("stats", "vp")) == (3, 7)
    assert position(node, ("stats", "vp"), key=True) == (3, 3)
    assert position(node, ("cost", 1)) == (4, 14)
    assert position(node, ("missing", "deeper")) == (1, 1)  # the nearest existing node


def test_text_positions_inside_block_and_flow_scalars():
    text = "effect: |\n  gain 1 vp\n  gian 2 vp\nrequires: 'x > 1'\n"
    loaded = load_text(text, "f.yaml")
    node, lines = loaded.documents[0].node, text.splitlines()
    offset = "gain 1 vp\ngian 2 vp\n".index("gian")
    assert text_position(node, ("effect",), lines, offset) == (3, 3)
    assert text_position(node, ("requires",), lines, 2) == (4, 14)


_yaml_text = st.text(alphabet=string.printable + "äé☃\u2028", max_size=300)


@settings(max_examples=300, deadline=None)
@given(_yaml_text)
def test_any_text_gives_data_or_diagnostics_never_an_exception(text):
    loaded = load_text(text, "f.yaml")
    for diag in loaded.diagnostics:
        assert diag.code[0] in "YS" and diag.line >= 1 and diag.col >= 1
    result = check_file(loaded)
    PackChecker(PackFiles(__import__("pathlib").Path("/nonexistent")), [result]).run()


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.text(max_size=20),
    st.sampled_from(["card", "zone", "pack", "wood", "gain 1 vp", "if x:\n  stop\n"]),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.sampled_from(
                ["kind", "id", "name", "type", "deck", "cost", "requires", "stats", "effect", "copies", "tags", "x"]
            ),
            inner,
            max_size=6,
        ),
    ),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            ["kind", "id", "name", "type", "deck", "cost", "requires", "stats", "effect", "body", "trigger"]
        ),
        _values,
        max_size=8,
    )
)
def test_any_yaml_document_lints_to_diagnostics(document):
    text = yaml.safe_dump(document, allow_unicode=True)
    loaded = load_text(text, "f.yaml")
    result = check_file(loaded)
    _diags, _ = PackChecker(PackFiles(__import__("pathlib").Path("/nonexistent")), [result]).run()
    for diag in result.diagnostics:
        assert diag.line >= 1
