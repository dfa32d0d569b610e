"""Effect code compiled ahead of time (engine/runtime/ahead.py, hatch_build.py `compile_ahead`): a generated source's
factory defines what running the source defines, `define` uses a factory only for the very source it was made of and
a namespace it fits, and the shipped packs play the same games with their effects made by factories as by `exec`.
Here the factories run as Python (`typed=False`); the installed wheel's, compiled by Cython, are checked at the end."""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from engine.runtime import PURE_PYTHON, ahead
from engine.runtime import rules as rules_module
from engine.runtime.game import Game
from engine.runtime.session import play_randomly

REPO = Path(__file__).resolve().parent.parent

SOURCE = """def run_from_0(g, frame, c):
    pc = 0
    return helper(g) + len(frame)

def listed(items):
    return [helper(item) for item in items]
"""


def _factories(entries) -> dict[str, ahead.Factory]:
    """The TABLE of a module of `entries` ((source, file name) each) run as Python: what the build compiles."""
    module: dict = {}
    exec(ahead.module_source(entries, typed=False), module)  # noqa: S102 -- the test's own generated module
    return {key: ahead.Factory(*entry) for key, entry in module["TABLE"].items()}


def test_a_factory_reads_the_names_its_source_reads_and_defines_what_the_source_defines():
    factory = _factories([(SOURCE, "<ahead test>")])[ahead.digest(SOURCE)]
    assert factory.reads == ("helper",) and factory.builtins == ("len",)
    made = factory.make({"helper": lambda x: 10 * x})
    assert sorted(made) == ["listed", "run_from_0"]
    assert made["run_from_0"](2, [1, 2, 3], None) == 23 and made["listed"]([1, 2]) == [10, 20]


def test_a_lowered_function_s_pc_is_declared_a_c_long_in_the_compiled_text_only():
    typed = ahead.factory_source(0, SOURCE, "<ahead test>")
    assert "        cdef long pc\n" in typed and typed.count("cdef") == 1  # (only in `run_from_0`)
    assert "cdef" not in ahead.factory_source(0, SOURCE, "<ahead test>", typed=False)


def test_define_uses_the_factory_of_the_very_source_and_runs_any_other(monkeypatch):
    table = _factories([(SOURCE, "<ahead test>")])
    monkeypatch.setattr(ahead, "_table", lambda: table)
    made: dict = {"helper": abs}
    ahead.define(SOURCE, "<ahead test>", made)
    assert "_factory_0" in made["run_from_0"].__qualname__  # made by the factory
    changed = SOURCE.replace("len(frame)", "len(frame) + 1")
    run: dict = {"helper": abs}
    ahead.define(changed, "<ahead test>", run)
    assert run["run_from_0"].__qualname__ == "run_from_0" and run["run_from_0"](-2, [1], None) == 4


@pytest.mark.parametrize(
    "namespace",
    [{}, {"helper": abs, "len": lambda x: 0}],  # a name it reads missing; a built-in it reads hidden
    ids=["a-name-missing", "a-builtin-hidden"],
)
def test_define_runs_the_source_itself_in_a_namespace_its_factory_does_not_fit(monkeypatch, namespace):
    monkeypatch.setattr(ahead, "_table", lambda: _factories([(SOURCE, "<ahead test>")]))
    ahead.define(SOURCE, "<ahead test>", namespace)
    assert namespace["run_from_0"].__qualname__ == "run_from_0"


def test_switched_off_every_source_runs_itself(monkeypatch):
    monkeypatch.setattr(ahead, "_table", lambda: _factories([(SOURCE, "<ahead test>")]))
    namespace: dict = {"helper": abs}
    with ahead.switched_off():
        ahead.define(SOURCE, "<ahead test>", namespace)
    assert namespace["run_from_0"].__qualname__ == "run_from_0"


def test_every_pack_s_hottest_sources_are_chosen_first_up_to_the_lines_allowed_and_never_one_no_game_ran():
    """A source's rank is the largest share it has of some pack's lines run: a pack of short games is not crowded out
    by one of long games (`x`'s 900 lines are half of its pack's, `z`'s 40 all of its own)."""
    x, y, z, unrun = "a\nb\n", "c\nd\ne\n", "f\n", "g\n"
    sources = {
        "x": (x, "<lowered x>", {"long": 900}),
        "y": (y, "<lowered y>", {"long": 800, "short": 10}),
        "z": (z, "<direct z>", {"short": 40}),
        "u": (unrun, "<lowered u>", {}),
    }
    assert ahead.hot_sources(sources, 100) == [(z, "<direct z>"), (x, "<lowered x>"), (y, "<lowered y>")]
    assert ahead.hot_sources(sources, 6) == [(z, "<direct z>"), (x, "<lowered x>")]  # (`y`'s 4 lines do not fit)


def _gathered(monkeypatch, rules_root: Path, games: int) -> dict[str, tuple[str, str]]:
    """The sources loading and playing a pack defines (as hatch_build.py `gather` finds them)."""
    found: dict[str, tuple[str, str]] = {}
    compile_now = ahead.compiled

    def compiled(source, filename):
        found[ahead.digest(source)] = (source, filename)
        return compile_now(source, filename)

    monkeypatch.setattr(ahead, "compiled", compiled)
    rules = rules_module.load(rules_root)
    for seed in range(games):
        play_randomly(Game.new(rules, 4, seed), random.Random(seed))
    monkeypatch.setattr(ahead, "compiled", compile_now)
    return found


def _hashes(rules_root: Path, seeds, players: int = 4) -> list[str]:
    rules = rules_module.load(rules_root)
    hashes = []
    for seed in seeds:
        game = Game.new(rules, players, seed)
        play_randomly(game, random.Random(seed))
        hashes.append(hashlib.sha256(json.dumps(game.state, sort_keys=True).encode()).hexdigest())
    return hashes


@pytest.mark.slow
@pytest.mark.parametrize("pack", ["neolithibum", "cro-magnon"])
def test_a_shipped_pack_plays_the_same_games_with_every_effect_made_by_its_factory(monkeypatch, pack):
    """Every expression, lowered effect and pack function the pack's games define, made by a factory (as Python here):
    the names each reads found by `names_read`, or a game would raise or play otherwise."""
    root = REPO / "content" / pack
    with ahead.switched_off():
        sources = _gathered(monkeypatch, root, 3)
        expected = _hashes(root, range(3, 6))
    table = _factories(sources.values())
    used = []
    monkeypatch.setattr(ahead, "_table", lambda: table)
    monkeypatch.setattr(ahead, "_fits", lambda factory, namespace: used.append(factory) or True)
    assert _hashes(root, range(3, 6)) == expected
    assert len(used) >= len(sources) // 2  # (the games define the sources again: most of them)


@pytest.mark.skipif(
    Path(engine.__file__).resolve().parent.parent == REPO or bool(os.environ.get(PURE_PYTHON)),
    reason="the engine runs from this checkout's source (an editable install): only a wheel compiles effects ahead",
)
def test_the_installed_wheel_compiled_effects_ahead_and_plays_the_same_games_with_them():
    """Fails if the build went without effect code compiled ahead (it only warns), or if what Cython made of it plays
    otherwise than the source: the hashes of seeded games of every shipped pack, with the factories and without."""
    built_with = Path(ahead.__file__).parent / "compiled_with.json"
    how = json.loads(built_with.read_text())
    assert how["ahead"]["sources"] == ahead.sources_ahead() > 100, how["ahead"]
    for pack in sorted(p for p in (REPO / "content").iterdir() if p.is_dir()):
        fewest, _ = rules_module.load(pack).players
        with ahead.switched_off():
            expected = _hashes(pack, [0], fewest)
        assert _hashes(pack, [0], fewest) == expected, pack.name


@pytest.mark.slow
def test_the_build_gathers_every_source_a_pack_s_games_define_with_the_lines_each_ran(tmp_path):
    """hatch_build.py `gather`, in its own process on the runtime's source as the build runs it: the sources of the
    pack's games, with the lines they ran; what `hot_sources` then chooses from."""
    content = tmp_path / "content"
    shutil.copytree(REPO / "content" / "neolithibum", content / "neolithibum")
    out = tmp_path / "gathered.json"
    subprocess.run(
        [sys.executable, str(REPO / "hatch_build.py"), "--gather", str(REPO), str(content), str(out)],
        env={**os.environ, PURE_PYTHON: "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    gathered = json.loads(out.read_text())
    assert all(key == ahead.digest(source) for key, (source, _, _) in gathered.items())
    ran = {filename for source, filename, lines in gathered.values() if lines.get("neolithibum", 0) > 0}
    assert any(name.startswith("<lowered phase/") for name in ran) and any(name.startswith("<direct ") for name in ran)
    chosen = ahead.hot_sources(gathered, 2_000)
    assert chosen and sum(source.count("\n") + 1 for source, _ in chosen) <= 2_000
