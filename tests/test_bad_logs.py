"""Logs and saves from strangers: every bad file is one clear line and exit 1, never a Python error.

The corpus in tests/bad_logs/ (see its README) is replayed with `knap replay`; hypothesis damages real
logs and saves of the built-in packs and checks that each outcome is a correct replay (or load) or a
clean GameError/ContentError; writes of logs, saves, `sim --log-dir` files and `lint --output` are whole or
not at all, and a failing write names its path.
"""

from __future__ import annotations

import errno
import json
import math
import os
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine.commands.cli import main
from engine.files import atomic
from engine.runtime import persist, session
from engine.runtime.error_codes import ERROR_CODES
from engine.runtime.errors import ContentError
from engine.runtime.game import Game, GameError
from engine.runtime.rules import load

CORPUS = Path(__file__).resolve().parent / "bad_logs"
TOY = CORPUS / "toy"
CONTENT = Path(__file__).resolve().parent.parent / "content"


def _expected():
    cases = []
    for line in (CORPUS / "expected.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, error_code, fragment = line.split("  ", 2)
            cases.append(pytest.param(name, error_code, fragment, id=name))
    return cases


def _run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _clean_failure(code, err, exit_code=1):
    """The one line that says what is wrong (a runtime error's hint may follow it, on its own line)."""
    assert code == exit_code, err
    assert "Traceback" not in err and "internal error" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 or len(lines) == 2 and lines[1].startswith("      = hint: "), err
    assert "\x1b" not in err, err
    return lines[0]


# ------------------------------------------------------------------------------------------- the corpus
def test_the_corpus_is_big_and_each_case_has_a_file():
    cases = _expected()
    assert len([c for c in cases if c.values[0].startswith("log_")]) >= 60
    assert len([c for c in cases if c.values[0].startswith("save_")]) >= 50
    for case in cases:
        assert (CORPUS / case.values[0]).is_file(), case.values[0]


@pytest.mark.parametrize("name,error_code,fragment", _expected())
def test_a_bad_log_or_save_is_one_clear_line_and_exit_1(capsys, name, error_code, fragment):
    code, _out, err = _run(capsys, "replay", CORPUS / name, "--pack", TOY)
    line = _clean_failure(code, err)
    assert line.startswith(f"knap: {CORPUS / name}"), line  # the file comes first
    assert f": {error_code} " in line, line  # which error: its code
    assert fragment in line.replace(f"{error_code} ", "", 1), line  # where, and the words a person reads
    assert err.strip().splitlines()[1] == f"      = hint: {ERROR_CODES[error_code].hint}", err


def test_the_corpus_bases_are_good(capsys, tmp_path):
    """The logs and saves the cases were made from replay and load cleanly (so each case's error is its own)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("generate", CORPUS / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    log, choose, roll = generate._games()
    for name, data in (("log.json", log), ("choose.json", choose), ("roll.json", roll)):
        (tmp_path / name).write_text(json.dumps(data), encoding="utf-8")
        code, out, err = _run(capsys, "replay", tmp_path / name, "--pack", TOY)
        assert code == 0 and not err, err
        assert ("decisions replayed; final state matches" if name == "log.json" else "it loads") in out


def test_a_missing_log_is_a_usage_error_and_a_folder_a_bad_file(capsys, tmp_path):
    code, _, err = _run(capsys, "replay", tmp_path / "nope.json")
    assert "no such file" in _clean_failure(code, err, exit_code=2)
    code, _, err = _run(capsys, "replay", tmp_path)
    assert "cannot read" in _clean_failure(code, err)


def test_a_huge_file_is_refused_by_its_size_before_it_is_read(capsys, tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as handle:  # sparse: no disk space, no time
        handle.truncate(persist.jsonload.MAX_BYTES + 1)
    code, _, err = _run(capsys, "replay", big)
    assert "the limit is 32 MiB" in _clean_failure(code, err)


def test_nesting_100000_deep_is_a_clear_error(capsys, tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    code, _, err = _run(capsys, "replay", deep)
    assert "nests too deeply" in _clean_failure(code, err)
    with pytest.raises(persist.SaveError) as caught:
        Game.load(load(TOY), '{"a":' * 100_000 + "1" + "}" * 100_000)
    assert caught.value.code == "X401"


# ------------------------------------------------------------------------------------------- the API
@pytest.fixture(scope="module")
def toy():
    return load(TOY)


def _toy_game(toy, answers=None):
    game = Game.new(toy, 2, 2)
    session.play_randomly(game, random.Random(2), limit=answers)
    return game


def test_booleans_and_whole_floats_are_not_option_numbers(toy):
    log = session.game_log(_toy_game(toy))
    for wrong in (True, False, 1.0, 0.0):
        bad = json.loads(json.dumps(log))
        bad["decisions"][0][1] = wrong
        with pytest.raises(persist.LogError) as caught:
            session.replay(toy, bad)
        assert (caught.value.code, caught.value.pointer) == ("X403", "/decisions/0/1")
    for wrong in (True, 2.7, 2.0):
        with pytest.raises(persist.LogError) as caught:
            session.replay(toy, {**log, "players": wrong})
        assert (caught.value.code, caught.value.pointer) == ("X403", "/players")


def test_a_save_of_another_version_says_so(toy):
    """A save written by another knap (its state's shape changed since, e.g. `turn.ending` became `turn.closing`)
    is refused at its format, with what this knap reads, before any field that differs."""
    state = json.loads(_toy_game(toy, answers=2).save())
    old = {**state, "format": "knap-state/1", "turn": {**state["turn"], "ending": state["turn"].pop("closing")}}
    with pytest.raises(persist.SaveError) as caught:
        Game.load(toy, json.dumps(old))
    assert (caught.value.code, caught.value.pointer) == ("X412", "/format")
    assert 'is "knap-state/1"; it must be "knap-state/2"' in str(caught.value)


def test_load_refuses_what_it_used_to_take(toy):
    """`[]`, a save without zones, an unknown frame code: each a SaveError that says where."""
    game = _toy_game(toy, answers=4)
    state = json.loads(game.save())
    with pytest.raises(persist.SaveError) as caught:
        Game.load(toy, "[]")
    assert caught.value.code == "X411"
    without_zones = {k: v for k, v in state.items() if k != "zones"}
    with pytest.raises(persist.SaveError, match="`zones` is missing") as caught:
        Game.load(toy, json.dumps(without_zones))
    assert (caught.value.code, caught.value.pointer) == ("X412", "/zones")
    state["stack"] = [{"code": "action/nothing/effect", "pc": 0, "env": {}, "me": "P1", "card": None, "wait": None}]
    with pytest.raises(persist.SaveError) as caught:
        Game.load(toy, json.dumps(state))
    assert (caught.value.code, caught.value.pointer) == ("X415", "/stack/0/code")


def test_a_good_save_loads_and_continues_like_the_original(toy):
    game = _toy_game(toy, answers=5)
    loaded = Game.load(toy, game.save())
    assert loaded.state_hash() == game.state_hash()
    session.play_randomly(game, random.Random(9))
    session.play_randomly(loaded, random.Random(9))
    assert loaded.state_hash() == game.state_hash()


# ------------------------------------------------------------------------------------------- fuzzing
_BASES: dict = {}


def _bases():
    """Real logs and saves: Cro-Magnon with 2 players, Neolithibum and Stone Age with 3, seeded, cut short to stay fast
    (a cut log is still a whole, valid log of the game so far)."""
    if not _BASES:
        for pack, players, seed, answers in (
            ("cro-magnon", 2, 5, 40),
            ("neolithibum", 3, 8, 60),
            ("stone-age", 3, 4, 90),
        ):
            rules = load(CONTENT / pack)
            game = Game.new(rules, players, seed)
            rnd = random.Random(seed)
            saves = []
            for _ in range(3):
                session.play_randomly(game, rnd, limit=answers // 3)
                saves.append(json.loads(game.save()))
            _BASES[pack] = (rules, session.game_log(game, agents=["random"] * players), saves)
    return _BASES


def _strange_values():
    leaf = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 3),
        st.integers(-(2**70), 2**70),
        st.sampled_from([0.0, 1.0, 2.0, 2.7, -0.5, math.nan, math.inf, -math.inf, 1e300]),
        st.sampled_from(
            [
                "",
                "P1",
                "P2",
                "P9",
                "chance",
                "x",
                "action/explore/effect",
                "deck",
                "hand:P1",
                "end_turn",
                "\x1b[2J",
                "\ud800",
            ]
        ),
    )
    return st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "P1", "code", "pc"]), inner, max_size=3)
        ),
        max_leaves=6,
    )


def _mutate(data, document, within=()):
    """Change one spot of `document` (in place): a value of another type, a deleted key or item, a deep
    nest, or a nudged number. The spot is found by walking down from the top, or from one of the keys
    `within` (the parts of a save that the schema says least about)."""
    node, path = document, []
    start = data.draw(st.sampled_from([None, *within]), label="within") if within else None
    if start is not None and isinstance(document.get(start), (dict, list)) and document[start]:
        node, path = document[start], [start]
    while isinstance(node, (dict, list)) and node and data.draw(st.integers(0, 3), label="deeper") > 0:
        keys = list(node) if isinstance(node, dict) else list(range(len(node)))
        key = keys[data.draw(st.integers(0, len(keys) - 1), label="key")]
        path.append(key)
        node = node[key]
    if not path:
        return
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    how = data.draw(st.sampled_from(["replace", "delete", "nest", "nudge"]), label="how")
    if how == "delete":
        del parent[key]
    elif how == "nest":
        parent[key] = json.loads("[" * 70 + json.dumps(parent[key]) + "]" * 70)
    elif how == "nudge" and isinstance(parent[key], int) and not isinstance(parent[key], bool):
        parent[key] += data.draw(st.sampled_from([-1, 1, 2, -1000, 10**6, 2**64]), label="by")
    else:
        parent[key] = data.draw(_strange_values(), label="value")


def _text(document) -> str:
    return json.dumps(document, ensure_ascii=False)  # NaN and Infinity get through as such


EXAMPLES = int(os.environ.get("KNAP_FUZZ_EXAMPLES", "80"))  # raise it for a soak: KNAP_FUZZ_EXAMPLES=5000
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.sampled_from(["cro-magnon", "neolithibum", "stone-age"]), st.data())
def test_fuzzed_logs_replay_or_fail_cleanly(pack, data):
    rules, log, _ = _bases()[pack]
    document = json.loads(json.dumps(log))
    for _ in range(data.draw(st.integers(1, 3), label="changes")):
        _mutate(data, document)
    try:
        parsed = persist.parse(_text(document), persist.LogError)
        game = session.replay(rules, parsed)
    except (GameError, ContentError) as exc:  # LogError is a GameError: a clean, explained refusal
        event(f"refused: {type(exc).__name__}")
        return
    event("replayed")
    assert game.state_hash() == log["final_hash"] or parsed != log


@FUZZ
@given(st.sampled_from(["cro-magnon", "neolithibum", "stone-age"]), st.integers(0, 2), st.data())
def test_fuzzed_saves_load_and_continue_or_fail_cleanly(pack, which, data):
    rules, _, saves = _bases()[pack]
    document = json.loads(json.dumps(saves[which]))
    for _ in range(data.draw(st.integers(1, 3), label="changes")):
        _mutate(data, document, within=("stack", "pending", "attempt", "zones", "turn", "ending", "counters"))
    try:
        game = Game.load(rules, _text(document))
        game.view("P1")
        session.play_randomly(game, random.Random(data.draw(st.integers(0, 9), label="seed")), limit=15)
        game.save()
    except (GameError, ContentError) as exc:
        event(
            f"refused: {type(exc).__name__}"
            + (f" at {exc.pointer.split('/')[1]}" if getattr(exc, "pointer", "") else "")
        )
        return
    event("loaded and played on")


@FUZZ
@given(st.data())
def test_the_fast_schema_check_agrees_with_jsonschema(data):
    """persist.is_valid decides with fastjsonschema where that is exact; jsonschema stays the authority."""
    _, log, saves = _bases()["neolithibum"]
    name, base = data.draw(st.sampled_from([(persist.LOG_SCHEMA, log), (persist.SAVE_SCHEMA, saves[0])]))
    document = json.loads(json.dumps(base))
    _mutate(data, document)
    assert persist.is_valid(document, name) == persist.validator(name).is_valid(document)


# ------------------------------------------------------------------------------------------- writing
def test_lint_output_to_a_full_disk_names_the_path(capsys):
    code, _, err = _run(capsys, "lint", TOY, "--no-cache", "--format", "json", "--output", "/dev/full")
    line = _clean_failure(code, err)
    assert "/dev/full" in line and "No space left on device" in line


def test_lint_output_into_a_missing_folder_names_the_path(capsys, tmp_path):
    target = tmp_path / "no" / "such" / "report.txt"
    code, _, err = _run(capsys, "lint", TOY, "--no-cache", "--output", target)
    assert str(target) in _clean_failure(code, err)


def _fail_on(monkeypatch, calls: set[int]):
    """Make the n-th atomic write (1-based) of this test fail half-way, like a disk that fills up."""
    real = atomic._write_all
    count = [0]

    def write_all(fd, data):
        count[0] += 1
        if count[0] in calls:
            os.write(fd, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd, data)

    monkeypatch.setattr(atomic, "_write_all", write_all)


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(monkeypatch, tmp_path):
    target = tmp_path / "log.json"
    target.write_text("old", encoding="utf-8")
    _fail_on(monkeypatch, {1})
    with pytest.raises(atomic.WriteError, match="No space left on device") as caught:
        atomic.write_text(target, "new" * 1000)
    assert str(target) in str(caught.value)
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["log.json"]


def test_sim_logs_keeps_the_written_games_and_names_the_one_that_failed(capsys, monkeypatch, tmp_path):
    """A full disk half-way through `sim --log-dir`: the logs written before and after stay whole, the failed
    one leaves nothing behind, the summary is still printed, and the error names the file; exit 1."""
    folder = tmp_path / "logs"
    _fail_on(monkeypatch, {2})
    code, out, err = _run(capsys, "sim", TOY, "-n", "4", "-j", "1", "--max-rounds", "1", "--log-dir", folder)
    assert code == 1, err
    assert "Win rate by seat" in out  # what was done is kept
    assert "Traceback" not in err and "internal error" not in err
    failed = [line for line in err.splitlines() if "cannot write" in line]
    assert len(failed) == 1 and failed[0].endswith(": No space left on device"), err
    written = sorted(folder.iterdir())
    assert len(written) >= 2 and not any(str(path) in failed[0] for path in written), (written, err)
    assert failed[0].startswith(f"knap: cannot write {folder / 'seed-'}")
    for path in written:
        session.replay(load(TOY), json.loads(path.read_text(encoding="utf-8")))  # whole logs only


def test_sim_logs_into_a_file_is_a_clear_error(capsys, tmp_path):
    blocker = tmp_path / "logs"
    blocker.write_text("not a folder")
    code, out, err = _run(capsys, "sim", TOY, "-n", "2", "-j", "1", "--max-rounds", "1", "--log-dir", blocker)
    assert code == 1 and "Win rate by seat" in out
    assert f"cannot write {blocker}: it is a file, not a folder" in err
    assert "Traceback" not in err and "internal error" not in err


def test_play_log_into_a_missing_folder_is_a_clear_error(capsys, tmp_path):
    target = tmp_path / "missing" / "game.json"
    code, _, err = _run(capsys, "play", TOY, "--agents", "random", "--log", target)
    assert str(target) in _clean_failure(code, err)


def test_sim_json_to_a_full_disk_is_a_clear_error(capsys):
    code, _, err = _run(capsys, "sim", TOY, "-n", "2", "-j", "1", "--format", "json", "--output", "/dev/full")
    assert "/dev/full" in _clean_failure(code, err)


def test_a_save_is_written_whole(monkeypatch, tmp_path, toy):
    game = _toy_game(toy, answers=3)
    target = tmp_path / "game.save.json"
    persist.write_save(game, target)
    assert Game.load(toy, target.read_bytes()).state_hash() == game.state_hash()
    _fail_on(monkeypatch, {1})
    with pytest.raises(atomic.WriteError, match="game.save.json"):
        persist.write_save(_toy_game(toy, answers=6), target)
    assert Game.load(toy, target.read_bytes()).state_hash() == game.state_hash()


def test_a_log_cannot_make_replay_read_a_pack_outside_its_roots(capsys, tmp_path, monkeypatch):
    """A log names the folder of its pack (`pack_path`); from a stranger, that folder may be anywhere on the
    machine. It is followed only inside the working folder or the log's own folder; otherwise the pack id
    is looked up as any pack id is, and nothing of the outside folder is read."""
    import importlib.util
    import shutil

    spec = importlib.util.spec_from_file_location("generate", CORPUS / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    log, _, _ = generate._games()
    secret = tmp_path / "elsewhere" / "toy"
    shutil.copytree(TOY, secret)
    (secret / "pack.yaml").write_text((secret / "pack.yaml").read_text() + "\nsecret_field: 1\n")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    (work / "log.json").write_text(json.dumps({**log, "pack_path": str(secret)}), encoding="utf-8")
    code, out, err = _run(capsys, "replay", work / "log.json")
    assert code != 0 and "secret_field" not in out + err and "elsewhere" not in out + err, out + err
    assert "toy" in err  # the pack id was looked up, and is unknown here
    # the same folder inside the log's own folder is the user's: it replays
    shutil.copytree(TOY, work / "toy")
    (work / "log.json").write_text(json.dumps({**log, "pack_path": str(work / "toy")}), encoding="utf-8")
    code, out, err = _run(capsys, "replay", work / "log.json")
    assert code == 0, err
