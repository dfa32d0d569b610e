"""Benchmark `knap lint` on a large generated pack against a schema-only check.

Usage (from anywhere; the project is found relative to this file)::

    python tools/bench/lint.py [--cards 10000] [--repeat 3] [--json FILE] [--keep] [--installed]

With the defaults a run takes about two minutes on two cores.

What it does, in one run:

1. Generates, in a temporary folder, a pack `bench_pack/` that lints clean: a minimal `pack.yaml`
   (no `decks` section), `zones.yaml`, `counters.yaml`, `resources.yaml` (a few resource cards used
   in costs) and N technology cards, ONE CARD PER FILE (`cards/card_00001.yaml` ...). Every card has
   tags, `stats: {vp: ...}`, a `cost` of resource ids, `requires` pointing only at earlier cards (so
   the prerequisite graph is a sound DAG), a `text` and an `effect:` DSL text. Generation is seeded,
   so every run lints the same bytes. The pack is linted once first; the benchmark stops if it is
   not clean (exit 0), since timing a run full of findings would measure the reporter.
2. Times, wall clock, the best of `--repeat` runs, each in a fresh subprocess (so interpreter start
   and imports count the same way for every tool):

   - cold lint, no cache:           `knap lint PACK --no-cache`
   - cold lint, writing the cache:  `knap lint PACK --cache-dir EMPTY_DIR` (a new empty dir each time)
   - warm lint, cache hit:          `knap lint PACK --cache-dir THAT_DIR` again
   - schema only:                   `check-jsonschema --schemafile card.schema.json cards/*.yaml`,
                                    with the schema written by `knap schema export`
   - and, for reference, the bare start-up of each tool (`--version`).

3. Prints a table (seconds, files per second), the ratios cold / schema-only and warm / cold, and
   whether the targets are met: cold <= schema-only, warm <= 0.1 x cold ("cold" is the no-cache run).
   `--json FILE` also writes the numbers. The script measures and never asserts: it exits 0 unless
   it could not run at all (bad arguments, a pack that does not lint clean, a tool that crashed).

`knap` is run as `python -m engine.commands.cli` from a copy of the checkout's `engine/`, `schemas/` and
`grammar/` taken at the start, so edits made to the checkout while the benchmark runs neither mix
two versions of the code nor invalidate the cache between the cold and the warm run (the cache key
hashes the engine's sources); `--installed` runs the `knap` beside the running Python instead.
`check-jsonschema` is looked up beside the running Python, then on PATH; without it the schema-only
row is skipped. Both tools run in the same environment: bytecode is written under a
`PYTHONPYCACHEPREFIX` in the temporary folder (PYTHONDONTWRITEBYTECODE is dropped) and each tool runs
once untimed first, so neither pays for compiling its modules in a timed run, and the checkout gets
no `__pycache__`. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACK_ID = "bench_pack"
SEED = 20240601

RESOURCES = ["wood", "stone", "flint", "grass", "clay"]
TECH_DECKS = ["weapons_deck", "daily_life_deck", "dwelling_deck"]
TAGS = {"weapons_deck": "weapons", "daily_life_deck": "daily_life", "dwelling_deck": "dwelling"}
WORDS = [
    "Stone",
    "Bone",
    "Flint",
    "Fire",
    "Reed",
    "Antler",
    "Hide",
    "Clay",
    "River",
    "Ochre",
    "Ember",
    "Willow",
    "Mammoth",
    "Tusk",
    "Sinew",
    "Birch",
    "Pine",
    "Amber",
]
THINGS = [
    "Knife",
    "Spear",
    "Basket",
    "Hut",
    "Needle",
    "Drum",
    "Kiln",
    "Raft",
    "Trap",
    "Lamp",
    "Awl",
    "Sling",
    "Net",
    "Shelter",
    "Pot",
    "Harpoon",
    "Cloak",
    "Flute",
]

# Effect texts in the DSL of content/cro-magnon/rules/*.yaml; `{n}` and `{tag}` are filled per card.
EFFECTS = [
    "gain card.vp vp\ndraw 1 from forest to hand\n",
    "gain card.vp vp\nif count(hand(me)) > {n}:\n    discard last(hand(me))\n",
    "draw {n} from forest to hand as found\nfor each c in found:\n    if c.type = resource:\n        gain 1 vp\n",
    "gain card.vp + count(tableau(me) where tag = {tag}) vp\n",
    (
        "require count(tableau(me) where tag = {tag}) >= 1\nchoose 1 from hand(me) as given\n"
        "discard given\ngain card.vp vp\n"
    ),
    (
        "repeat {n} times:\n    draw 1 from forest to hand\nlet extra = max(0, count(hand(me)) - 5)\n"
        "gain card.vp - min(extra, card.vp) vp\n"
    ),
]


# ------------------------------------------------------------------------------------ the pack
def _flow(items) -> str:
    return "[" + ", ".join(items) + "]"


def _block(text: str, indent: str = "  ") -> str:
    return "|\n" + "".join(indent + line + "\n" for line in text.splitlines())


def write_pack(root: Path, cards: int, seed: int = SEED) -> list[Path]:
    """Write the pack into `root` (created); return the card files, in order."""
    rng = random.Random(seed)
    (root / "cards").mkdir(parents=True)
    (root / "pack.yaml").write_text(
        f"kind: pack\nid: {PACK_ID}\nname: Generated benchmark pack\nversion: 1.0.0\n"
        'engine: ">=0.1"\nplayers: {min: 2, max: 4}\n',
        encoding="utf-8",
    )

    zones = [
        (
            "kind: zone\nid: forest\nname: Forest deck\ntype: deck\nvisibility: hidden\nshuffled: true\n"
            "discard: forest_discard\nrefill_from: forest_discard\n"
        ),
        "kind: zone\nid: forest_discard\nname: Forest discard pile\ntype: pile\nvisibility: public\n",
        "kind: zone\nid: hand\nname: Hand\ntype: hand\nowner: player\nvisibility: owner\n",
        (
            "kind: zone\nid: tableau\nname: Mastered technologies\ntype: tableau\nowner: player\n"
            "visibility: public\norientation: true\n"
        ),
        "kind: zone\nid: technology_discard\nname: Technology discard pile\ntype: pile\nvisibility: public\n",
    ] + [
        f"kind: zone\nid: {deck}\nname: {deck.replace('_', ' ').capitalize()}\ntype: deck\nvisibility: top\n"
        f"shuffled: true\ndiscard: technology_discard\n"
        for deck in TECH_DECKS
    ]
    (root / "zones.yaml").write_text("---\n".join(zones), encoding="utf-8")
    (root / "actions.yaml").write_text(  # a rule that resolves technology cards, so their effects run (D008)
        "kind: action\nid: use_technology\nname: Use a technology\n"
        "available: count(tableau(me) where type = technology) > 0\n"
        "effect: |\n  choose 1 from tableau(me) where type = technology as card\n  resolve card\n",
        encoding="utf-8",
    )
    (root / "counters.yaml").write_text(
        "kind: counter\nid: vp\nname: Victory points\nowner: player\nstart: 0\nmin: 0\n", encoding="utf-8"
    )
    (root / "resources.yaml").write_text(
        "---\n".join(
            f"kind: card\nid: {res}\nname: {res.capitalize()}\ntype: resource\ndeck: forest\ncopies: 12\n"
            f'tags: [terrain]\nstats: {{exchange_rate: 3}}\ntext: "Resource."\n'
            for res in RESOURCES
        ),
        encoding="utf-8",
    )

    files = []
    width = max(5, len(str(cards)))
    for number in range(1, cards + 1):
        card_id = f"tech_{number:0{width}d}"
        deck = rng.choice(TECH_DECKS)
        tag = TAGS[deck]
        tags = [tag] + (["starter"] if number <= 20 else [])
        cost = rng.choices(RESOURCES, k=rng.randint(1, 3))
        # prerequisites: up to 3 distinct earlier cards, mostly recent ones, so the DAG is deep
        earlier = number - 1
        wanted = 0 if number <= 20 else rng.choice([0, 1, 1, 2, 2, 3])
        pool = range(max(1, earlier - 200), earlier + 1)
        requires = sorted({f"tech_{n:0{width}d}" for n in rng.sample(pool, min(wanted, len(pool)))})
        vp = len(cost) - 1 + len(requires)
        # a first line unique to the card, so that no text is served from the parser's cache
        effect = f'log "card {number}"\n' + rng.choice(EFFECTS).format(n=rng.randint(1, 4), tag=tag)
        name = f"{rng.choice(WORDS)} {rng.choice(THINGS)} {number}"
        lines = [
            "kind: card",
            f"id: {card_id}",
            f"name: {name}",
            "type: technology",
            f"deck: {deck}",
            f"tags: {_flow(tags)}",
            f"cost: {_flow(cost)}",
        ]
        if requires:
            lines.append(f"requires: {_flow(requires)}")
        lines += [
            f"stats: {{vp: {vp}}}",
            f'text: "{tag.replace("_", " ").capitalize()}: mastered with {", ".join(cost)}; worth {vp} VP."',
            "effect: " + _block(effect).rstrip("\n"),
            "provenance: placeholder",
            "reason: generated for the lint benchmark",
        ]
        path = root / "cards" / f"card_{number:0{width}d}.yaml"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        files.append(path)
    return files


# ------------------------------------------------------------------------------------ tools
def tool_env(work: Path) -> dict:
    """The environment of every timed run: bytecode cached under `work`, for both tools alike."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    return env


def knap_command(env: dict, work: Path, installed: bool) -> list[str]:
    """The `knap` command line: a snapshot of the checkout (PYTHONPATH set in `env`), or the
    installed console script."""
    if installed:
        script = Path(sys.executable).with_name("knap")
        if not (script.is_file() and os.access(script, os.X_OK)):
            raise SystemExit(f"--installed: no `knap` script beside {sys.executable}")
        return [str(script)]
    snapshot = work / "src"
    for folder in ("engine", "schemas", "grammar"):
        shutil.copytree(REPO / folder, snapshot / folder, ignore=shutil.ignore_patterns("__pycache__", "_bundled"))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(snapshot), env.get("PYTHONPATH", "")]))
    return [sys.executable, "-m", "engine.commands.cli"]


def check_jsonschema_command() -> list[str] | None:
    beside = Path(sys.executable).with_name("check-jsonschema")
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which("check-jsonschema")
    return [found] if found else None


def run(argv: list[str], cwd: Path, env: dict | None = None) -> tuple[float, int, str]:
    """Run once; (wall seconds, exit code, the tail of stdout and stderr)."""
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    tail = (proc.stdout + proc.stderr).decode("utf-8", "replace")[-2000:]
    return elapsed, proc.returncode, tail


def chunks(paths: list[str], fixed: list[str]) -> list[list[str]]:
    """Split `paths` so each command line stays well under ARG_MAX (one chunk on Linux for 10k files)."""
    try:
        limit = os.sysconf("SC_ARG_MAX") // 4
    except (ValueError, OSError, AttributeError):
        limit = 32_000
    limit -= sum(len(a) + 1 for a in fixed) + 4096
    out, current, size = [], [], 0
    for path in paths:
        if current and size + len(path) + 1 > limit:
            out.append(current)
            current, size = [], 0
        current.append(path)
        size += len(path) + 1
    if current:
        out.append(current)
    return out


# ------------------------------------------------------------------------------------ main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=10_000, help="technology cards to generate (default 10000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the best counts (default 3)")
    parser.add_argument("--json", metavar="FILE", help="also write the numbers to FILE")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder and print where it is")
    parser.add_argument(
        "--installed",
        action="store_true",
        help="time the installed `knap` script instead of a snapshot of this checkout",
    )
    args = parser.parse_args(argv)
    if args.cards < 1 or args.repeat < 1:
        parser.error("--cards and --repeat must be at least 1")

    work = Path(tempfile.mkdtemp(prefix="knap-bench-"))
    try:
        env = tool_env(work)
        knap = knap_command(env, work, args.installed)
        cjs = check_jsonschema_command()
        return _bench(args, work, knap, env, cjs)
    finally:
        if args.keep:
            print(f"kept: {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


LABELS = {  # key -> what the table calls it
    "knap_startup": "knap start-up (--version)",
    "cold": "cold lint (--no-cache)",
    "cold_one_core": "cold lint (--no-cache -j 1)",
    "cold_writes_cache": "cold lint (writes cache)",
    "warm": "warm lint (cache hit)",
    "cjs_startup": "check-jsonschema start-up",
    "schema_only": "schema only (check-jsonschema)",
}


def _bench(args, work: Path, knap: list[str], env: dict, cjs: list[str] | None) -> int:
    pack = work / PACK_ID
    started = time.perf_counter()
    card_files = write_pack(pack, args.cards)
    all_files = sum(1 for _ in pack.rglob("*.yaml"))
    print(
        f"generated {args.cards} cards ({all_files} YAML files) in {time.perf_counter() - started:.1f} s: {pack}",
        file=sys.stderr,
    )

    # Untimed: export the schemas, check that both tools pass the pack (and compile their bytecode).
    schemas = work / "schemas"
    _, code, out = run(knap + ["schema", "export", str(schemas)], work, env)
    if code != 0:
        print(f"knap schema export failed (exit {code}):\n{out}", file=sys.stderr)
        return 2
    _, code, out = run(knap + ["lint", PACK_ID, "--no-cache"], work, env)
    if code != 0:
        print(f"the generated pack does not lint clean (exit {code}); fix the generator:\n{out}", file=sys.stderr)
        return 2
    # Paths relative to the working folder, as a user would type them (and shorter command lines).
    cjs_fixed = (cjs or []) + ["--schemafile", str(schemas / "card.schema.json")]
    batches = chunks([str(p.relative_to(work)) for p in card_files], cjs_fixed)
    if cjs:
        for batch in batches:
            _, code, out = run(cjs_fixed + batch, work, env)
            if code != 0:
                print(f"check-jsonschema rejects the generated cards (exit {code}):\n{out}", file=sys.stderr)
                return 2

    runs: dict[str, list[float]] = {}

    def timed(key: str, *commands: list[str]):
        total = 0.0
        for argv in commands:
            elapsed, code, out = run(argv, work, env)
            if code != 0:
                raise RuntimeError(f"{LABELS[key]}: exit {code}\n{out}")
            total += elapsed
        runs.setdefault(key, []).append(total)

    try:
        for round_ in range(args.repeat):
            print(f"round {round_ + 1}/{args.repeat} ...", file=sys.stderr)
            cache = work / f"cache-{round_}"  # a new, empty cache folder per round
            timed("knap_startup", knap + ["--version"])
            timed("cold", knap + ["lint", PACK_ID, "--no-cache"])
            timed("cold_one_core", knap + ["lint", PACK_ID, "--no-cache", "--jobs", "1"])
            timed("cold_writes_cache", knap + ["lint", PACK_ID, "--cache-dir", str(cache)])
            timed("warm", knap + ["lint", PACK_ID, "--cache-dir", str(cache)])
            if cjs:
                timed("cjs_startup", cjs + ["--version"])
                timed("schema_only", *[cjs_fixed + batch for batch in batches])
    except RuntimeError as exc:
        print(f"a timed run failed: {exc}", file=sys.stderr)
        return 2

    best = {key: min(times) for key, times in runs.items()}
    files = {
        "cold": all_files,
        "cold_one_core": all_files,
        "cold_writes_cache": all_files,
        "warm": all_files,
        "schema_only": len(card_files),
    }
    cold, warm, schema_only = best["cold"], best["warm"], best.get("schema_only")
    ratios = {"cold / schema-only": cold / schema_only} if schema_only else {}
    if schema_only:
        ratios["cold on one core / schema-only"] = best["cold_one_core"] / schema_only
    ratios["warm / cold"] = warm / cold
    targets = {"cold <= schema-only": cold <= schema_only} if schema_only else {}
    targets["warm <= 0.1 x cold"] = warm <= 0.1 * cold

    lines = [
        (
            f"{args.cards} cards, one per file ({all_files} YAML files in the pack); best of {args.repeat} runs; "
            f"Python {platform.python_version()}, {os.cpu_count()} CPUs"
        ),
        f"{'measurement':32} {'seconds':>8} {'files':>6} {'files/s':>8}   all runs",
    ]
    for key, seconds in best.items():
        count = files.get(key)
        rate = f"{count / seconds:8.0f}" if count else " " * 8
        lines.append(
            f"{LABELS[key]:32} {seconds:8.3f} {count or '':>6} {rate}   " + " ".join(f"{t:.3f}" for t in runs[key])
        )
    if len(batches) > 1:
        lines.append(f"(check-jsonschema ran in {len(batches)} batches; its time is their sum)")
    lines.append("")
    lines += [f"{name:32} {value:8.2f}" for name, value in ratios.items()]
    lines += [f"target {name:25} {'met' if met else 'NOT met'}" for name, met in targets.items()]
    if not cjs:
        lines.append("check-jsonschema not found: the schema-only comparison was skipped")
    print("\n".join(lines), flush=True)

    if args.json:
        data = {
            "cards": args.cards,
            "files": all_files,
            "repeat": args.repeat,
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "command": {"knap": knap, "check_jsonschema": cjs},
            "check_jsonschema_batches": len(batches),
            "seconds": best,
            "runs": runs,
            "files_per_second": {k: files[k] / best[k] for k in files if k in best},
            "ratios": ratios,
            "targets_met": targets,
        }
        Path(args.json).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
