"""A person at the terminal: the board as their view shows it, the log, and numbered options.

Every text of the pack (names, prompts, labels, log lines) is printed as `Text` of `safe_text.plain`: rich
never reads it as markup or emoji, and no control character of it reaches the terminal."""
from __future__ import annotations

import sys

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..safe_text import console as safe_console, plain


def _shown(text, style: str = "") -> Text:
    """Pack text as rich shows it: plain, on one line, never markup."""
    return Text(plain(text), style=style)


def _card_text(item) -> str:
    if item is None:
        return "·"
    if item == "hidden":
        return "▒"
    text = item["name"]
    if item.get("orientation"):
        text += f" ({item['orientation']})"
    return text


def _zone_text(zone) -> str:
    if "top" in zone:
        return f"top: {_card_text(zone['top'])} ({zone['count']} cards)"
    if "cards" in zone:
        names = [_card_text(c) for c in zone["cards"]]
        if None not in zone["cards"]:          # a pile, not a row with places: "Small stone × 8"
            runs: list[list] = []
            for name in names:
                if runs and runs[-1][0] == name:
                    runs[-1][1] += 1
                else:
                    runs.append([name, 1])
            names = [f"{name} × {n}" if n > 1 else name for name, n in runs]
        text = ", ".join(names) or "—"
        hidden = zone["count"] - sum(1 for c in zone["cards"] if c not in (None, "hidden"))
        if hidden > 0 and "hidden" not in zone["cards"]:
            text += f" (+{hidden} face down)"
        return text
    return f"{zone['count']} face down" if zone["count"] else "—"


def render(view, console: Console, log_lines: int = 12, since: int | None = None):
    """The board from one player's seat: shared zones with cards, then one row per player (counters and
    their own zones), then the log's tail."""
    you = view["you"]
    turn = view["turn"]
    console.rule(_shown(f"Round {turn['number']} — you are {you}" if turn.get("rounds")
                        else f"Turn {turn['number']} — {turn['player']} to play — you are {you}"))
    table = Table(title="Table", show_edge=False, show_header=False)
    table.add_column("zone", style="bold")
    table.add_column("cards")
    per_player: dict[str, dict[str, str]] = {}
    for key, zone in view["zones"].items():
        if ":" in key and not key.startswith("_"):
            zone_id, owner = key.split(":")
            label = zone["name"].split("'s ", 1)[-1]
            per_player.setdefault(owner, {})[label] = _zone_text(zone)
        elif zone["count"] or "cards" in zone and zone["cards"]:
            table.add_row(_shown(zone["name"]), _shown(_zone_text(zone)))
    for name, value in view["counters"].get("table", {}).items():     # shared counters: a bag of tokens, ...
        table.add_row(_shown(view.get("counter_names", {}).get(name, name)), str(value))
    console.print(table)
    players = Table(title="Players", show_edge=False)
    players.add_column("player", style="bold")
    counters = sorted({c for owner, values in view["counters"].items() if owner != "table" for c in values})
    for name in counters:
        players.add_column(_shown(name), justify="right")
    zone_labels = sorted({label for zones in per_player.values() for label in zones})
    for label in zone_labels:
        players.add_column(_shown(label))
    for player in view["players"]:
        values = view["counters"].get(player, {})
        zones = per_player.get(player, {})
        players.add_row(_shown(player + (" (you)" if player == you else "")),
                        *[_shown(values.get(n, "")) for n in counters],
                        *[_shown(zones.get(label, "")) for label in zone_labels])
    console.print(players)
    lines = view["log"][since:] if since is not None else view["log"][-log_lines:]
    if len(lines) > 60:
        console.print(f"  [dim]… {len(lines) - 60} earlier lines[/dim]")
        lines = lines[-60:]
    for line in lines:
        console.print(Text.assemble("  ", _shown(line, "dim")))


class HumanAgent:
    """Asks the person at the keyboard; reads answers from `stdin` (a pseudo terminal or a pipe)."""
    name = "human"

    def __init__(self, console: Console | None = None, stdin=None):
        self.console = console or safe_console()
        self.stdin = stdin or sys.stdin
        self.seen = 0          # log lines already shown: everything since is shown, bots' turns included

    def act(self, view, legal, model=None):
        render(view, self.console, since=self.seen)
        self.seen = len(view["log"])
        decision = view["decision"]
        self.console.print(_shown(decision["prompt"], "bold"))
        for number, option in enumerate(decision["options"], 1):
            self.console.print(Text.assemble(f"  {number}. ", _shown(option["label"])))
        while True:
            self.console.print(f"Your choice (1-{len(decision['options'])}, q to quit): ", end="")
            line = self.stdin.readline()
            if not line or line.strip().lower() in ("q", "quit"):
                raise KeyboardInterrupt
            answer = line.strip()
            if answer.isdigit() and 1 <= int(answer) <= len(decision["options"]):
                return decision["options"][int(answer) - 1]["key"]
            self.console.print(f"[red]Type a number from 1 to {len(decision['options'])}.[/red]")
