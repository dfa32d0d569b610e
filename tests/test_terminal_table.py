"""The board and the questions of `knap play` as a person at an 80×24 terminal sees them (issue 11): the board
fits, a number question takes the number itself, like cards are grouped, discard piles say their top card,
the goal is on the board, cards and zones can be inspected, and `why` tells what is left off the menu."""

from __future__ import annotations

import io
import random
import re

import pytest
from conftest import REPO
from rich.console import Console

from engine.runtime import game as game_module
from engine.runtime import rules as rules_module
from engine.runtime import session
from engine.runtime.terminal import HumanAgent, Question, inspect, render, why

WIDTH, HEIGHT = 80, 24


def _console() -> Console:
    return Console(
        width=WIDTH, height=HEIGHT, record=True, emoji=False, highlight=False, file=io.StringIO(), color_system=None
    )


def _ask(view, answers: str):
    """What a HumanAgent prints for `view` and what it answers, given the typed `answers`."""
    console = _console()
    agent = HumanAgent(console, io.StringIO(answers))
    try:
        answer = agent.act(view, [o["key"] for o in view["decision"]["options"]])
    except KeyboardInterrupt:
        answer = "quit"
    return answer, console.export_text()


@pytest.fixture(scope="module")
def packs():
    return {
        name: rules_module.load(REPO / "content" / name)
        for name in ("cro-magnon", "neolithibum", "stone-age", "stone-age-mammoth-herd")
    }


def _mid_game_views(rules, players: int, seeds, from_turn: int):
    """Views of a person's decision in random games, once the game has gone on for `from_turn` turns
    (rounds): each a decision with at least two options."""
    for seed in seeds:
        game = game_module.Game.new(rules, players, seed)
        rnd = random.Random(seed)
        taken = 0
        while not game.over and taken < 6:
            decision = game.decision
            if decision.is_chance:
                game.apply_chance()
                continue
            player = decision.players[0]
            legal = game.legal(player)
            if game.state["turn"]["number"] >= from_turn and len(legal) > 1 and rnd.random() < 0.3:
                taken += 1
                yield game.view(player)
            game.apply(legal[rnd.randrange(len(legal))], player)


@pytest.mark.parametrize(
    "pack, players, from_turn",
    [
        ("cro-magnon", 4, 40),
        ("neolithibum", 5, 5),
        ("stone-age", 4, 3),
        ("stone-age-mammoth-herd", 3, 3),
        ("stone-age-mammoth-herd", 4, 6),
    ],
)
def test_the_board_and_its_question_fit_an_80x24_terminal(packs, pack, players, from_turn):
    """Mid-game at the pack's largest table: title, shared zones, the players, the log's tail, the question
    and the input line take at most 24 lines of 80 columns (the board scrolled off before). A board too
    tall for the terminal (Stone Age's places and piles) cuts its shared zones, saying so, and keeps the
    players whole: the person's own counters are all on screen, each label with its value."""
    shown = 0
    for view in _mid_game_views(packs[pack], players, (1, 2, 3), from_turn):
        _, screen = _ask(view, "q\n")
        lines = screen.rstrip("\n").split("\n")
        assert len(lines) <= HEIGHT, screen
        assert all(len(line.rstrip()) <= WIDTH for line in lines), screen
        assert " ".join(view["decision"]["prompt"].split()) in " ".join(screen.split())  # wrapped, whole
        assert "you are" in lines[0]
        me = view["you"]
        mine = next(i for i, line in enumerate(lines) if line.startswith(f"{me} (you)"))
        for counter, value in view["counters"][me].items():
            label = view.get("counter_labels", {}).get(counter) or view["counter_names"][counter]
            assert label in screen, (label, screen)
            assert re.search(
                rf"{re.escape(label)}\s+{re.escape(str(value))}\b", " ".join(lines[mine : mine + 4])
            ) or _in_table_column(lines, mine, label, str(value)), (label, value, screen)
        shown += 1
    assert shown >= 6


def _in_table_column(lines, row: int, label: str, value: str) -> bool:
    """Whether the players' table (header line above the first player's) has `label` as a column head and
    `value` in the person's row under it, right-aligned as numbers are."""
    header = next((line for line in reversed(lines[:row]) if line.startswith("player ")), None)
    if header is None or label not in header:
        return False
    end = header.index(label) + len(label)
    return lines[row][:end].rstrip().endswith(value)


def test_the_goal_is_on_the_board(packs):
    """The end rule in words, with this player count's parameter filled in (22 VP at four players)."""
    game = game_module.Game.new(packs["cro-magnon"], 4, 1)
    console = _console()
    render(game.view("P1"), console)
    assert "goal: Victory points ≥ 22" in console.export_text().splitlines()[0]
    game = game_module.Game.new(packs["neolithibum"], 3, 1)
    console = _console()
    render(game.view("P1"), console)
    assert f"goal: cards in your cave-bear skull ≥ {game.params['pieces_in_skull']}" in console.export_text()


def _view(options, zones=None, **decision):
    return {
        "you": "P1",
        "players": ["P1", "P2"],
        "turn": {"player": "P1", "number": 3, "rounds": False},
        "counters": {"P1": {"vp": 2}, "P2": {"vp": 5}},
        "counter_names": {"vp": "Victory points"},
        "zones": zones or {},
        "log": ["P2 draws a card"],
        "result": None,
        "decision": {"prompt": "How many?", "kind": "choose", "options": options, **decision},
        "about": {"cards": {}, "zones": {}, "goal": []},
    }


def test_a_number_question_takes_the_number_itself():
    """Options 0, 1, 2: typing 2 answers 2 (it answered 1 before, the second option), and nothing reads
    "1. 0"; a number that is no option is refused with the numbers that are."""
    view = _view([{"key": 0, "label": "0"}, {"key": 1, "label": "1"}, {"key": 2, "label": "2"}])
    answer, screen = _ask(view, "2\n")
    assert answer == 2
    assert "1. 0" not in screen and "0 to 2" in screen
    answer, screen = _ask(view, "7\n0\n")
    assert answer == 0 and "Type a number: 0 to 2" in screen


def test_a_number_question_with_done_and_gaps():
    view = _view([{"key": 0, "label": "0"}, {"key": 1, "label": "3"}, {"key": 2, "label": "done"}])
    assert _ask(view, "3\n")[0] == 1
    assert _ask(view, "done\n")[0] == 2
    assert "0 or 3 (or `done`)" in _ask(view, "q\n")[1]


def test_other_questions_stay_numbered():
    view = _view([{"key": 5, "label": "Wood (Forest discard pile)"}, {"key": 9, "label": "end turn"}])
    answer, screen = _ask(view, "2\n")
    assert answer == 9 and " 1. Wood (Forest discard pile)" in screen and " 2. end turn" in screen
    assert not Question(view["decision"]).by_number


def _card(card_id, name):
    return {"id": card_id, "name": name}


def _table_view():
    """Two players, a hand with three Wood and a Spring, a discard pile with Clay on top, a row."""
    wood, spring, clay = _card("wood", "Wood"), _card("spring", "Spring"), _card("clay", "Clay")
    zones = {
        "pile": {"name": "Plains discard pile", "count": 3, "cards": [wood, spring, clay]},
        "row": {"name": "Technology row", "count": 1, "cards": [None, _card("axe", "Axe")]},
        "deck": {"name": "Forest deck", "count": 12},
        "hand:P1": {"name": "P1's hand", "count": 4, "cards": [wood, spring, wood, wood]},
        "hand:P2": {"name": "P2's hand", "count": 2},
    }
    view = _view([{"key": 0, "label": "Explore"}, {"key": 1, "label": "end turn"}], zones, kind="action")
    view["about"] = {
        "cards": {
            "wood": {"name": "Wood", "type": "resource"},
            "spring": {"name": "Spring", "type": "resource"},
            "clay": {"name": "Clay", "type": "resource"},
            "axe": {
                "name": "Axe",
                "type": "technology",
                "tags": ["weapons"],
                "cost": ["Wood", "Flint"],
                "requires": ["Stone Knife"],
                "stats": {"vp": 2, "strength": 1},
                "text": "Counts for hunting.",
            },
        },
        "zones": {
            "pile": {"type": "pile", "discard": True, "text": "Face up next to the deck."},
            "row": {"type": "row"},
            "deck": {"type": "deck"},
            "hand:P1": {"type": "hand"},
            "hand:P2": {"type": "hand"},
        },
        "goal": ["Victory points ≥ 22"],
    }
    return view


def test_like_cards_are_grouped_and_a_discard_pile_says_its_top_card():
    console = _console()
    render(_table_view(), console)
    screen = console.export_text()
    assert "Wood × 3, Spring" in screen  # was "Wood, Spring, Wood × 2"
    assert "Plains discard pile: top Clay (3)" in screen
    assert "Technology row: · · Axe" in screen and "Forest deck: 12" in screen
    assert "P1 (you)" in screen and "2 face down" in screen


def test_a_bots_only_game_has_no_you():
    console = _console()
    render(_table_view(), console, spectator=True)
    screen = console.export_text()
    assert "(you)" not in screen and "watching P1" in screen


def _text(lines) -> str:
    console = _console()
    for line in lines:
        console.print(line)
    return console.export_text()


def test_inspect_shows_a_cards_details_and_where_it_lies():
    text = _text(inspect(_table_view(), "ax"))
    assert "Axe — technology · weapons" in text and "cost: Wood, Flint" in text
    assert "requires: Stone Knife" in text and "vp 2 · strength 1" in text and "Counts for hunting." in text
    assert "in sight: Technology row" in text


def test_inspect_shows_a_zone_in_full_and_your_own_zone_by_its_label():
    text = _text(inspect(_table_view(), "plains discard"))
    assert "from the top: Clay, Spring, Wood" in text and "Face up next to the deck." in text
    assert "Wood × 3, Spring" in _text(inspect(_table_view(), "hand"))
    assert "Victory points 5" in _text(inspect(_table_view(), "p2"))


def test_inspect_an_unknown_or_ambiguous_name_says_what_it_could_be():
    assert "No card, zone or player named `spirng` is in sight. Did you mean `Spring`?" in _text(
        inspect(_table_view(), "spirng")
    )
    assert "could be:" in _text(inspect(_table_view(), "p"))


def test_why_lists_the_actions_left_off_the_menu():
    view = _table_view()
    view["decision"]["unavailable"] = [
        {"key": "hunt", "label": "Hunt", "why": "you have no weapon"},
        {"key": "trade", "label": "Trade", "why": "your hand is empty"},
    ]
    text = _text(why(view))
    assert "Hunt: you have no weapon" in text and "Trade: your hand is empty" in text
    assert "Trade: your hand is empty" in _text(why(view, "tr")) and "Hunt" not in _text(why(view, "tr"))
    assert "`Explore` is on the menu: type 1" in _text(why(view, "expl"))
    answer, screen = _ask(view, "why hunt\n1\n")
    assert answer == 0 and "Hunt: you have no weapon" in screen


def test_why_without_reasons_in_the_view_says_so():
    view = _table_view()
    assert "no reasons" in _text(why(view))
    view["decision"]["unavailable"] = []
    assert "Every action of the game is on the menu" in _text(why(view))
    view = _view([{"key": 0, "label": "0"}, {"key": 1, "label": "1"}])
    assert "every answer the rules allow" in _text(why(view))


def test_help_and_log_commands():
    view = _table_view()
    view["log"] = [f"line {i} " + "x" * 90 for i in range(40)]
    answer, screen = _ask(view, "?\nlog 2\nnonsense\n2\n")
    assert answer == 1
    for command in ("i NAME", "why [NAME]", "log [N]", "q "):
        assert command in screen
    assert "line 39 " + "x" * 60 in screen.replace("\n", "")  # the log in full, wrapped, not cut
    assert "Type a number from 1 to 2" in screen


def test_inspect_and_why_print_pack_text_as_plain_text():
    """A card name or a reason with escape sequences or markup reaches the screen inert."""
    view = _table_view()
    view["about"]["cards"]["axe"]["text"] = "Bad \x1b[2J[red]text\u202e"
    view["decision"]["unavailable"] = [{"key": "x", "label": "Hunt [bold]", "why": "no \x1b]0;t\x07 weapon"}]
    console = Console(width=WIDTH, file=io.StringIO(), force_terminal=True, emoji=False, highlight=False)
    for line in inspect(view, "axe") + why(view):
        console.print(line)
    out = console.file.getvalue()
    assert "\x1b[2J" not in out and "\x1b]0" not in out and "\u202e" not in out
    import re

    bare = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert "Bad [2J[red]text" in bare and "Hunt [bold]: no ]0;t weapon" in bare


def test_the_view_describes_only_cards_in_sight(packs):
    """`about.cards` names the cards the player can see, with their document's details; none that lie
    face down (re-dealing the hidden cards leaves it the same)."""
    game = game_module.Game.new(packs["cro-magnon"], 3, 5)
    session.play_randomly(game, random.Random(5), limit=60)
    view = game.view("P1")
    seen = {
        item["id"]
        for zone in view["zones"].values()
        for item in (zone.get("cards") or []) + [zone.get("top")]
        if isinstance(item, dict)
    }
    assert set(view["about"]["cards"]) == seen
    technology = next(d for d in view["about"]["cards"].values() if d.get("requires"))
    assert technology["cost"] and "vp" in technology["stats"]
    for seed in range(3):
        assert game.determinized("P1", seed).view("P1")["about"] == view["about"]


_TINY = {
    "pack.yaml": "kind: pack\nid: tiny\nname: Tiny\nversion: 1.0.0\nplayers: {min: 2, max: 2}\n",
    "rules.yaml": """kind: counter
id: vp
name: Victory points
owner: player
---
kind: zone
id: deck
name: Deck
type: deck
---
kind: zone
id: hand
name: Hand
type: hand
owner: player
---
kind: card
id: gem
name: Gem
type: gem
deck: deck
copies: 6
---
kind: end
id: goal
name: Goal
trigger: me.vp >= 2
then: immediate
result: most
counter: vp
---
kind: action
id: dig
name: Dig
effect: |
  draw 1 from deck to hand
  gain 1 vp
""",
}


def test_knap_play_with_bots_only_names_nobody_you(tmp_path, knap, monkeypatch):
    """Nobody at the terminal plays a seat: the final board watches P1 and calls no seat "(you)"."""
    from conftest import write_tree

    monkeypatch.delenv("FORCE_COLOR", raising=False)
    pack = write_tree(tmp_path / "tiny", _TINY)
    code, out, err = knap("play", pack, "--agents", "random", "--seed", "1", "--log", tmp_path / "g.json")
    assert code == 0, err
    assert "Winner(s)" in out and "watching P1" in out and "(you)" not in out


def test_a_counter_with_words_for_its_values_shows_the_word(packs):
    """The Mammoth Herd's token stands on a resource area, kept as its number (`labels` in counters.yaml):
    the board names the area ("Mammoth token on resource area: Quarry"), effects still read the number,
    and a value with no word (none here) would show as the number."""
    game = game_module.Game.new(packs["stone-age-mammoth-herd"], 3, 1)
    number = game.state["counters"]["table"]["mammoth_area"]
    assert 1 <= number <= 4
    view = game.view("P1")
    assert view["counters"]["table"]["mammoth_area"] == number  # the view keeps the number
    console = _console()
    render(view, console)
    area = ["Forest", "Clay pit", "Quarry", "River"][number - 1]
    assert f"Mammoth token on resource area: {area}" in console.export_text()
    plain = dict(view, counter_words={})
    console = _console()
    render(plain, console)
    assert f"Mammoth token on resource area: {number}" in console.export_text()
