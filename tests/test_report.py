"""`knap report`: one HTML page that needs nothing else, every plot in it, every text of a pack or a run escaped, the
same bytes for the same runs; and a folder that is no run, or no matplotlib, is one line and exit 2."""

from __future__ import annotations

import json
import re
import sys

import pytest
from balance_runs import hand_made, make_run, write_run

PLOTS = ["win-rate-seat", "win-rate-agent", "score-by-round", "length", "margin", "card-impact", "action-impact"]
EVIL = "<script>alert(1)</script>"
MATH = "$\\frac{x$ & co"  # a `$` would start mathtext in matplotlib, and this is no valid formula


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A run of random Cro-Magnon games, as `knap sim --out` writes one."""
    return make_run(tmp_path_factory.mktemp("runs") / "cro", games=16, players=3)


@pytest.fixture(scope="module")
def strange(tmp_path_factory):
    """A run whose cards, actions, agents and end reasons are named as a stranger's pack may name them."""
    games = []
    for number in range(80):
        won = "P1" if number % 3 else "P2"
        cards = {"P1": {EVIL: 1, MATH: 1}} if number % 2 else {"P2": {EVIL: 2}}
        record = hand_made([won], turns=10 + number % 7, cards=cards, actions={won: {f"<b>{EVIL}</b>": 2}})
        record.update(margin=number % 5, track=[[1, 0], [2, number % 3]], reason=f"{EVIL} & more")
        record["agents"] = ["<i>bot</i>", "random"]
        games.append(record)
    meta = {"pack": {"id": EVIL}, "players": 2, "agents": ["<i>bot</i>", "random"], "seed": 0, "score_counter": "v<p>"}
    return write_run(tmp_path_factory.mktemp("runs") / "<b>odd", meta, games)  # (a folder's name: no `/`)


def _figures(page: str) -> dict[str, str]:
    return dict(
        re.findall(r"<figure id='plot-[^']+' class='[^']+' data-plot='([^']+)'>(.*?)</figure>", page, re.DOTALL)
    )


def test_the_page_has_every_plot_and_needs_nothing_else(knap, played, tmp_path):
    target = tmp_path / "report.html"
    code, out, err = knap("report", played, "-o", target)
    assert code == 0 and out == "" and str(target) in err
    page = target.read_text(encoding="utf-8")
    figures = _figures(page)
    assert list(figures) == PLOTS
    for name, inside in figures.items():
        assert "<img src='data:image/png;base64," in inside and "<figcaption>" in inside, name
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert "<link" not in page and "<script" not in page and "@import" not in page and "url(" not in page
    assert "<table class='headline'>" in page and "First-player advantage" in page
    # the pack by its id, as `knap sim --out` describes it in run.json (id, folder and hash)
    assert "<h1>Balance report: cro_magnon</h1>" in page and "sha256" not in page


def test_the_same_runs_make_the_same_page(knap, played, tmp_path):
    first, second = tmp_path / "a.html", tmp_path / "b.html"
    assert knap("report", played, "-o", first)[0] == 0
    assert knap("report", played, "-o", second)[0] == 0
    assert first.read_bytes() == second.read_bytes()


def test_every_text_of_a_pack_or_a_run_is_escaped(knap, strange, tmp_path):
    target = tmp_path / "report.html"
    code, _, _ = knap("report", strange, "-o", target, "--min-games", "5")
    assert code == 0
    page = target.read_text(encoding="utf-8")
    assert "<script" not in page and "<i>bot" not in page and "<b>odd" not in page and "v<p>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;i&gt;bot&lt;/i&gt;" in page and "&lt;b&gt;odd" in page
    assert "$\\frac{x$ &amp; co" in page  # drawn as text in the plots, not as a formula (which would fail)
    assert list(_figures(page)) == PLOTS


def test_several_runs_side_by_side_and_compared(knap, played, strange, tmp_path):
    target = tmp_path / "both.html"
    code, _, _ = knap("report", played, played, "--compare", "-o", target)
    assert code == 0
    page = target.read_text(encoding="utf-8")
    assert "1. cro" in page and "2. cro" in page  # two folders of one name told apart
    assert "P1 vs 1. cro" in page and list(_figures(page)) == PLOTS
    code, _, err = knap("report", played, "--compare", "-o", target)
    assert code == 2 and "two run folders" in err


def test_json_statistics_go_to_standard_output(knap, played):
    code, out, _ = knap("report", played, "--format", "json")
    assert code == 0
    (run,) = json.loads(out)
    assert run["run"] == "cro" and run["games"] == 16 and len(run["seats"]) == 3


@pytest.mark.parametrize("damage", ["no folder", "bad line", "empty"])
def test_a_bad_folder_is_one_line_and_exit_2(knap, played, tmp_path, damage):
    folder = tmp_path / "run"
    if damage == "no folder":
        folder = tmp_path / "missing"
    else:
        write_run(folder, {"pack": {"id": "x"}}, [hand_made(["P1"])] * 3)
        if damage == "bad line":
            lines = (folder / "games.jsonl").read_text().splitlines()
            lines[1] = "{oops"
            (folder / "games.jsonl").write_text("\n".join(lines) + "\n")
        else:
            (folder / "games.jsonl").write_text("")
    code, out, err = knap("report", folder, "-o", tmp_path / "r.html")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("knap: ")
    assert {"no folder": "does not exist", "bad line": "games.jsonl:2: ", "empty": "holds no game"}[damage] in err
    assert not (tmp_path / "r.html").exists()


def test_without_matplotlib_the_command_names_the_extra(knap, played, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` now fails as if it were not installed
    code, out, err = knap("report", played, "-o", tmp_path / "r.html")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "pip install 'knapper[report]'" in err
    assert knap("report", played, "--format", "json")[0] == 0  # the statistics need no plots


def test_a_file_that_cannot_be_written_is_one_line(knap, played, tmp_path):
    code, _, err = knap("report", played, "-o", tmp_path / "no" / "such" / "folder" / "r.html")
    assert code == 1 and err.count("\n") == 1 and "cannot write" in err
