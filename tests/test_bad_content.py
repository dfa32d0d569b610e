"""The bad-content corpus: every rule code has cases that trigger it, at the right spot.

Each folder of tests/bad_content/ is a small pack with one mistake in it. Its `expect.txt` lists
exactly the diagnostics `knap lint` reports, one per line:

    FILE:LINE:COL CODE                  FILE relative to the case folder; LINE and COL are 1-based
    FILE:3:* CODE                       `*` accepts any line or column
    FILE:LINE:COL CODE xfail: REASON    the right answer, which the linter does not give yet

Exactly: every line must match a finding and every finding a line, so one mistake that yields a
follow-on error fails its case (a line with `*` may match several findings). An `xfail:` line
records a known linter bug: while the linter misses that expectation the case is an expected
failure, whatever else it reports; once the linter gets it right the case fails, asking for the
mark to be removed. A reason that mentions `internal error` marks a case on which the whole run
stops (exit 2), so the all-at-once runs leave it out. Lines starting with `#` are comments.

Cases too big to commit (a 10 MiB file, 5000 levels of flow nesting, ...) are written into
tmp_path and linted by a separate process under a time and memory limit.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.commands.cli import main
from engine.diagnostics import RULES

try:
    import resource
except ImportError:  # pragma: no cover -- not on POSIX
    resource = None

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "bad_content"
TIMEOUT = 60  # seconds, for each separate process
MEMORY = 2 << 30  # bytes of address space, for each separate process

_LINE = re.compile(
    r"^(?P<file>[^\s:]+):(?P<line>\d+|\*):(?P<col>\d+|\*)\s+(?P<code>[A-Z]\d{3})"
    r"(?:\s+xfail:\s*(?P<reason>.+))?$"
)


@dataclass(frozen=True)
class Expect:
    file: str
    line: int | None  # None: any line
    col: int | None  # None: any column
    code: str
    xfail: str | None = None  # the known bug that keeps the linter from meeting this expectation

    def matches(self, found: tuple[str, int, int, str]) -> bool:
        file, line, col, code = found
        return file == self.file and code == self.code and self.line in (None, line) and self.col in (None, col)

    def __str__(self):
        return f"{self.file}:{self.line or '*'}:{self.col or '*'} {self.code}"


def read_expectations(case: Path) -> list[Expect]:
    expects = []
    for number, raw in enumerate((case / "expect.txt").read_text(encoding="utf-8").splitlines(), start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        match = _LINE.match(text)
        assert match, f"{case.name}/expect.txt:{number}: cannot read {raw!r}"
        line, col = match["line"], match["col"]
        expects.append(
            Expect(
                match["file"],
                None if line == "*" else int(line),
                None if col == "*" else int(col),
                match["code"],
                match["reason"],
            )
        )
    assert expects, f"{case.name}/expect.txt expects nothing"
    return expects


CASES = sorted(p for p in CORPUS.iterdir() if p.is_dir()) if CORPUS.is_dir() else []


def _crashes(case: Path) -> bool:
    return any(e.xfail and "internal error" in e.xfail for e in read_expectations(case))


# ------------------------------------------------------------------------------ running knap
def _relative(file: str, case: Path) -> str:
    """A diagnostic's file, relative to the case folder (symbolic links are not followed)."""
    path = Path(file)
    if not path.is_absolute():
        path = REPO / path  # knap prints paths relative to its working folder, REPO here
    return Path(os.path.relpath(os.path.abspath(path), os.path.abspath(case))).as_posix()


def found_in(report: dict, case: Path) -> set[tuple[str, int, int, str]]:
    return {(_relative(d["file"], case), d["line"], d["col"], d["code"]) for d in report["diagnostics"]}


@pytest.fixture
def run_knap(capsys, monkeypatch):
    """`knap ARGS` in this process, from the repository root: (exit code, stdout, stderr)."""
    monkeypatch.chdir(REPO)

    def run(*args):
        capsys.readouterr()
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        return code, out, err

    return run


def _limits():  # pragma: no cover -- runs in the child process
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def knap_process(*args, cwd: Path = REPO) -> subprocess.CompletedProcess:
    """`python -m engine.commands.cli ARGS` in a separate process, with a time and an address-space limit."""
    return subprocess.run(
        [sys.executable, "-m", "engine.commands.cli", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=_limits if resource else None,
        check=False,
    )


def check(case: Path, code: int, out: str, err: str, expects: list[Expect]):
    """Assert that the run found the expectations and nothing else; known bugs make it an expected failure."""
    assert "Traceback" not in err, err
    known = [e for e in expects if e.xfail]
    reasons = "; ".join(f"{e}: {e.xfail}" for e in known)
    if code != 1 or "internal error" in err:
        if known:
            pytest.xfail(f"known linter bug (exit {code}): {reasons}")
        pytest.fail(f"{case.name}: exit {code}, expected 1 (findings)\nstderr: {err}\nstdout: {out[:2000]}")
    report = json.loads(out)
    found = found_in(report, case)
    shown = "\n".join(f"  {f}:{line}:{col} {c}" for f, line, col, c in sorted(found))
    missing = [e for e in expects if not e.xfail and not any(e.matches(f) for f in found)]
    assert not missing, f"{case.name}: missing {', '.join(map(str, missing))}; the linter found:\n{shown}"
    still = [e for e in known if not any(e.matches(f) for f in found)]
    if still:
        pytest.xfail(f"known linter bug: {'; '.join(f'{e}: {e.xfail}' for e in still)}")
    extra = sorted(f for f in found if not any(e.matches(f) for e in expects))
    unexpected = "\n".join(f"  {f}:{line}:{col} {c}" for f, line, col, c in extra)
    assert not extra, f"{case.name}: the linter also found what expect.txt does not list:\n{unexpected}"
    if known:
        pytest.fail(
            f"{case.name}: the linter now meets {', '.join(map(str, known))}; remove `xfail:` from its expect.txt"
        )


# ------------------------------------------------------------------------------ the committed corpus
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case(case, run_knap):
    code, out, err = run_knap("lint", case.relative_to(REPO), "--no-cache", "--format", "json")
    check(case, code, out, err, read_expectations(case))


def test_an_unexpected_finding_fails_a_case(run_knap):
    """The check is exact, so it can fail: one finding more than expect.txt lists (a follow-on error of the
    mistake, or a second mistake) fails the case, and so does the expected code at another place."""
    case = CORPUS / "r003_wrong_copies"
    code, out, err = run_knap("lint", case.relative_to(REPO), "--no-cache", "--format", "json")
    expects = read_expectations(case)
    check(case, code, out, err, expects)  # as committed: exactly what it expects
    report = json.loads(out)
    (found,) = report["diagnostics"]
    for extra in ({**found, "code": "D002"}, {**found, "line": found["line"] + 1}):
        more = json.dumps({**report, "diagnostics": [found, extra]})
        with pytest.raises(AssertionError, match="also found what expect.txt does not list"):
            check(case, code, more, err, expects)


def test_case_folders_are_packs_of_yaml_with_expectations():
    assert len(CASES) >= 60
    for case in CASES:
        assert re.fullmatch(r"[a-z][a-z0-9_]*", case.name), case.name
        assert (case / "expect.txt").is_file(), f"{case.name} has no expect.txt"
        assert list(case.glob("*.yaml")), f"{case.name} has no YAML file"
        for expect in read_expectations(case):
            assert (case / expect.file).is_file(), f"{case.name}/expect.txt names a missing file {expect.file}"


# Cases whose report is known to change with Python's string hashing (a linter bug): none now.
KNOWN_UNSTABLE: dict[str, str] = {}


def test_output_does_not_depend_on_the_hash_seed():
    """The report is sorted and stable: the same input gives the same output in every process."""
    names = ["g002_prerequisite_cycle", "g003_unreachable", "r003_wrong_copies", "d002_unknown_name"]
    reports = []
    for seed in ("1", "2", "3", "4"):
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "engine.commands.cli",
                "lint",
                "--no-cache",
                "--format",
                "json",
                *(str(CORPUS.relative_to(REPO) / name) for name in names),
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            env={**os.environ, "PYTHONHASHSEED": seed},
            check=False,
        )
        assert result.returncode == 1, result.stderr
        reports.append(json.loads(result.stdout)["diagnostics"])
    unstable = {Path(d["file"]).parent.name for report in reports[1:] for d in report if d not in reports[0]}
    unstable |= {Path(d["file"]).parent.name for report in reports[1:] for d in reports[0] if d not in report}
    assert not unstable - set(KNOWN_UNSTABLE), f"reports change with PYTHONHASHSEED: {sorted(unstable)}"
    if unstable:
        pytest.xfail("known linter bug: " + "; ".join(KNOWN_UNSTABLE[name] for name in sorted(unstable)))
    assert all(report == reports[0] for report in reports)


# ------------------------------------------------------------------------------ generated cases
_MANIFEST = "kind: pack\nid: {name}\nname: Generated case\nversion: 1.0.0\nplayers: {{min: 2, max: 4}}\n"
_COUNTER = "kind: counter\nid: ap\nname: Action points\nowner: player\nlines:"


def _pack(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    root.mkdir()
    (root / "pack.yaml").write_text(_MANIFEST.format(name=name), encoding="utf-8")
    return root


def _file_too_large(root: Path):
    """10 MiB of valid YAML: a list of 1.7 million numbers."""
    body = "  - 1\n" * ((10 << 20) // 6 + 1)
    (root / "big.yaml").write_text(_COUNTER + "\n" + body, encoding="utf-8")


def _flow_5000(root: Path):
    (root / "deep.yaml").write_text(_COUNTER + " " + "[" * 5000 + "1" + "]" * 5000 + "\n", encoding="utf-8")


def _block_200(root: Path):
    """200 block sequences, each indented under the one before; depth k is on line 5 + k."""
    items = "".join("  " * depth + "-\n" for depth in range(1, 201)) + "  " * 201 + "1\n"
    (root / "deep.yaml").write_text(_COUNTER + "\n" + items, encoding="utf-8")


def _alias_bomb(root: Path):
    """Billion laughs, 9 levels of 10: 10^9 strings once expanded; the 8th `*a3` passes the limit."""
    lines = [_COUNTER.replace("\nlines:", ""), "a0: &a0 [" + ", ".join(['"lol"'] * 10) + "]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)]
    (root / "bomb.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _unreadable(root: Path):
    """A YAML file that cannot be opened: a symbolic link to nowhere."""
    try:
        os.symlink(root / "no-such-target.yaml", root / "missing.yaml")
    except (OSError, NotImplementedError):
        pytest.skip("cannot create a symbolic link here")


def _link_out_of_the_pack(root: Path):
    """A YAML file of the pack that is a symbolic link to a file outside the pack (never read: P009)."""
    outside = root.parent / "private.yaml"
    outside.write_text("token: [do-not-print\n", encoding="utf-8")
    try:
        os.symlink(outside, root / "env.yaml")
    except (OSError, NotImplementedError):
        pytest.skip("cannot create a symbolic link here")


def _integer_with_5000_digits(root: Path):
    """Python refuses to convert integers longer than 4300 digits (sys.get_int_max_str_digits)."""
    (root / "box.yaml").write_text("kind: component\nid: box\nname: Box\ncount: " + "9" * 5000 + "\n", encoding="utf-8")


def _extend(root: Path, base: str):
    """Make the case's manifest (line 6) extend the sibling pack `base`."""
    manifest = root / "pack.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8") + f"extends: [{base}]\n", encoding="utf-8")


def _broken_base(root: Path):
    """The case extends a sibling pack that has an error of its own (an unknown zone)."""
    base = _pack(root.parent, "broken_base")
    (base / "zones.yaml").write_text(
        "kind: zone\nid: deck\nname: Deck\ntype: deck\nrefill_from: nowhere\n", encoding="utf-8"
    )
    _extend(root, "broken_base")


def _two_pack_cycle(root: Path):
    """The case and a sibling extend each other."""
    partner = _pack(root.parent, "cycle_partner")
    _extend(partner, root.name)
    _extend(root, "cycle_partner")


def _deep_flow_bracket(found, root):
    """Y007 on line 5 at a `[` nested deeper than 64 (libyaml stops at 1000 levels, the loader at 64)."""
    text = (root / "deep.yaml").read_text(encoding="utf-8").splitlines()[4]
    prefix = len("lines: ")
    return any(
        f == "deep.yaml"
        and line == 5
        and code == "Y007"
        and 0 < col <= len(text)
        and text[col - 1] == "["
        and col - prefix > 64
        for f, line, col, code in found
    )


GENERATED = {
    # name: (writer, expectations, or a predicate over the found diagnostics)
    "y006_file_too_large": (_file_too_large, [Expect("big.yaml", 1, 1, "Y006")]),
    "y007_flow_5000_levels": (_flow_5000, _deep_flow_bracket),
    "y007_block_200_levels": (_block_200, [Expect("deep.yaml", 70, 131, "Y007")]),
    "y005_alias_bomb_generated": (_alias_bomb, [Expect("bomb.yaml", None, None, "Y005")]),
    "p003_unreadable_file": (_unreadable, [Expect("missing.yaml", 1, 1, "P003")]),
    "p009_link_out_of_the_pack": (_link_out_of_the_pack, [Expect("env.yaml", 1, 1, "P009")]),
    # packs that extend packs: the other pack is a sibling folder written next to the case
    "p008_broken_base": (_broken_base, [Expect("pack.yaml", 6, 11, "P008")]),
    "p005_two_pack_cycle": (_two_pack_cycle, [Expect("pack.yaml", 6, 11, "P005")]),
    # Generated rather than committed: other tests read every file of the corpus with the loader,
    # which a loader that raises on this file would break.
    "s006_integer_with_5000_digits": (_integer_with_5000_digits, [Expect("box.yaml", 4, 8, "S006")]),
}
GENERATED_CODES = {"Y007"} | {
    e.code for _, expected in GENERATED.values() if not callable(expected) for e in expected if not e.xfail
}


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_case(name, tmp_path):
    writer, expected = GENERATED[name]
    root = _pack(tmp_path, name)
    writer(root)
    result = knap_process("lint", root, "--no-cache", "--format", "json")
    if not callable(expected):
        check(root, result.returncode, result.stdout, result.stderr, expected)
        return
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    assert result.returncode == 1, f"exit {result.returncode}\n{result.stderr}\n{result.stdout[:2000]}"
    found = found_in(json.loads(result.stdout), root)
    assert expected(found, root), f"{expected.__doc__}; found {sorted(found)}"


def test_text_report_of_a_huge_file_stays_small(tmp_path):
    """The text report of a 10 MiB file quotes no source line and stays small."""
    root = _pack(tmp_path, "y006_text_report")
    _file_too_large(root)
    result = knap_process("lint", root, "--no-cache")
    assert result.returncode == 1 and "Y006" in result.stdout, result.stdout + result.stderr
    assert len(result.stdout) < 5000


# ------------------------------------------------------------------------------ coverage
def test_every_rule_code_has_a_case():
    covered = set(GENERATED_CODES)
    for case in CASES:
        covered |= {e.code for e in read_expectations(case) if not e.xfail}
    assert not set(RULES) - covered, f"no bad-content case for {sorted(set(RULES) - covered)}"
    assert not covered - set(RULES), f"expect.txt names unknown codes {sorted(covered - set(RULES))}"


def test_case_names_start_with_their_main_code():
    """`s003_...` expects an S003 somewhere: the folder name says what the case is about."""
    for case in CASES:
        prefix = case.name.split("_")[0].upper()
        codes = {e.code for e in read_expectations(case)}
        if re.fullmatch(r"[A-Z]\d{3}", prefix):
            assert prefix in codes, f"{case.name} expects {sorted(codes)}"


# ------------------------------------------------------------------------------ all at once
def _check_sarif(out: str):
    log = json.loads(out)
    assert log["version"] == "2.1.0"
    (run,) = log["runs"]
    results = run["results"]
    assert results
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    for result in results:
        assert result["ruleId"] in RULES
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
        region = result["locations"][0]["physicalLocation"]["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    return uris, {r["ruleId"] for r in results}


_GITHUB = re.compile(r"^::(error|warning|notice) file=[^,]+,line=[1-9]\d*,col=[1-9]\d*,title=(?P<code>[A-Z]\d{3})::.+$")


def _check_github(out: str):
    lines = out.splitlines()
    assert lines
    files, codes = set(), set()
    for line in lines:
        match = _GITHUB.match(line)
        assert match, line
        files.add(line.split("file=", 1)[1].split(",line=", 1)[0].replace("%3A", ":").replace("%2C", ","))
        codes.add(match["code"])
    return files, codes


def _check_all(fmt: str, code: int, out: str, err: str, cases: list[Path]):
    assert "Traceback" not in err and "internal error" not in err, err
    assert code == 1, f"exit {code}\n{err}"
    files, codes = (_check_sarif if fmt == "sarif" else _check_github)(out)
    for case in cases:
        if all(e.xfail for e in read_expectations(case)):
            continue  # the linter finds nothing there yet
        assert any(f"/{case.name}/" in "/" + f.replace(os.sep, "/") for f in files), f"nothing reported for {case.name}"
    expected = {e.code for case in cases for e in read_expectations(case) if not e.xfail}
    assert expected <= codes, sorted(expected - codes)


@pytest.mark.parametrize("fmt", ["sarif", "github"])
def test_all_cases_at_once(fmt, run_knap, tmp_path):
    code, out, err = run_knap("lint", CORPUS.relative_to(REPO), "--no-cache", "--format", fmt)
    crashing = [c for c in CASES if _crashes(c)]
    if code == 2 and "internal error" in err and crashing:
        # One crashing case stops the whole run; lint a copy of the corpus without those cases, then
        # report the whole run as the known bug it is.
        copy = tmp_path / "bad_content"
        rest = [c for c in CASES if c not in crashing]
        for case in rest:
            shutil.copytree(case, copy / case.name, symlinks=True)
        code2, out2, err2 = run_knap("lint", copy, "--no-cache", "--format", fmt)
        _check_all(fmt, code2, out2, err2, [copy / c.name for c in rest])
        pytest.xfail(f"the whole run stops with an internal error on {', '.join(c.name for c in crashing)}")
    _check_all(fmt, code, out, err, CASES)


def test_sarif_of_the_corpus_matches_the_sarif_schema(run_knap, tmp_path):
    schema_file = REPO / "tests" / "data" / "sarif-schema-2.1.0.json"
    if not schema_file.is_file():
        pytest.skip("no SARIF schema in tests/data")
    jsonschema = pytest.importorskip("jsonschema")
    copy = tmp_path / "bad_content"
    for case in CASES:
        if not _crashes(case):
            shutil.copytree(case, copy / case.name, symlinks=True)
    code, out, err = run_knap("lint", copy, "--no-cache", "--format", "sarif")
    assert code == 1, err
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    validator_class = jsonschema.validators.validator_for(schema)
    errors = sorted(validator_class(schema).iter_errors(json.loads(out)), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors[:10])
