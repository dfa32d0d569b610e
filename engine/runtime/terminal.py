"""A person at the terminal: the board as their view shows it, the log, and numbered options."""
from __future__ import annotations

import sys

from rich.console import Console
from rich.table import Table


def _card_text(item) -> str:
    if item is None:
        return "·"
    if item == "hidden":
        return "▒"
    text = item["name"]
    if item.get("orientation"):
        text += f" ({item['orientation']})"
    return text


def render(view, console: Console, log_lines: int = 12):
    """The board from one player's seat: counters, shared zones, each player's zones, the log's tail."""
    you = view["you"]
    turn = view["turn"]
    console.rule(f"Turn {turn['number']} — {turn['player']} to play — you are {you}")
    counters = Table(title="Players", show_edge=False)
    counters.add_column("player")
    names = sorted({c for values in view["counters"].values() for c in values})
    for name in names:
        counters.add_column(name, justify="right")
    for owner, values in view["counters"].items():
        label = owner + (" (you)" if owner == you else "")
        counters.add_row(label, *[str(values.get(n, "")) for n in names])
    console.print(counters)
    table = Table(title="Table", show_edge=False, show_header=False)
    table.add_column("zone")
    table.add_column("cards")
    for key, zone in view["zones"].items():
        if ":" in key and not key.endswith(f":{you}") and "cards" not in zone:
            text = f"{zone['count']} card(s)"
        elif "top" in zone:
            text = f"top: {_card_text(zone['top'])} ({zone['count']} card(s))"
        elif "cards" in zone:
            text = ", ".join(_card_text(c) for c in zone["cards"]) or "—"
            hidden = zone["count"] - sum(1 for c in zone["cards"] if c not in (None, "hidden"))
            if hidden > 0 and "hidden" not in zone["cards"]:
                text += f" (+{hidden} face down)"
        else:
            text = f"{zone['count']} card(s) face down" if zone["count"] else "—"
        table.add_row(zone["name"], text)
    console.print(table)
    for line in view["log"][-log_lines:]:
        console.print(f"  [dim]{line}[/dim]")


class HumanAgent:
    """Asks the person at the keyboard; reads answers from `stdin` (a pseudo terminal or a pipe)."""
    name = "human"

    def __init__(self, console: Console | None = None, stdin=None):
        self.console = console or Console()
        self.stdin = stdin or sys.stdin

    def act(self, view, legal, model=None):
        render(view, self.console)
        decision = view["decision"]
        self.console.print(f"[bold]{decision['prompt']}[/bold]")
        for number, option in enumerate(decision["options"], 1):
            self.console.print(f"  {number}. {option['label']}")
        while True:
            self.console.print(f"Your choice (1-{len(decision['options'])}, q to quit): ", end="")
            line = self.stdin.readline()
            if not line or line.strip().lower() in ("q", "quit"):
                raise KeyboardInterrupt
            answer = line.strip()
            if answer.isdigit() and 1 <= int(answer) <= len(decision["options"]):
                return decision["options"][int(answer) - 1]["key"]
            self.console.print(f"[red]Type a number from 1 to {len(decision['options'])}.[/red]")
