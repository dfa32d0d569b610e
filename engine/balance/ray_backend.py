"""Playing a run's games on Ray (`knap sim --backend ray [--address ADDR]`): a local Ray started for the run, or a
cluster joined, whose workers need knapper installed but none of the caller's files.

The pack travels as bytes (bundle.Bundle, put in Ray's object store once); each worker process lays it out in a
temporary folder and loads it the first time a task of the run reaches it, then keeps it for the run's next
tasks. Games go out in batches (a task plays many seeds: a million tiny tasks would cost more than their games),
with a bounded number of tasks in flight, and come back as tasks finish (`ray.wait`), each batch handed to the
run's sink at once. A game plays the same wherever it runs, so the summary is the one a local run gives.

ray is an optional extra (`pip install 'knapper[ray]'`), imported only here and only when a Ray run starts.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import math
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from itertools import islice
from pathlib import Path

from engine import __version__
from engine.content.packs import display
from engine.runtime import rules as pack_rules
from engine.runtime import sim
from engine.runtime.collector import bulk_play

from .bundle import Bundle

NEEDS_RAY = "the Ray backend needs ray: pip install 'knapper[ray]'"
MAX_BATCH = 250  # games per task, at most: a task's result is one message, its games a few seconds of work
TASKS_PER_CPU = 8  # at least, while the run has games enough: the last tasks finish close together
IN_FLIGHT_PER_CPU = 2  # tasks submitted and not yet collected, per CPU: the cluster never waits for the driver


class RayError(Exception):
    """Ray is missing, or the cluster cannot be joined, or a task failed: one line saying which."""


def available():
    """The ray module, or RayError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise RayError(NEEDS_RAY) from None
    return ray


def play(
    plan,
    bundle: Bundle,
    todo: Iterator[int],
    count: int,
    take: Callable[[list[dict]], None],
    jobs: int | None = None,
    address: str | None = None,
    keep_logs: bool = False,
    record: bool = False,
) -> None:
    """Play the `count` games `todo` names on Ray, handing each finished batch of outcomes to `take`. With
    `address`, joins that cluster (and leaves it running); otherwise starts a local Ray of `jobs` CPUs (default:
    all) for the run and shuts it down after. A Ray already started in this process is used as it is."""
    ray = available()
    started = False
    if not ray.is_initialized():
        quiet = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.ERROR}
        try:
            if address:
                ray.init(address=address, **quiet)
            else:
                ray.init(num_cpus=jobs or os.cpu_count() or 1, **quiet)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            where = f"join the Ray cluster at {address}" if address else "start a local Ray"
            raise RayError(f"cannot {where}: {_first_line(exc)}") from None
        started = True
    pending: list = []
    try:
        cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
        size = max(1, min(MAX_BATCH, math.ceil(count / (cpus * TASKS_PER_CPU))))
        remote = ray.remote(num_cpus=1, max_retries=1)(_play_batch)
        pack = ray.put(bundle)
        # the files, and where the caller has them (error texts and game logs name them): what a worker keeps
        key = json.dumps([bundle.digest, bundle.root, sorted(bundle.shown.items())])
        shared = (key, __version__, plan.seed, plan.work(keep_logs, record))
        batches = iter(lambda: list(islice(todo, size)), [])
        for batch in batches:
            pending.append(remote.remote([pack], shared, batch))  # in a list: fetched by a worker only when not kept
            if len(pending) < cpus * IN_FLIGHT_PER_CPU:
                continue
            pending = _collect(ray, pending, take)
        while pending:
            pending = _collect(ray, pending, take)
    finally:
        for ref in pending:  # interrupted, or a task failed: what is still running is of no use
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        if started:
            ray.shutdown()


def _collect(ray, pending: list, take) -> list:
    """Wait for one task at least, hand over what every finished one played; the tasks still running."""
    ready, pending = ray.wait(pending, num_returns=1)
    for ref in ready:
        try:
            outcomes = ray.get(ref)
        except ray.exceptions.RayError as exc:  # a worker lost, or a pack that would not load there
            raise RayError(f"a Ray task failed: {_first_line(exc)}") from None
        take(outcomes)
    return pending


def _first_line(exc) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[-1] if lines else type(exc).__name__


# ------------------------------------------------------------------------------------------- in the workers
_PACKS: dict[str, tuple[object, dict[str, str], str]] = {}  # bundle's key -> the pack here, path fixes, its folder


def _play_batch(pack_ref: list, shared: tuple, indices: list[int]) -> list[dict]:
    """A Ray task: play the games `indices` names, as sim._one plays them, with the pack loaded from the bundle."""
    key, version, seed, work = shared
    if version != __version__:  # another knapper may play the same seeds otherwise
        raise RuntimeError(f"the Ray workers run knapper {__version__} and the driver {version}: install the same")
    rules, fixes, _ = _loaded(key, pack_ref)
    sim._RULES = rules  # what sim._one plays
    outcomes = []
    with bulk_play():
        for index in indices:
            outcome = sim._one((index, seed + index, *work))
            for field in ("error", "stalled"):
                if isinstance(outcome.get(field), str):
                    outcome[field] = _fixed(outcome[field], fixes)
            outcomes.append(outcome)
    return outcomes


def _loaded(key: str, pack_ref: list):
    """The pack of the bundle `key` names, loaded once per worker process from a copy of its files."""
    if key not in _PACKS:
        import ray

        bundle: Bundle = ray.get(pack_ref[0])
        for _, _, old in _PACKS.values():  # one run's pack at a time
            shutil.rmtree(old, ignore_errors=True)
        _PACKS.clear()
        _sweep()
        folder = tempfile.mkdtemp(prefix=f"knap-pack-{os.getpid()}-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)  # a worker Ray stops gently
        root = bundle.unpack(Path(folder))
        rules = pack_rules.load(root)  # the files stay: an error's position is read from them
        # a content error names the caller's files, as a local run does; a game log, the caller's pack folder
        fixes = {display(root.parent / name) + os.sep: shown + os.sep for name, shown in bundle.shown.items()}
        rules.root = Path(bundle.root)
        _PACKS[key] = (rules, fixes, folder)
    return _PACKS[key]


def _sweep() -> None:
    """Remove the copies of packs left by workers that are gone: Ray kills its workers at the end of a run, before
    they can clean up (the copy's folder is named after the worker's process id)."""
    for folder in Path(tempfile.gettempdir()).glob("knap-pack-*-*"):
        pid = folder.name.split("-")[2]
        if not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except OSError:
            continue  # alive, another user's


def _fixed(text: str, fixes: dict[str, str]) -> str:
    for copy, original in fixes.items():
        text = text.replace(copy, original)
    return text
