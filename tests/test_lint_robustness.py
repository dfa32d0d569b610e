"""Lint findings that are exact (issue 10, item 8): parameter values the runtime can use, no internal error
under a variant whatever its base holds, one finding per mistake (no repeats, no cascades), and "did you
mean" that stays fast on packs with tens of thousands of ids."""

from __future__ import annotations

import copy
import difflib
import json
import random
import re
import shutil
from pathlib import Path

import pytest
import yaml
from conftest import MINIMAL_RULES, REPO
from conftest import write_tree as write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_variants import BASE, VARIANT_MANIFEST

from engine import dsl, lint
from engine.runtime.rules import PackError, load


def _lint(*roots: Path):
    """Lint in-process without the cache: (diagnostics, {(file name, line, col, code)})."""
    result = lint.lint(list(roots), None)
    return result.diagnostics, {(Path(d.file).name, d.line, d.col, d.code) for d in result.diagnostics}


def _no_internal_error(diagnostics):
    assert not [d for d in diagnostics if d.code == "E000"], [d.message for d in diagnostics if d.code == "E000"]
    for d in diagnostics:
        assert d.line >= 1 and d.col >= 1, d


# ------------------------------------------------------------------------------ 1. typed parameter values
PACK = """kind: pack
id: demo
name: Demo
version: 0.1.0
players: {min: 2, max: 4}
parameters:
  hand_limit:
    description: Cards kept.
    default: 5
"""
RULES = (
    MINIMAL_RULES
    + """---
kind: action
id: draw_cards
name: Draw
limit: once_per_turn
effect: |
  draw hand_limit from deck to hand(me)
"""
)


def _demo(tmp_path, parameter: str) -> Path:
    """The demo pack, with `default: 5` of `hand_limit` (line 9) replaced."""
    return write(tmp_path / "demo", {"pack.yaml": PACK.replace("    default: 5\n", parameter), "rules.yaml": RULES})


def test_the_demo_pack_is_clean(tmp_path):
    diagnostics, _ = _lint(_demo(tmp_path, "    default: 5\n"))
    assert diagnostics == []


@pytest.mark.parametrize(
    "value, found",
    [
        ("lots", {("pack.yaml", 9, 14, "R001")}),  # a word that names nothing
        ("[1, lots, 3]", {("pack.yaml", 9, 18, "R001")}),  # in a list: at the item
        ("'Five cards'", {("pack.yaml", 9, 14, "R001")}),
        ("1.5", {("pack.yaml", 9, 14, "S003")}),  # not a whole number
        ("[[1, 2]]", {("pack.yaml", 9, 15, "S003")}),  # lists of lists are not values
        ("~", {("pack.yaml", 9, 14, "S003")}),
    ],
)
def test_a_parameter_value_the_runtime_cannot_use_is_an_error_at_the_value(tmp_path, value, found):
    diagnostics, got = _lint(_demo(tmp_path, f"    default: {value}\n"))
    assert got == found, [str(d) for d in diagnostics]


@pytest.mark.parametrize("value", ["true", "deck", "[deck, hand]", "[1, 2]", "vp"])
def test_numbers_booleans_ids_and_lists_of_them_are_values(tmp_path, value):
    diagnostics, _ = _lint(_demo(tmp_path, f"    default: {value}\n"))
    assert diagnostics == []


def test_the_hint_suggests_a_close_id(tmp_path):
    diagnostics, _ = _lint(_demo(tmp_path, "    default: [deck, hnad]\n"))
    (diag,) = diagnostics
    assert "`hnad`" in diag.message and "did you mean `hand`?" in diag.hint


@pytest.mark.parametrize("key", ['"02"', '"0"', '"x"'])
def test_a_player_count_key_that_no_game_has_is_an_error(tmp_path, key):
    """The runtime looks a count up as `str(n)`: "02" or "0" would never be read."""
    table = f'    by_player_count: {{"2": 4, {key}: 5, "3": 4, "4": 4}}\n'
    _, got = _lint(_demo(tmp_path, table))
    assert got == {("pack.yaml", 9, 31, "S005")}


def test_neolithibum_with_a_word_for_a_number_does_not_lint_clean_nor_play(tmp_path):
    """The report of issue 10: `default: lots` linted clean, then `knap sim` said "internal error"."""
    root = tmp_path / "neolithibum"
    shutil.copytree(REPO / "content" / "neolithibum", root)
    manifest = root / "pack.yaml"
    lines = manifest.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(n for n in range(lines.index("  starting_meals:\n"), len(lines)) if lines[n].startswith("    default:"))
    lines[at] = "    default: lots\n"
    manifest.write_text("".join(lines), encoding="utf-8")
    diagnostics, got = _lint(root)
    assert got == {("pack.yaml", at + 1, 14, "R001")}, [str(d) for d in diagnostics]
    with pytest.raises(PackError):
        load(root)


# ------------------------------------------------------------------------------ 2. no internal error under a variant
BROKEN_BASE = {**BASE, "cards.yaml": BASE["cards.yaml"].replace("deck: deck", "deck: dekc", 1)}


@pytest.mark.parametrize(
    "manifest",
    [
        VARIANT_MANIFEST.replace("name: Variant\n", ""),  # a required property missing
        VARIANT_MANIFEST.replace("name: Variant\n", "name: [Variant]\n"),  # a value of the wrong type
        VARIANT_MANIFEST + "players: {min: x}\n",
        VARIANT_MANIFEST + "parameters: {goal: 3}\n",
    ],
)
@pytest.mark.parametrize("base", [BASE, BROKEN_BASE], ids=["clean_base", "broken_base"])
def test_a_broken_variant_manifest_is_reported_with_its_base(tmp_path, manifest, base):
    """The variant's manifest breaks its schema (with a base that is broken too, `*manifest_at` of a manifest
    the schema refused gave E000): its own findings are reported, located, and the base's when both are linted."""
    write(tmp_path / "base", base)
    variant = write(tmp_path / "variant", {"pack.yaml": manifest})
    for roots in ([variant], [tmp_path / "base", variant]):
        diagnostics, _got = _lint(*roots)
        _no_internal_error(diagnostics)
        assert any(d.code.startswith("S") and Path(d.file).parent.name == "variant" for d in diagnostics)
    assert any(Path(d.file).parent.name == "base" for d in diagnostics) == (base is BROKEN_BASE)


@pytest.mark.parametrize("bad_id", ["[stone]", "{a: 1}", "7", "~"])
def test_a_document_whose_id_is_not_a_text_breaks_nothing(tmp_path, bad_id):
    """A schema-invalid document takes part with its id when it is one; an id of the wrong type is no id."""
    base = {**BASE, "cards.yaml": BASE["cards.yaml"].replace("id: stone", f"id: {bad_id}")}
    write(tmp_path / "base", base)
    variant = write(tmp_path / "variant", {"pack.yaml": VARIANT_MANIFEST})
    diagnostics, got = _lint(tmp_path / "base", variant)
    _no_internal_error(diagnostics)
    assert ("pack.yaml", 5, 11, "P008") in got and ("cards.yaml", 2, 5, "S003") in got


def _paths(node, path=()):
    """Every path into a document (the document itself excluded), keys and list items alike."""
    if path:
        yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, path + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, path + (index,))


_SCALAR = st.one_of(st.none(), st.integers(0, 2), st.just("x"))
_WRONG = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from(["", "x", "stone", "deck", "1"]),
    st.just(1.5),
    st.just([]),
    st.just({}),
    st.lists(st.one_of(_SCALAR, st.just([])), min_size=1, max_size=2),
    st.dictionaries(st.sampled_from(["x", "1", "id", "kind"]), _SCALAR, min_size=1, max_size=2),
)


def _corrupt(draw, text: str, keep=()) -> str:
    """One value of one document of a YAML text replaced by a value of another type."""
    docs = list(yaml.safe_load_all(text))
    index = draw(st.integers(0, len(docs) - 1))
    paths = [p for p in _paths(docs[index]) if p not in keep]
    path = draw(st.sampled_from(paths))
    node = docs[index] = copy.deepcopy(docs[index])
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = draw(_WRONG)
    return "\n---\n".join(json.dumps(doc) for doc in docs) + "\n"


@st.composite
def _corrupted_packs(draw):
    base = dict(BASE)
    for _ in range(draw(st.integers(1, 2))):
        name = draw(st.sampled_from(sorted(BASE)))
        base[name] = _corrupt(draw, base[name], keep={("kind",)} if name == "pack.yaml" else ())
    variant = VARIANT_MANIFEST
    if draw(st.booleans()):
        variant = _corrupt(
            draw,
            VARIANT_MANIFEST + "players: {min: 1, max: 2}\nparameters:\n  goal: {default: 2}\n",
            keep={("extends",), ("extends", 0), ("kind",)},
        )
    return base, variant


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(packs=_corrupted_packs())
def test_type_corruptions_of_a_base_never_give_an_internal_error(tmp_path_factory, packs):
    """Values of the wrong type anywhere in a base's documents (and maybe in the variant's manifest): linting
    the base and the variant gives located findings, never E000, for either pack."""
    base, variant = packs
    root = tmp_path_factory.mktemp("corrupt")
    write(root / "base", base)
    write(root / "variant", {"pack.yaml": variant})
    diagnostics, _ = _lint(root / "base", root / "variant")
    _no_internal_error(diagnostics)
    diagnostics, _ = _lint(root / "variant")
    _no_internal_error(diagnostics)


# ------------------------------------------------------------------------------ 3. one finding per mistake
CARDS = """kind: card
id: stone
name: Stone
type: resource
deck: deck
copies: 2
---
kind: card
id: bone
name: Bone
type: resource
deck: deck
cost: [stone]
requires: [stone]
"""
DECK_PACK = PACK + "decks:\n  deck: {size: 3, composition: {stone: 2, bone: 1}}\n"
USES_STONE = (
    RULES
    + """---
kind: action
id: count_stones
name: Count
limit: once_per_turn
effect: |
  gain count(hand(me) where card = stone) vp
"""
)


def _cards_pack(tmp_path, cards: str, manifest: str = DECK_PACK) -> Path:
    return write(tmp_path / "demo", {"pack.yaml": manifest, "rules.yaml": USES_STONE, "cards.yaml": cards})


def test_the_cards_pack_is_clean(tmp_path):
    diagnostics, _ = _lint(_cards_pack(tmp_path, CARDS))
    assert diagnostics == []


def test_three_missing_properties_are_three_findings(tmp_path):
    """The card `stone` without `id`, `name` and `type`: one S001 for each, at the document; nothing about the
    references to `stone` (deck composition, cost, requires, effect text) that the missing id causes."""
    cards = CARDS.replace("id: stone\nname: Stone\ntype: resource\n", "")
    diagnostics, _ = _lint(_cards_pack(tmp_path, cards))
    assert sorted((d.code, d.line, d.col, d.message) for d in diagnostics) == [
        ("S001", 1, 1, f"the card is missing the required property `{name}`") for name in ("id", "name", "type")
    ]


def test_a_card_missing_its_name_still_counts_in_its_deck(tmp_path):
    """A card whose only mistake is a missing `name` still has its id and copies: no R003 about its deck."""
    cards = CARDS.replace("name: Stone\n", "")
    diagnostics, _ = _lint(_cards_pack(tmp_path, cards))
    assert [(d.code, d.line) for d in diagnostics] == [("S001", 1)]


def test_a_card_with_a_broken_copies_count_causes_no_deck_error(tmp_path):
    cards = CARDS.replace("copies: 2", "copies: two")
    diagnostics, _ = _lint(_cards_pack(tmp_path, cards))
    assert [(d.code, d.line, d.col) for d in diagnostics] == [("S003", 6, 9)]


def test_a_zone_missing_its_id_causes_no_unknown_zone(tmp_path):
    rules = RULES.replace("id: deck\n", "", 1)
    root = write(tmp_path / "demo", {"pack.yaml": PACK, "rules.yaml": rules})
    diagnostics, _ = _lint(root)
    assert [(d.code, d.line) for d in diagnostics] == [("S001", 1)]


def test_a_broken_manifest_still_names_its_parameters(tmp_path):
    """A manifest missing its `version`: one S001; the texts that use its parameter are not D002."""
    root = write(tmp_path / "demo", {"pack.yaml": PACK.replace("version: 0.1.0\n", ""), "rules.yaml": RULES})
    diagnostics, _ = _lint(root)
    assert [(d.code, d.line) for d in diagnostics] == [("S001", 1)]


USES_TOOLS = """---
kind: action
id: use_tools
name: Use tools
limit: once_per_turn
effect: |
  draw 1 from deck to hand(me) as found
  if found.type = tool or has(found, sharp):
      gain count(hand(me) where tag = sharp) vp
"""
TOOL_CARDS = CARDS.replace("type: resource\ndeck: deck\ncost:", "type: tool\ntags: [sharp]\ndeck: deck\ncost:")


@pytest.mark.parametrize(
    "old, new, found",
    [
        ("", "", []),
        ("name: Bone\n", "", [("S001", 8, 1)]),  # broken for a missing name: its type and tag still named
        ("tags: [sharp]", "tags: sharp", [("S003", 12, 7)]),  # a tag not in a list is still a tag
        ("type: tool", "type: [tool]", [("S003", 11, 7)]),  # a type in a list is still a type
    ],
)
def test_a_broken_card_still_names_its_type_and_tags(tmp_path, old, new, found):
    """The only card of type `tool` and tag `sharp` breaks its schema: its type and tags keep their names, so
    the texts that use them get no D002 `unknown name` (s001_missing_name, s003_stats_not_a_mapping)."""
    cards = TOOL_CARDS.replace(old, new) if old else TOOL_CARDS
    rules = USES_STONE + USES_TOOLS
    root = write(tmp_path / "demo", {"pack.yaml": DECK_PACK, "rules.yaml": rules, "cards.yaml": cards})
    diagnostics, _ = _lint(root)
    assert [(d.code, d.line, d.col) for d in diagnostics] == found


CALLS_TWICE = """---
kind: function
id: twice
params: [amount]
body: amount * 2
---
kind: action
id: double
name: Double
limit: once_per_turn
effect: |
  gain twice(3) vp
"""


@pytest.mark.parametrize("params, found", [("[amount]", []), ("amount", [("S003", 26, 9)]), ("5", [("S003", 26, 9)])])
def test_a_function_whose_params_is_not_a_list_causes_no_unknown_name_nor_arity(tmp_path, params, found):
    """`params: 5` loses the function's parameters: its body's `amount` is not D002 and the call `twice(3)`
    is not D003 `takes 0 arguments` (s003_params_not_a_list)."""
    rules = RULES + CALLS_TWICE.replace("params: [amount]", f"params: {params}")
    diagnostics, _ = _lint(write(tmp_path / "demo", {"pack.yaml": PACK, "rules.yaml": rules}))
    assert [(d.code, d.line, d.col) for d in diagnostics] == found


FLINT = """kind: card
id: flint
replace: true
name: Flint
type: resource
deck: deck
"""


@pytest.mark.parametrize("replace", [True, False])
def test_a_replacement_of_nothing_is_not_counted_in_its_deck(tmp_path, replace):
    """`replace: true` on an id the base lacks (P007) was meant to stand in for an inherited card: it is refused
    like a broken card, so the inherited deck it would join gets no R003 (p007_replacement_of_nothing). Without
    `replace: true` it is a new card, and the deck's composition does not list it."""
    write(tmp_path / "base", BASE)
    cards = FLINT if replace else FLINT.replace("replace: true\n", "")
    root = write(tmp_path / "variant", {"pack.yaml": VARIANT_MANIFEST, "cards.yaml": cards})
    diagnostics, _ = _lint(root)
    assert [(d.code, d.line) for d in diagnostics] == ([("P007", 3)] if replace else [("R003", 5)])


# ------------------------------------------------------------------------------ 4. "did you mean" that scales
_LETTERS = st.text("abcde_", max_size=12)


@settings(max_examples=300, deadline=None)
@given(
    names=st.lists(_LETTERS, min_size=1, max_size=60),
    extra=st.lists(_LETTERS, max_size=8),
    dropped=st.integers(0, 5),
    word=_LETTERS,
    cutoff=st.sampled_from([0.0, 0.6, 0.75, 0.9, 1.0]),
)
def test_the_index_gives_difflibs_answer(names, extra, dropped, word, cutoff):
    """NameIndex prunes with bounds of difflib's ratio: its answer is get_close_matches' best, ties included
    (few letters, so many names tie). With `SMALL` at 5 the index answers for all but the smallest sets, and
    a set that differs from an indexed one by up to 5 names more and 5 fewer is answered by that index (the
    names it has too many left out) and by those few names."""
    from engine import suggestions

    small, suggestions.SMALL = suggestions.SMALL, 5
    try:
        for asked in (names, names + extra, names[dropped:] + extra):
            expected = difflib.get_close_matches(word, asked, n=1, cutoff=cutoff)
            expected = expected[0] if expected else None
            assert suggestions.NameIndex(asked).closest(word, cutoff) == expected
            suggestions.index(names)
            assert suggestions.closest(word, set(asked), cutoff) == expected
    finally:
        suggestions.SMALL = small


def test_one_suggest_everywhere():
    """engine/suggestions.py is the one "did you mean": no other module of the engine matches names itself."""
    from engine import suggestions

    engine_dir = Path(suggestions.__file__).parent
    for path in sorted(engine_dir.rglob("*.py")):
        if path.name != "suggestions.py" and "_bundled" not in path.parts:
            source = path.read_text(encoding="utf-8")
            assert not re.search(r"SequenceMatcher|get_close_matches", source), path.relative_to(engine_dir)
    assert suggestions.suggest("gian", dsl.VERBS) == "did you mean `gain`?"
    assert suggestions.suggest("zzz", dsl.VERBS) == ""


def _bench():
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_suggest", REPO / "tools" / "bench" / "suggest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_large_pack_suggests_what_difflib_would_with_few_comparisons(tmp_path, monkeypatch):
    """A pack of 2,000 cards, 80 of which cost a near-miss of another card's id: every R001 suggests
    difflib's answer over all ids, and the linter compares each miss with a few dozen ids, not 2,000 (time
    itself is measured by tools/bench/suggest.py: 2 shared cores make a time bound flaky)."""
    from difflib import SequenceMatcher

    from engine import suggestions

    bench = _bench()
    rng = random.Random(7)
    ids = bench.make_ids(2000, rng)
    misses = bench.make_misses(ids, 80, rng)
    root = bench.write_pack(tmp_path, "large", ids, misses)
    compared = []
    original = SequenceMatcher.set_seq1
    monkeypatch.setattr(SequenceMatcher, "set_seq1", lambda self, a: (compared.append(a), original(self, a))[1])
    suggestions._indexes.clear()
    result = lint.lint([root], None, jobs=1)
    monkeypatch.undo()
    hints = {d.message: d.hint for d in result.diagnostics if d.code == "R001"}
    assert len(hints) == len(set(misses)) and len(result.diagnostics) == len(misses)
    for word in set(misses):
        best = bench.old_way(word, ids)
        assert hints[f"unknown card `{word}`"] == (
            f"did you mean `{best}`?" if best else f"define a card with `id: {word}`"
        )
    assert len(compared) < 50 * len(misses), len(compared) / len(misses)
