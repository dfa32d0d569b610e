"""Two people at one terminal (`knap play --human 1 --human 2`, issue 13): between two different seats the
screen and its scrollback are cleared and the keyboard is handed over ("Pass to P2 — press Enter"), so that
nobody reads the previous seat's hand or choices by scrolling back."""

from __future__ import annotations

import io
import sys

import pytest
from rich.console import Console
from test_play_pty import COLUMNS, ROWS, terminals  # noqa: F401 -- the fixture, used by name
from test_play_session import knap, toy  # noqa: F401 -- the fixture, used by name
from test_view_leaks import peek_pack

from engine.runtime import rules as rules_module
from engine.runtime import session
from engine.runtime.game import Game
from engine.runtime.terminal import CLEAR_SCREEN_AND_SCROLLBACK, HandOver, HumanAgent


def test_the_screen_is_cleared_and_the_keyboard_handed_over_between_seats(tmp_path):
    rules = rules_module.load(peek_pack(tmp_path))
    game = Game.new(rules, 2, 3)
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=COLUMNS, height=ROWS, color_system=None)
    end = 1 + next(o["key"] for o in game.view("P1")["decision"]["options"] if o["label"] == "end turn")
    # P1 ends the turn; Enter hands over; P2 ends theirs; Enter; P1 quits
    keys = io.StringIO(f"{end}\n\n{end}\n\nq\n")
    hand_over = HandOver()
    seats = [HumanAgent(console, keys, hand_over=hand_over), HumanAgent(console, keys, hand_over=hand_over)]
    with pytest.raises(KeyboardInterrupt):
        session.play_out(game, seats, watcher="P1", interruptible=False)
    printed = out.getvalue()
    handed = printed.split("Pass to P2 — press Enter")
    assert len(handed) == 2, printed[-2000:]
    before, after = handed
    assert before.endswith(CLEAR_SCREEN_AND_SCROLLBACK)  # P1's screen is gone before P2 comes
    assert after.startswith(CLEAR_SCREEN_AND_SCROLLBACK)  # and the pause itself once P2 is there
    assert "you are P1" not in after.split("Pass to P1")[0]
    assert "Pass to P1 — press Enter" in after  # P1's turn again: handed back


def test_one_person_gets_no_pause(tmp_path):
    rules = rules_module.load(peek_pack(tmp_path))
    game = Game.new(rules, 2, 3)
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=COLUMNS, height=ROWS, color_system=None)
    from engine.runtime.agents import RandomAgent

    seats = [HumanAgent(console, io.StringIO("q\n")), RandomAgent(1)]
    with pytest.raises(KeyboardInterrupt):
        session.play_out(game, seats, watcher="P1", interruptible=False)
    assert "Pass to" not in out.getvalue() and CLEAR_SCREEN_AND_SCROLLBACK not in out.getvalue()


def test_knap_play_with_two_people_hands_the_keyboard_over(tmp_path, knap):  # noqa: F811
    pack = toy(tmp_path)
    # P1: act, 2 points (then the die), end turn; Enter; P2 the same; Enter; quit
    code, out, err = knap(
        "play", pack, "--players", "2", "--human", "1", "--human", "2", "--seed", "5", stdin="1\n2\n1\n\n1\n2\n1\n\nq\n"
    )
    assert code == 0, err
    assert out.count("Pass to P2 — press Enter") == 1 and out.count("Pass to P1 — press Enter") == 1, out[-3000:]


def test_two_people_at_a_real_terminal(tmp_path, terminals):  # noqa: F811
    pack = toy(tmp_path)
    terminal = terminals(
        "play", str(pack), "--players", "2", "--human", "1", "--human", "2", "--seed", "5", cwd=tmp_path
    )
    for key in ("1", "2", "1"):  # act, 2 points, end turn
        terminal.expect("? for help): ")
        terminal.type(key)
    terminal.expect("Pass to P2 — press Enter")
    terminal.type("")
    terminal.expect("you are P2")
    terminal.type("q")
    assert terminal.finish() == 0
    assert sys.platform != "win32"
