"""`knap play` driven in a real pseudo-terminal of 80×24, as a new user plays (issue 11): the board and the
question fit the screen, `i NAME` shows a card, `why` says why actions are missing from the menu, `q` saves
and prints how to resume, `knap play --resume FILE` goes on at the same question, and Ctrl-C saves too."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time

import pytest
from conftest import REPO

pty = pytest.importorskip("pty")
fcntl = pytest.importorskip("fcntl")
termios = pytest.importorskip("termios")

ROWS, COLUMNS = 24, 80
PROMPT = "? for help): "
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\r")


class Terminal:
    """A process on the slave side of a pty of ROWS×COLUMNS, which is its controlling terminal (so Ctrl-C
    is a SIGINT, as at a real keyboard); what it prints is read from the master side."""

    def __init__(self, *args: str, cwd, program: tuple[str, ...] = (sys.executable, "-m", "engine.commands.cli")):
        import struct

        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "FORCE_COLOR", "NO_COLOR")}
        env["TERM"] = "xterm-256color"

        def own_terminal():
            os.setsid()
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)
            # As a shell at a keyboard starts a program: Ctrl-C not ignored, even when the tests themselves run
            # in the background (`pytest &` ignores SIGINT, children inherit that, and Ctrl-C would do nothing).
            signal.signal(signal.SIGINT, signal.SIG_DFL)

        self.process = subprocess.Popen(
            [*program, *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=env,
            preexec_fn=own_terminal,  # noqa: PLW1509 -- only a hook in the child can make the pty its controlling terminal
            close_fds=True,
        )
        os.close(slave)
        self.master = master
        self.text = ""  # everything printed, escape sequences and carriage returns taken out

    def expect(self, wanted: str, timeout: float = 60) -> str:
        """Read until `wanted` is printed after what was read so far; the new text up to it."""
        start = len(self.text)
        deadline = time.monotonic() + timeout
        while wanted not in self.text[start:]:
            left = deadline - time.monotonic()
            assert left > 0, f"`{wanted}` never came; the screen ends with:\n{self.text[-3000:]}"
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # the process ended and closed the terminal
                    chunk = b""
                assert chunk, f"the program ended before `{wanted}`:\n{self.text[-3000:]}"
                self.text += _ESCAPES.sub("", chunk.decode("utf-8", "replace"))
        end = self.text.index(wanted, start) + len(wanted)
        return self.text[start:end]

    def type(self, line: str):
        os.write(self.master, line.encode() + b"\r")

    def interrupt(self, timeout: float = 30):
        """Ctrl-C once the program waits for the keyboard. A SIGINT that comes after the prompt is printed but
        before the read begins is lost until the read returns (CPython checks signals only when a read is
        interrupted), so a ^C typed the instant the prompt shows could wait for ever: a person types again,
        a test waits until the process sleeps in its read (Linux's /proc; elsewhere a moment's pause)."""
        stat = f"/proc/{self.process.pid}/stat"
        deadline = time.monotonic() + timeout
        if not os.path.exists(stat):
            time.sleep(0.5)
        while os.path.exists(stat) and time.monotonic() < deadline:
            with open(stat) as status:
                if status.read().rsplit(")", 1)[1].split()[0] == "S":  # sleeping: in its read
                    break
            time.sleep(0.01)
        os.write(self.master, b"\x03")

    def interrupted(self, wanted: str, tries: int = 3, wait: float = 20) -> str:
        """Ctrl-C until `wanted` is printed, as a person presses it again when the first went unheeded (a SIGINT
        can be lost in the instant the read begins): at most `tries` presses, `wait` seconds apart."""
        for attempt in range(tries):
            self.interrupt()
            try:
                return self.expect(wanted, timeout=wait)
            except AssertionError:
                if attempt == tries - 1 or self.process.poll() is not None:
                    raise
        raise AssertionError(f"`{wanted}` never came")

    def finish(self, timeout: float = 30) -> int:
        try:
            while True:
                ready, _, _ = select.select([self.master], [], [], 1)
                if ready and not os.read(self.master, 65536):
                    break
        except OSError:
            pass
        code = self.process.wait(timeout)
        os.close(self.master)
        return code

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)


def _screen_fits(printed: str, title: str):
    """From the board's title line to the question's prompt: at most ROWS lines, none wider than COLUMNS."""
    lines = printed.split("\n")
    top = max(i for i, line in enumerate(lines) if title in line)
    screen = lines[top:]
    assert len(screen) <= ROWS, "\n".join(screen)
    assert all(len(line) <= COLUMNS for line in screen), "\n".join(screen)
    return screen


@pytest.fixture
def terminals():
    started = []

    def start(*args, cwd):
        terminal = Terminal(*args, cwd=cwd)
        started.append(terminal)
        return terminal

    yield start
    for terminal in started:
        terminal.kill()


def test_the_program_hears_ctrl_c_even_when_the_tests_run_in_the_background():
    """A test run started with `&` ignores SIGINT and its children inherit that: the programs under test
    must still get Ctrl-C as at a keyboard, or the Ctrl-C steps below hang however often they press."""
    probe = "import signal; print('Ctrl-C:', signal.getsignal(signal.SIGINT))"
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)  # as in `pytest &`
    try:
        terminal = Terminal("-c", probe, cwd=REPO, program=(sys.executable,))
    finally:
        signal.signal(signal.SIGINT, previous)
    assert "default_int_handler" in terminal.expect("\n")
    assert terminal.finish() == 0


def test_a_new_user_inspects_asks_why_quits_and_resumes_at_80x24(tmp_path, terminals):
    log = tmp_path / "g.json"
    first = terminals(
        "play",
        "cro-magnon",
        "--players",
        "4",
        "--human",
        "1",
        "--seed",
        "5",
        "--agents",
        "random",
        "--log",
        str(log),
        cwd=REPO,
    )
    printed = first.expect(PROMPT)
    screen = _screen_fits(printed, "you are P1")
    assert "goal: Victory points ≥ 22" in screen[0]
    assert "Choose an action" in printed and "P1 (you)" in printed

    first.type("i axe")  # a card of the first technologies' row
    shown = first.expect(PROMPT)
    assert "Axe — technology" in shown and "cost:" in shown and "in sight:" in shown

    first.type("why")  # nobody has a weapon yet: no Attack
    shown = first.expect(PROMPT)
    assert "Not on the menu:" in shown and "Attack:" in shown

    first.type("1")  # Explore Terrain: a second question
    question = first.expect(PROMPT)
    assert "Which terrain do you explore?" in question
    first.type("q")
    first.expect("--resume")
    assert first.finish() == 0
    said = first.text[first.text.rindex("knap play") :].replace("\n", "")  # as printed, maybe wrapped
    match = re.match(r"knap play\s*--resume\s*(\S+\.json)", said)
    assert match, said
    saved = match.group(1)
    assert os.path.exists(saved)

    second = terminals("play", "--resume", saved, cwd=REPO)  # the same game, at the same question
    printed = second.expect(PROMPT)
    screen = _screen_fits(printed, "you are P1")
    assert "Turn 1 — P1 to play" in screen[0]
    assert "Which terrain do you explore?" in "\n".join(screen)
    second.type("i forest deck")
    assert "Forest deck —" in second.expect(PROMPT)
    second.interrupted("--resume")  # Ctrl-C: saved again, not a traceback
    assert second.finish() == 0
    assert "Traceback" not in first.text + second.text and "internal error" not in first.text + second.text


def test_the_mammoth_herd_plays_at_80x24_with_the_persons_resources_on_screen(tmp_path, terminals):
    """Issue 14: `knap play stone-age-mammoth-herd --players 3 --human 1` at an 80×24 terminal. Its board
    (sixteen places, four building piles, the herd) fits, cut where it must; the person's own food and
    resources are on screen whole; figures are placed; `i P2` shows another player in full; `q` and
    `--resume` go on at the same question."""
    log = tmp_path / "herd.json"
    first = terminals(
        "play",
        "stone-age-mammoth-herd",
        "--players",
        "3",
        "--human",
        "1",
        "--seed",
        "7",
        "--agents",
        "random",
        "--log",
        str(log),
        cwd=REPO,
    )
    printed = first.expect(PROMPT)
    screen = "\n".join(_screen_fits(printed, "you are P1"))
    assert "Where do you place figures?" in screen
    mine = screen[screen.index("P1 (you)") :]
    for resource in ("Food 12", "Wood 0", "Clay 0", "Stone 0", "Gold 0", "Agri 0"):
        assert resource in mine, screen
    first.type("2")  # the forest
    question = first.expect(PROMPT)
    assert "How many figures do you place there?" in question and "Answer with a number: 1 to 5" in question
    first.type("3")
    printed = first.expect(PROMPT)
    assert "Where do you place figures?" in printed
    assert "forest: Figure × 3" in "\n".join(_screen_fits(printed, "you are P1"))
    first.type("i P2")
    shown = first.expect(PROMPT)
    assert "P2" in shown and "Food 12" in shown
    first.type("q")
    first.expect("--resume")
    assert first.finish() == 0
    said = first.text[first.text.rindex("knap play") :].replace("\n", "")
    match = re.match(r"knap play\s*--resume\s*(\S+\.json)", said)
    assert match, said

    second = terminals("play", "--resume", match.group(1), cwd=REPO)
    printed = second.expect(PROMPT)
    screen = "\n".join(_screen_fits(printed, "you are P1"))
    assert "Where do you place figures?" in screen and "forest: Figure × 3" in screen
    second.interrupted("--resume")
    assert second.finish() == 0
    assert "Traceback" not in first.text + second.text and "internal error" not in first.text + second.text
