"""`knap sim --backend ray` (engine/balance/ray_backend.py): the games of a run played by Ray workers that load the
pack from the bytes shipped to them give the summary, to the byte, a local run gives for the same seeds, and a Ray
run cut short resumes to it too. A local Ray of 2 CPUs is started once for the module."""

from __future__ import annotations

import json
import sys

import pytest
from conftest import one_action_rules, tiny_manifest, write_tree

PACK = "cro-magnon"
SETTINGS = ("--players", "2", "--agents", "random", "--seed", "11", "-n", "36")


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray")  # the `test` extra installs it; without it there is no backend to test
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    yield ray
    ray.shutdown()


def _sim(knap, out, *extra, pack=PACK, settings=SETTINGS):
    code, printed, err = knap("sim", pack, *settings, "--format", "json", "--out", out, *extra)
    return code, printed, err


def _records(folder) -> list[dict]:
    return sorted((json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()), key=_index)


def _index(record: dict) -> int:
    return record["index"]


@pytest.mark.slow
def test_a_ray_run_gives_a_local_runs_summary_and_resumes_to_it(knap, tmp_path, local_ray):
    local, on_ray = tmp_path / "local", tmp_path / "ray"
    code, expected, err = _sim(knap, local, "--jobs", "1")
    assert code == 0, err
    code, printed, err = _sim(knap, on_ray, "--backend", "ray")
    assert code == 0 and err == "", err
    assert printed == expected == (on_ray / "summary.json").read_text()
    assert _records(on_ray) == _records(local)  # every record, the recorder's keys included
    assert json.loads((on_ray / "run.json").read_text()) == json.loads((local / "run.json").read_text())

    # cut after 5 whole lines and half of the sixth, as a run killed while it wrote: resumed on Ray, the same
    lines = (on_ray / "games.jsonl").read_bytes().splitlines(True)
    (on_ray / "games.jsonl").write_bytes(b"".join(lines[:5]) + lines[5][:9])
    (on_ray / "summary.json").unlink()
    code, printed, err = _sim(knap, on_ray, "--backend", "ray", "--resume")
    assert code == 0, err
    assert printed == expected == (on_ray / "summary.json").read_text()
    assert [r["index"] for r in _records(on_ray)] == list(range(36))

    # and a local run goes on with what Ray played
    lines = (on_ray / "games.jsonl").read_bytes().splitlines(True)
    (on_ray / "games.jsonl").write_bytes(b"".join(lines[:20]))
    code, printed, err = _sim(knap, on_ray, "--resume", "--jobs", "2")
    assert code == 0 and printed == expected, err


@pytest.mark.slow
def test_a_content_error_on_ray_names_the_callers_file(knap, tmp_path, local_ray):
    """The workers load a copy of the pack: an error they meet is still reported at the caller's file and line."""
    effect = "let x = 1\nrepeat 4000 times:\n    let x = x * 10\ngain x vp"
    root = write_tree(tmp_path / "huge", {"pack.yaml": tiny_manifest("huge"), "rules.yaml": one_action_rules(effect)})
    settings = ("--players", "2", "-n", "3")
    local_logs, ray_logs = tmp_path / "local-logs", tmp_path / "ray-logs"
    code, expected, _ = _sim(knap, tmp_path / "local", "--log-dir", local_logs, pack=root, settings=settings)
    assert code == 1
    code, printed, _ = _sim(
        knap, tmp_path / "ray", "--backend", "ray", "--log-dir", ray_logs, pack=root, settings=settings
    )
    assert code == 1 and printed == expected
    sample = json.loads(printed)["error_samples"][0]
    assert sample["error"].startswith(f"{root / 'rules.yaml'}:"), sample
    # the failed games' logs too: they name the caller's pack folder, to replay there
    assert sorted(p.name for p in ray_logs.iterdir()) == ["seed-0.json", "seed-1.json", "seed-2.json"]
    assert all((ray_logs / p.name).read_bytes() == p.read_bytes() for p in local_logs.iterdir())


def test_without_ray_the_backend_says_how_to_install_it(knap, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as it does where ray is not installed
    code, printed, err = _sim(knap, tmp_path / "run", "--backend", "ray")
    assert code == 2 and printed == ""
    assert err == "knap: the Ray backend needs ray: pip install 'knapper[ray]'\n"
    assert not (tmp_path / "run").exists()


def test_a_worker_of_another_knapper_version_refuses_to_play():
    from engine.balance import ray_backend

    with pytest.raises(RuntimeError, match="the Ray workers run knapper .* and the driver 0.0.0: install the same"):
        ray_backend._play_batch([None], ("key", "0.0.0", 0, (2, ["random"], 500, 1000, False, False)), [0])
