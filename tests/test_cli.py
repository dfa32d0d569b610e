"""The `knap` command: exit codes, output formats, rule selection, suppressions, the cache, graphs."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from conftest import CARD

from engine.diagnostics import RULES

REPO = Path(__file__).resolve().parent.parent


def test_clean_pack_exits_0(make_pack, knap):
    pack = make_pack({"cards.yaml": CARD})
    code, out, err = knap("lint", pack, "--no-cache")
    assert code == 0 and out == "" and "All checks passed" in err


def test_findings_exit_1_with_file_line_col_quote_caret_and_hint(make_pack, knap):
    pack = make_pack({"cards.yaml": CARD.replace("gain card.vp vp", "gain card.vp vpp")})
    code, out, _ = knap("lint", pack, "--no-cache")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].endswith("cards.yaml:8:16: D002 unknown name `vpp`")
    assert lines[1] == "    8 |   gain card.vp vpp"
    assert lines[2] == "        " + " " * 15 + "^"
    assert lines[3] == "      = hint: did you mean `vp`?"
    assert lines[-1] == "Found 1 problem (1 error, 0 warnings)."


def test_usage_errors_exit_2(knap, tmp_path):
    assert knap("lint", tmp_path / "nowhere")[0] == 2
    assert knap("lint", "--select", "Q999", tmp_path)[0] == 2
    assert knap("lint", "--format", "xml", tmp_path)[0] == 2
    assert knap("lint", "--explain", "Z123")[0] == 2
    assert knap()[0] == 2


def test_explain_every_code(knap):
    for code in RULES:
        status, out, _ = knap("lint", "--explain", code)
        assert status == 0 and out.startswith(code) and RULES[code].summary in out
    status, out, _ = knap("lint", "--explain", "all")
    assert status == 0 and all(code in out for code in RULES)


def test_select_and_ignore_by_code_or_prefix(make_pack, lint_json):
    pack = make_pack({"cards.yaml": CARD.replace("gain card.vp vp", "gian 1 vp") + "colour: red\n"})
    assert {c for *_, c, _ in lint_json(pack)[1]} == {"D002", "S002"}
    assert {c for *_, c, _ in lint_json(pack, extra=("--select", "S"))[1]} == {"S002"}
    code, found = lint_json(pack, extra=("--ignore", "S002,D"))
    assert code == 0 and found == []


def test_inline_suppression_comments(make_pack, lint_json):
    card = CARD.replace("stats: {vp: 1}", "stats: {vp: 1}\ncolour: red  # knap: ignore[S002]")
    assert lint_json(make_pack({"cards.yaml": card}))[1] == []
    card = CARD.replace("stats: {vp: 1}", "stats: {vp: 1}\n# knap: ignore[S]\ncolour: red")
    assert lint_json(make_pack({"cards.yaml": card}))[1] == []
    card = "# knap: ignore-file[S002]\n" + CARD + "colour: red\n"
    assert lint_json(make_pack({"cards.yaml": card}))[1] == []
    card = CARD + "colour: red  # knap: ignore[D001]\n"
    assert [c for *_, c, _ in lint_json(make_pack({"cards.yaml": card}))[1]] == ["S002"]
    card = CARD + "# knap: ignore[Q12]\n"
    assert [c for *_, c, _ in lint_json(make_pack({"cards.yaml": card}))[1]] == ["L001"]


def test_config_in_pyproject(make_pack, knap, tmp_path, monkeypatch):
    pack = make_pack({"cards.yaml": CARD + "colour: red\n"})
    (tmp_path / "pyproject.toml").write_text('[tool.knap.lint]\nignore = ["S002"]\n')
    monkeypatch.chdir(tmp_path)
    assert knap("lint", pack)[0] == 0
    assert (tmp_path / ".knap_cache").is_dir()


def test_json_and_github_formats(make_pack, knap):
    pack = make_pack({"cards.yaml": CARD + "colour: red\n"})
    code, out, _ = knap("lint", pack, "--no-cache", "--format", "json")
    report = json.loads(out)
    assert code == 1 and report["summary"] == {"errors": 1, "warnings": 0, "total": 1}
    (diag,) = report["diagnostics"]
    assert {k: diag[k] for k in ("code", "name", "line", "col", "severity")} == {
        "code": "S002",
        "name": "unknown-property",
        "line": 9,
        "col": 1,
        "severity": "error",
    }
    code, out, _ = knap("lint", pack, "--no-cache", "--format", "github")
    assert code == 1 and out.startswith("::error file=") and ",line=9,col=1,title=S002::" in out


def test_sarif_is_valid_sarif_2_1_0(make_pack, knap):
    import jsonschema

    schema = json.loads((REPO / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())
    pack = make_pack({"cards.yaml": CARD.replace("gain card.vp vp", "gian 1 vp") + "colour: red\n"})
    code, out, _ = knap("lint", pack, "--no-cache", "--format", "sarif")
    log = json.loads(out)
    assert code == 1
    jsonschema.validators.validator_for(schema)(schema).validate(log)
    results = log["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"D002", "S002"}
    rule_ids = [r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]]
    for r in results:
        assert rule_ids[r["ruleIndex"]] == r["ruleId"]
        assert r["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1


def test_output_file(make_pack, knap, tmp_path):
    pack = make_pack({"cards.yaml": CARD + "colour: red\n"})
    target = tmp_path / "report.sarif"
    code, out, _ = knap("lint", pack, "--no-cache", "--format", "sarif", "--output", target)
    assert code == 1 and out == "" and json.loads(target.read_text())["version"] == "2.1.0"


def test_cache_reuses_results_and_notices_changes(make_pack, knap, tmp_path):
    pack = make_pack({"cards.yaml": CARD, "more.yaml": CARD.replace("axe", "adze")})
    cache = tmp_path / "cache"
    assert knap("lint", pack, "--cache-dir", cache)[0] == 0
    assert list(cache.glob("pack-*.json"))
    assert knap("lint", pack, "--cache-dir", cache)[0] == 0
    (pack / "more.yaml").write_text(CARD.replace("axe", "adze").replace("gain card.vp vp", "gian 1 vp"))
    code, out, _ = knap("lint", pack, "--cache-dir", cache)
    assert code == 1 and "more.yaml:8:3: D002" in out
    # a cross-file problem found from cached files still gets its exact position
    (pack / "more.yaml").write_text(CARD)
    code, out, _ = knap("lint", pack, "--cache-dir", cache)
    assert code == 1 and "more.yaml:2:5: R002" in out and "\n    2 | id: axe\n" in out
    code, again, _ = knap("lint", pack, "--cache-dir", cache)
    assert (code, again) == (1, out)


def test_a_named_file_is_checked_with_its_pack_and_all_its_findings_shown(make_pack, lint_json):
    pack = make_pack({"a.yaml": CARD + "colour: red\n", "b.yaml": CARD.replace("axe", "adze") + "hue: 1\n"})
    code, found = lint_json(pack / "b.yaml")
    assert code == 1 and [(f, c) for f, _, _, c, _ in found] == [("a.yaml", "S002"), ("b.yaml", "S002")]


def test_files_outside_packs(tmp_path, lint_json):
    (tmp_path / "lost.yaml").write_text(CARD)
    code, found = lint_json(tmp_path)
    assert code == 1 and [c for *_, c, _ in found] == ["P001"]


def test_graph_exports(knap, tmp_path):
    code, out, _ = knap("graph", "cro-magnon", "--format", "json")
    graph = json.loads(out)
    assert code == 0 and {"from": "axe", "to": "spear"} in graph["edges"]
    code, out, _ = knap("graph", "cro-magnon", "--format", "mermaid")
    assert code == 0 and out.startswith("flowchart LR") and "axe --> spear" in out
    code, out, _ = knap("graph", "cro-magnon")
    assert code == 0 and out.startswith('digraph "cro-magnon"') and '"axe" -> "spear";' in out
    assert knap("graph", tmp_path)[0] == 2


def test_graph_of_a_broken_pack_still_draws_and_exits_1(make_pack, knap):
    cycle = CARD + "requires: [adze]\n---\n" + CARD.replace("axe", "adze") + "requires: [axe]\n"
    code, out, err = knap("graph", make_pack({"cards.yaml": cycle}), "--format", "mermaid")
    assert code == 1 and "axe --> adze" in out and "G002" in err


def test_pre_commit_hook_definition():
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    (hook,) = hooks
    assert hook["id"] == "knap-lint" and hook["entry"] == "knap lint" and hook["language"] == "python"


def test_installed_command_finds_builtin_packs_from_anywhere(tmp_path):
    """`pip install .` (not only editable) must carry the packs, schemas and grammar."""
    knap = shutil.which("knap") or shutil.which("knap", path=str(Path(sys.executable).parent))
    command = [knap] if knap else [sys.executable, "-m", "engine.commands.cli"]
    done = subprocess.run(
        [*command, "lint", "--stats", "--no-cache", "cro-magnon"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "cro-magnon" in done.stdout and "placeholder" in done.stdout
    assert "Traceback" not in done.stderr


def test_a_pack_may_use_the_ids_of_the_pack_it_extends(make_pack, lint_json, tmp_path):
    make_pack({"cards.yaml": CARD})
    variant = tmp_path / "variant"
    variant.mkdir()
    (variant / "pack.yaml").write_text(
        "kind: pack\nid: variant\nname: Variant\nversion: 0.1.0\nextends: [demo]\nplayers: {min: 2, max: 2}\n"
    )
    (variant / "more.yaml").write_text(
        CARD.replace("id: axe", "id: adze").replace("gain card.vp vp", "gain hand_limit vp") + "requires: [axe]\n"
    )
    assert lint_json(variant) == (0, [])


def test_fifo_in_a_pack_is_reported_not_waited_for(make_pack, lint_json):
    import os

    pack = make_pack({"cards.yaml": CARD})
    os.mkfifo(pack / "pipe.yaml")
    code, found = lint_json(pack)
    assert code == 1 and [(f, c) for f, _, _, c, _ in found] == [("pipe.yaml", "P003")]


def test_a_bug_in_one_pack_is_reported_and_the_others_still_linted(make_pack, knap, tmp_path, monkeypatch):
    from engine.lint import checks

    good = make_pack({"cards.yaml": CARD + "colour: red\n"})
    other = tmp_path / "other"
    other.mkdir()
    (other / "pack.yaml").write_text("kind: pack\nid: other\nname: Other\nversion: 0.1.0\nplayers: {min: 1, max: 2}\n")
    original = checks.PackChecker.run

    def broken_for_other(self):
        if self.pack.root.name == "other":
            raise RuntimeError("boom")
        return original(self)

    monkeypatch.setattr(checks.PackChecker, "run", broken_for_other)
    code, out, _ = knap("lint", tmp_path, "--no-cache", "--format", "json")
    found = {(d["code"], d["file"].split("/")[-2]) for d in json.loads(out)["diagnostics"]}
    assert code == 2 and ("E000", "other") in found and ("S002", good.name) in found


def test_exclude_globs_skip_folders(make_pack, knap, tmp_path, monkeypatch):
    make_pack({"cards.yaml": CARD + "colour: red\n"})
    monkeypatch.chdir(tmp_path)
    assert knap("lint", ".", "--no-cache")[0] == 1
    assert knap("lint", ".", "--no-cache", "--exclude", "dem*")[0] == 0
    (tmp_path / "pyproject.toml").write_text('[tool.knap.lint]\nexclude = ["demo"]\n')
    assert knap("lint", ".", "--no-cache")[0] == 0


def test_a_folder_named_on_the_command_line_is_linted_even_if_excluded(make_pack, knap, tmp_path, monkeypatch):
    make_pack({"cards.yaml": CARD + "colour: red\n"})
    (tmp_path / "pyproject.toml").write_text('[tool.knap.lint]\nexclude = ["demo"]\n')
    monkeypatch.chdir(tmp_path)
    assert knap("lint", "demo", "--no-cache")[0] == 1
    assert knap("lint", ".", "--no-cache")[0] == 0


def test_the_repository_lints_clean_with_its_own_configuration(knap, monkeypatch):
    """`knap lint .` at the root of the repository (as a pre-commit hook runs it): every pack, the solo
    variant and the tutorial's variant are clean; the deliberately broken corpora are excluded by
    `[tool.knap.lint] exclude` in pyproject.toml."""
    monkeypatch.chdir(REPO)
    code, out, _ = knap("lint", ".", "--no-cache", "--format", "json")
    assert code == 0 and json.loads(out)["diagnostics"] == []


def test_building_the_parser_loads_no_heavy_part():
    """`knap --help`, shell completion and a usage error build the parser only: the runtime, the linter, YAML, lark,
    jsonschema, networkx and rich load when a command runs (commands/cli.py's docstring). Hoisting play.py's imports
    once made the parser load the whole runtime."""
    heavy = ["engine.runtime.game", "engine.lint.checks", "engine.content.packs", "yaml", "lark", "jsonschema"]
    heavy += ["networkx", "rich.table", "rich.console"]
    probe = (
        "import sys\nfrom engine.commands.cli import build_parser\nbuild_parser()\n"
        f"print([m for m in {heavy!r} if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", done.stdout
