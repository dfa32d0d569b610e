"""balance.stats and balance.run_folder: the statistics of a run's records, the same in any order, with the intervals
`knap sim` reports; and a run folder read one record at a time, a torn last line left out, anything else wrong one
line naming the file and the line."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest
from balance_runs import hand_made as _game
from balance_runs import make_run, write_run
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.balance.run_folder import RunError, read_run
from engine.balance.stats import Stats, aggregate
from engine.runtime.sim import newcombe, wilson


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    folder = make_run(tmp_path_factory.mktemp("run") / "run", games=24, players=3)
    return list(read_run(folder).records())


# ----------------------------------------------------------------------------------------------- the numbers
def test_any_order_of_the_records_gives_the_same_statistics(records):
    expected = json.dumps(aggregate(records), sort_keys=True)
    for seed in range(3):
        shuffled = records[:]
        random.Random(seed).shuffle(shuffled)
        assert json.dumps(aggregate(shuffled), sort_keys=True) == expected


def test_win_rates_have_the_wilson_interval_of_knap_sim(records):
    result = aggregate(records)
    played = [r for r in records if "winners" in r]
    for row in result["seats"]:
        wins = sum(Fraction(1, len(r["winners"])) for r in played if row["seat"] in r["winners"])
        low, high = wilson(float(wins), len(played))
        assert row["games"] == len(played)
        assert row["win_rate"] == round(float(wins) / len(played), 4)
        assert row["ci95"] == [round(low, 4), round(high, 4)]
    assert wilson(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)  # the textbook's value


def test_a_shared_win_counts_a_share_to_each_winner():
    result = aggregate([_game(["P1", "P2"]), _game(["P1"]), _game(["P2"])])
    rates = {row["seat"]: row for row in result["seats"]}
    assert rates["P1"]["wins"] == rates["P2"]["wins"] == 1.5
    assert result["agents"][0]["wins"] == 3.0 and result["agents"][0]["games"] == 6


def test_first_player_advantage_is_against_an_even_share():
    games = [_game(["P1"], first="P1")] * 6 + [_game(["P2"], first="P1")] * 2 + [_game(["P1"], first="P2")] * 2
    first = aggregate(games)["first_player"]
    assert first["games"] == 10 and first["wins"] == 6  # P1 first and won 6, P2 first and won none
    assert first["expected"] == 0.5 and first["advantage"] == pytest.approx(0.1)
    low, high = wilson(6, 10)
    assert first["advantage_ci95"] == [round(low - 0.5, 4), round(high - 0.5, 4)]
    assert first["first_seats"] == {"P1": 8, "P2": 2}


def test_lengths_margins_and_the_score_by_round():
    games = [
        _game(["P1"], turns=10, margin=3, track=[[1, 0], [4, 2]]),
        _game(["P2"], turns=20, margin=1, track=[[3, 2], [5, 6], [7, 8]]),
        _game(["P1"], turns=20, margin=None),
    ]
    result = aggregate(games)
    assert result["length"]["counts"] == {"10": 1, "20": 2} and result["length"]["median"] == 20
    assert result["margin"]["counts"] == {"1": 1, "3": 1} and result["margin"]["median"] == 2
    by_round = result["score_by_round"]
    assert by_round["rounds"] == [1, 2, 3] and by_round["games"] == [2, 2, 1]
    assert by_round["seats"] == {"P1": [2.0, 4.5, 7.0], "P2": [1.0, 4.0, 8.0]}


def test_card_impact_compares_the_seats_that_took_it_with_the_others():
    games = [_game(["P1"], cards={"P1": {"axe": 1}})] * 40 + [_game(["P2"], cards={"P1": {"axe": 2}})] * 10
    games += [_game(["P1"], cards={"P2": {"<b>rope</b>": 1}})]
    result = aggregate(games, min_games=20)
    cards = {row["card"]: row for row in result["cards"]["table"]}
    axe = cards["axe"]
    assert axe["with"]["games"] == 50 and axe["with"]["wins"] == 40
    assert axe["without"]["games"] == 52 and axe["without"]["wins"] == 11
    d, low, high = newcombe(11, 52, 40, 50)
    assert axe["impact"] == round(d, 4) and axe["impact_ci95"] == [round(low, 4), round(high, 4)]
    assert axe["significant"] and not axe["few"]
    assert axe["taken_per_game"] == round(60 / 51, 4)
    assert cards["<b>rope</b>"]["few"]  # in one seat-game: too few to rank
    assert result["cards"]["ranking"] == ["axe"] and result["cards"]["basis"] == "taken"


def test_action_impact_splits_at_the_median_seat():
    games = [_game(["P1"], actions={"P1": {"hunt": 3}, "P2": {"hunt": 1}})] * 30
    games += [_game(["P2"], actions={"P1": {"hunt": 1}})] * 30
    (hunt,) = aggregate(games)["actions"]
    assert hunt["times"] == 150 and hunt["seat_games"] == 90 and hunt["median"] == 1
    assert hunt["with"] == {**hunt["with"], "games": 30, "wins": 30}  # above the median: P1's three hunts, all won
    assert hunt["without"]["games"] == 90 and hunt["without"]["wins"] == 30


def test_stalled_and_broken_games_are_counted_apart():
    games = [_game(["P1"]), {"index": 1, "seed": 1, "stalled": "turn 3 ...", "code": "X301", "turns": 3}]
    games += [{"index": 2, "seed": 2, "error": "boom", "code": "X200"}]
    result = aggregate(games)
    assert (result["games"], result["played"], result["stalled"], result["errors"]) == (3, 1, 1, 1)
    assert result["error_codes"] == {"X200": 1} and result["seats"][0]["games"] == 1


_seat = st.sampled_from(["P1", "P2", "P3"])
_record = st.builds(
    lambda winners, cards, actions, turns, first: _game(
        sorted(set(winners)), seats=3, first=first, turns=turns, cards=cards, actions=actions
    ),
    st.lists(_seat, max_size=3),
    st.dictionaries(_seat, st.dictionaries(st.sampled_from(["a", "b", "<c>"]), st.integers(1, 3))),
    st.dictionaries(_seat, st.dictionaries(st.sampled_from(["x", "y"]), st.integers(0, 4))),
    st.integers(1, 40),
    _seat,
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_record, max_size=25), st.randoms(use_true_random=False))
def test_the_statistics_do_not_depend_on_the_order_and_add_up(games, rnd):
    result = aggregate(games)
    shuffled = games[:]
    rnd.shuffle(shuffled)
    assert aggregate(shuffled) == result
    won = sum(1 for g in games if g["winners"])
    assert sum(row["wins"] for row in result["seats"]) == pytest.approx(won, abs=0.02)  # (each rounded to 0.01)
    assert sum(result["length"].get("counts", {}).values()) == len(games)
    for row in result["cards"]["table"]:
        assert row["with"]["games"] + row["without"]["games"] == 3 * len(games)
        low, high = row["with"]["ci95"]
        assert 0 <= low <= high <= 1


def test_memory_grows_with_distinct_values_not_games():
    stats = Stats()
    for number in range(2000):
        stats.add(_game(["P1" if number % 3 else "P2"], turns=10 + number % 5, cards={"P1": {"axe": 1}}))
    sizes = [len(stats.length), len(stats.seat_wins), len(stats.had_games["taken"]), len(stats.had_wins["taken"])]
    assert sizes == [5, 2, 1, 1]


# ----------------------------------------------------------------------------------------------- the folder
def test_a_torn_last_line_is_left_out(tmp_path):
    folder = write_run(tmp_path / "run", {"pack": {"id": "x"}}, [_game(["P1"]), _game(["P2"])])
    with open(folder / "games.jsonl", "a", encoding="utf-8") as handle:
        handle.write('{"index": 2, "winners": ["P')  # the run stopped as it wrote this line
    assert len(list(read_run(folder).records())) == 2


def test_a_bad_line_in_the_middle_names_the_file_and_the_line(tmp_path):
    folder = write_run(tmp_path / "run", {"pack": {"id": "x"}}, [_game(["P1"])])
    with open(folder / "games.jsonl", "a", encoding="utf-8") as handle:
        handle.write("{not json\n" + json.dumps(_game(["P2"])) + "\n")
    with pytest.raises(RunError, match=r"games\.jsonl:2: not a game's record") as caught:
        list(read_run(folder).records())
    assert "\n" not in str(caught.value)
    (folder / "games.jsonl").write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(RunError, match=r"games\.jsonl:1: .*JSON object"):
        list(read_run(folder).records())


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("no folder", "does not exist"),
        ("a file", "is not a folder"),
        ("no run.json", r"run\.json is missing"),
        ("bad run.json", r"run\.json:1: not valid JSON"),
        ("other format", "not a run's description"),
        ("no games", r"games\.jsonl is missing"),
    ],
)
def test_a_folder_that_is_no_run_is_one_line(tmp_path, damage, message):
    folder = write_run(tmp_path / "run", {"pack": {"id": "x"}}, [_game(["P1"])])
    target = folder
    if damage == "no folder":
        target = tmp_path / "elsewhere"
    elif damage == "a file":
        target = folder / "games.jsonl"
    elif damage == "no run.json":
        (folder / "run.json").unlink()
    elif damage == "bad run.json":
        (folder / "run.json").write_text("{oops", encoding="utf-8")
    elif damage == "other format":
        (folder / "run.json").write_text('{"format": "knap-log/1"}', encoding="utf-8")
    else:
        (folder / "games.jsonl").unlink()
    with pytest.raises(RunError, match=message) as caught:
        read_run(target)
    assert "\n" not in str(caught.value)


def test_a_run_keeps_its_description_and_summary(tmp_path):
    folder = make_run(tmp_path / "run", games=2, players=2)
    run = read_run(folder)
    assert run.meta["format"] == "knap-run/1" and run.meta["pack"]["id"] == "cro_magnon"
    assert run.summary is not None and run.summary["games"] == 2
    assert run.name == "run"
