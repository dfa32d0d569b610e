"""A person at the terminal: the board as their view shows it, the log's tail, the question, and commands to
look things up (`inspect`, `why`, `log`, `help`).

The board fits the terminal (80×24 at the least): every line of it is one line on screen, cut with "…" when
too long, and the log gets the lines left over; `inspect` and `log` show in full what the board cuts.
Every text of the pack (names, prompts, labels, log lines) is printed as `Text` of `safe_text.plain`: rich
never reads it as markup or emoji, and no control character of it reaches the terminal."""

from __future__ import annotations

import re
import sys

from rich.console import Console
from rich.table import Table
from rich.text import Text

from engine import suggestions
from engine.safe_text import console as safe_console
from engine.safe_text import plain

HELP = [
    ("NUMBER", "answer (a number question takes the number itself)"),
    ("i NAME", "inspect a card, zone or player in sight (a prefix will do)"),
    ("why [NAME]", "why an action is not on the menu"),
    ("log [N]", "the log since your last turn, or its last N lines"),
    ("b", "show the board again"),
    ("q", "quit (so do Ctrl-C and the end of input)"),
]
GAP = "   "  # between two zones sharing a line of the board
QUESTION_ROOM = 6  # lines a question keeps under a board too tall for the terminal
_NUMBER = re.compile(r"-?\d+")


def _shown(text, style: str = "") -> Text:
    """Pack text as rich shows it: plain, on one line, never markup."""
    return Text(plain(text), style=style)


def _one_line(text: Text, width: int) -> Text:
    """`text` cut to `width` cells with "…": one line of the board, whatever its length."""
    text = text.copy()
    text.no_wrap = True
    text.truncate(width, overflow="ellipsis")
    return text


def _card_text(item) -> str:
    if item is None:
        return "·"
    if item == "hidden":
        return "▒"
    text = item["name"]
    if item.get("orientation"):
        text += f" ({item['orientation']})"
    if item.get("counters"):  # numbers kept on the card (`owner: card`): `Warrior [wounds 1]`
        text += " [" + ", ".join(f"{name} {number}" for name, number in item["counters"].items()) + "]"
    return text


def grouped(names: list[str]) -> str:
    """Like cards together, in the order each first appears: `Wood × 3, Spring`."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{name} × {n}" if n > 1 else name for name, n in counts.items())


def _zones_in_order(view) -> list[tuple[str, dict]]:
    """The view's zones in the pack's order (a resumed game's come sorted by key)."""
    facts = view.get("about", {}).get("zones", {})
    return sorted(view["zones"].items(), key=lambda kv: facts.get(kv[0], {}).get("order", 0))


def _zone_type(view, key) -> str:
    return view.get("about", {}).get("zones", {}).get(key, {}).get("type", "")


def _is_discard(view, key) -> bool:
    return bool(view.get("about", {}).get("zones", {}).get(key, {}).get("discard"))


def zone_text(view, key, zone) -> str:
    """A zone on one line: a row in order (· for an empty place), a discard pile by the card on top and how
    many, anything else (a hand, a supply, a tableau) with like cards grouped; hidden cards as a count."""
    if "top" in zone:
        return f"top {_card_text(zone['top'])} ({zone['count']})" + _backs_text(zone)
    if "cards" not in zone:
        return f"{zone['count']} face down" + _backs_text(zone) if zone["count"] else "—"
    cards = zone["cards"]
    visible = [c for c in cards if c not in (None, "hidden")]
    if None in cards or "hidden" in cards or _zone_type(view, key) == "row":
        text = " · ".join(_card_text(c) for c in cards) or "—"
    elif _zone_type(view, key) == "pile" and _is_discard(view, key) and len(visible) > 1:
        text = f"top {_card_text(visible[-1])} ({zone['count']})"
    else:
        text = grouped([_card_text(c) for c in visible]) or "—"
    hidden = zone["count"] - len(visible)
    if hidden > 0 and "hidden" not in cards:
        text += f" (+{hidden} face down)"
    return text + _backs_text(zone)


def _backs_text(zone) -> str:
    """The backs seen of a zone's face-down cards, top first: " (backs: forest, river)" (views.py `backs`)."""
    backs = zone.get("backs")
    return f" (backs: {', '.join(reversed(backs))})" if backs else ""


def _title(view, spectator: bool, width: int) -> Text:
    you, turn = view["you"], view["turn"]
    seat = f"watching {you}" if spectator else f"you are {you}"
    rounds = turn.get("round", turn["number"])  # rounds, not picks: a round, or a pass of the seats
    text = (
        f"Round {rounds} — {seat}"
        if turn.get("rounds")
        else f"Round {rounds} · Turn {turn['number']} — {turn['player']} to play — {seat}"
    )
    goals = view.get("about", {}).get("goal") or []
    if goals:
        text += " — goal: " + " or ".join(goals)
    return _one_line(_shown(text), width - 6)


def _shared_lines(view, width: int) -> list[Text]:
    lines, rows = _shared_parts(view, width)
    return lines + rows


def _shared_parts(view, width: int) -> tuple[list[Text], list[Text]]:
    """The shared zones and counters, several to a line where they fit, and the rows (a row of cards takes
    a line of its own)."""
    items: list[tuple[Text, bool]] = []
    for key, zone in _zones_in_order(view):
        if ":" in key:  # a player's own zone (or play area): on the player's line
            continue
        if not (zone["count"] or zone.get("cards")):
            continue
        is_row = _zone_type(view, key) == "row" or None in (zone.get("cards") or [])
        shown = zone_text(view, key, zone) if {"cards", "top", "backs"} & zone.keys() else str(zone["count"])
        items.append((Text.assemble(_shown(zone["name"] + ": ", "bold"), _shown(shown)), is_row))
    for name, value in view["counters"].get("table", {}).items():  # shared counters: a bag of tokens, ...
        label = view.get("counter_names", {}).get(name, name)
        items.append((Text.assemble(_shown(label + ": ", "bold"), _shown(counter_value(view, name, value))), False))
    lines: list[Text] = []
    rows: list[Text] = []
    for text, whole_line in items:  # first fit: each zone on the first line with room for it
        text = _one_line(text, width)
        if whole_line:
            rows.append(text)
            continue
        line = next((line for line in lines if line.cell_len + len(GAP) + text.cell_len <= width), None)
        if line is None:
            lines.append(text)
        else:
            line.append(GAP)
            line.append_text(text)
    return lines, rows


def _player_zones(view) -> dict[str, dict[str, str]]:
    """Each player's own zones, by the zone's label (`hand`), as one-line texts."""
    per_player: dict[str, dict[str, str]] = {}
    for key, zone in _zones_in_order(view):
        if ":" in key and not key.startswith("_"):
            owner = key.split(":")[1]
            label = zone["name"].split("'s ", 1)[-1]
            per_player.setdefault(owner, {})[label] = zone_text(view, key, zone)
        elif key.startswith("_drawn:") and zone["count"]:
            per_player.setdefault(key.split(":")[1], {})["play area"] = zone_text(view, key, zone)
    return per_player


def _fair_widths(needs: list[int], room: int) -> list[int]:
    """Widths for columns that need `needs` cells in `room`: each gets what it needs if all fit, else the
    narrow ones theirs and the wide ones an equal share of the rest."""
    widths = [0] * len(needs)
    left, open_columns = room, sorted(range(len(needs)), key=lambda i: needs[i])
    while open_columns:
        share = max(3, left // len(open_columns))
        i = open_columns.pop(0)
        widths[i] = min(needs[i], share)
        left -= widths[i]
    return widths


def _player_counters(view) -> list[str]:
    """The players' counters, in the order the pack declares them."""
    held = {c for owner, values in view["counters"].items() if owner != "table" for c in values}
    declared = [c for c in view.get("counter_names", {}) if c in held]
    return declared + sorted(held - set(declared))


def counter_value(view, counter: str, value) -> str:
    """A counter's value as the table shows it: the pack's word for it (`labels` in counters.yaml), else
    the number (or "?" for one the player may not read); a counter with `keys` as its keys that are not 0,
    `key:number` each (`7:3 8:1`), or 0."""
    if isinstance(value, dict):
        return " ".join(f"{key}:{number}" for key, number in value.items() if number) or "0"
    return view.get("counter_words", {}).get(counter, {}).get(str(value), str(value))


def _counter_label(view, counter: str) -> str:
    """A counter's label for the players' table: its `short` label, else its name."""
    return view.get("counter_labels", {}).get(counter) or view.get("counter_names", {}).get(counter, counter)


def _marked(view, player, spectator: bool) -> Text:
    marker = " (you)" if player == view["you"] and not spectator else ""
    out = (view.get("out") or {}).get(player)  # `eliminate`: out of the game or the round
    return _shown(player + marker + (f" (out of the {out})" if out else ""), "bold" if marker else "dim" if out else "")


_EMPTY = ("", "—")
MIN_ZONE_WIDTH = 12  # a zone column narrower than this says too little: the players get lines instead


def _players_table(view, spectator: bool, width: int) -> Table | None:
    """One line per player: counters (headed by their labels), then their zones (other hands as counts),
    leaving out zones empty for every player; cut with "…" to fit. None when the counters' labels and
    at least MIN_ZONE_WIDTH cells of each zone do not fit the width: `_players_lines` says it then."""
    counters = _player_counters(view)
    per_player = _player_zones(view)
    zone_labels = list(dict.fromkeys(label for zones in per_player.values() for label in zones))
    zone_labels = [
        label
        for label in zone_labels
        if any(per_player.get(p, {}).get(label, "") not in _EMPTY for p in view["players"])
    ]
    rows = []
    for player in view["players"]:
        values = view["counters"].get(player, {})
        zones = per_player.get(player, {})
        rows.append(
            [_marked(view, player, spectator)]
            + [_shown(counter_value(view, n, values.get(n, ""))) for n in counters]
            + [_shown(zones.get(label, "")) for label in zone_labels]
        )
    headers = (
        [Text("player")]
        + [_shown(_counter_label(view, n)) for n in counters]
        + [_shown(label) for label in zone_labels]
    )
    columns = list(zip(headers, *rows, strict=True))  # a cell of each row under each header
    needs = [max(cell.cell_len for cell in column) for column in columns]
    fixed = 1 + len(counters)
    room = width - sum(needs[:fixed]) - 2 * (len(needs) - 1)
    if room < sum(min(need, MIN_ZONE_WIDTH) for need in needs[fixed:]):
        return None
    if sum(needs[fixed:]) > room:  # a long title may be cut rather than the cards under it
        needs[fixed:] = [
            max([c.cell_len for c in cells] + [min(header.cell_len, 10)]) for header, *cells in columns[fixed:]
        ]
    widths = needs[:fixed] + _fair_widths(needs[fixed:], room)
    players = Table(box=None, show_edge=False, pad_edge=False, padding=(0, 1), header_style="bold")
    for i, header in enumerate(headers):
        players.add_column(
            header, no_wrap=True, overflow="ellipsis", width=widths[i], justify="right" if 0 < i < fixed else "left"
        )
    for row in rows:
        players.add_row(*row)
    return players


def _flowed(items: list[Text], width: int, indent: int, most: int) -> list[Text]:
    """`items` on lines of `width` (after the first, indented by `indent`), separated by GAP, in at most
    `most` lines; an item longer than a line is cut with "…", and what does not fit ends the last line
    with "…"."""
    lines: list[Text] = []
    line = Text()
    for item in items:
        if line.cell_len and line.cell_len + len(GAP) + item.cell_len > width:
            if len(lines) + 1 >= most:
                line.append(" …")
                lines.append(_one_line(line, width))
                return lines
            lines.append(line)
            line = Text(" " * indent)
        if line.cell_len > indent or (lines == [] and line.cell_len):
            line.append(GAP)
        line.append_text(item)
        line = _one_line(line, width)
    if line.cell_len > indent:
        lines.append(line)
    return lines


def _players_lines(view, spectator: bool, width: int, most_you: int = 4, most_others: int = 2) -> list[Text]:
    """Each player as lines of `Label value` pairs, then the zones that hold something (`label: cards`):
    at most `most_you` lines for the person's own seat and `most_others` for each other; `i PLAYER` shows
    all. For games whose counters and zones do not fit one line per player."""
    counters = _player_counters(view)
    per_player = _player_zones(view)
    name_width = max(len(p) for p in view["players"]) + (0 if spectator else len(" (you)"))
    lines: list[Text] = []
    for player in view["players"]:
        values = view["counters"].get(player, {})
        head = _marked(view, player, spectator)
        head.pad_right(name_width - head.cell_len)
        items = [
            Text.assemble(_shown(_counter_label(view, c) + " ", "dim"), _shown(counter_value(view, c, values[c])))
            for c in counters
            if c in values
        ]
        items += [
            Text.assemble(_shown(label + ": ", "dim"), _shown(text))
            for label, text in per_player.get(player, {}).items()
            if text not in _EMPTY
        ]
        first = head.copy()
        if items:
            first.append(" ")
            first.append_text(items[0])
        mine = player == view["you"] and not spectator
        lines += _flowed([first] + items[1:], width, name_width + 1, most_you if mine else most_others)
    return lines


class Board:
    """The board without its log: a title with the goal, the shared zones, one line per player."""

    def __init__(self, view, console: Console, spectator: bool = False, max_height: int | None = None):
        """`max_height`: the board takes at most this many lines; the shared zones are cut first (with a
        line saying how many were left out and how to see them), never the title or the players."""
        width = console.width
        self.title = _title(view, spectator, width)
        packed, rows = _shared_parts(view, width)
        self.shared = packed + rows
        table = _players_table(view, spectator, width)
        if table is not None:
            self.players: list = [table]
            player_lines = len(console.render_lines(table, console.options.update(width=width), pad=False))
        else:
            self.players = _players_lines(view, spectator, width)
            player_lines = len(self.players)
        self.height = 1 + len(self.shared) + player_lines
        if max_height is not None and self.height > max_height and self.shared:
            # the rows of cards (a display to buy from) are kept longest; the lines of counts go first
            cut = min(len(self.shared), self.height - max_height + 1)
            packed_cut = min(cut, len(packed))
            kept = packed[: len(packed) - packed_cut] + rows[: len(rows) - (cut - packed_cut)]
            self.shared = kept + [
                Text(f"  … {cut} more line{'s' if cut > 1 else ''} of shared zones: `i NAME` shows one", "dim")
            ]
            self.height = 1 + len(self.shared) + player_lines

    def print(self, console: Console):
        console.rule(self.title)
        for text in self.shared:
            console.print(text)
        for part in self.players:
            console.print(part)


def render(
    view,
    console: Console,
    log_lines: int = 12,
    since: int | None = None,
    *,
    reserve: int = 0,
    spectator: bool = False,
    board: Board | None = None,
):
    """The board from one player's seat, in at most the console's height less `reserve` lines (the
    question under it), then as much of the log (from line `since`, or its last `log_lines`) as fits;
    what does not fit is counted in a line that points to `log`. `spectator`: nobody is "you"."""
    board = board or Board(view, console, spectator)
    lines = view["log"][since:] if since is not None else view["log"][-log_lines:]
    room = max(0, console.height - reserve - board.height)
    if since is None:
        room = max(1, min(room, log_lines))
    board.print(console)
    if len(lines) > room:
        shown = lines[len(lines) - room + 1 :] if room > 1 else []
        if room:
            console.print(Text(f"  … {len(lines) - len(shown)} more log lines: type `log` to read them", "dim"))
        lines = shown
    for line in lines:
        console.print(_one_line(Text.assemble("  ", _shown(line, "dim")), console.width))


# ------------------------------------------------------------------------------------------ the question
def _is_number_question(options) -> bool:
    """Every answer (but `done`) is a number: the person types the number itself, not its place."""
    numbers = [o["label"] for o in options if o["label"] != "done"]
    return bool(numbers) and all(_NUMBER.fullmatch(label) for label in numbers) and len(set(numbers)) == len(numbers)


def _number_span(numbers: list[str]) -> str:
    values = sorted(int(n) for n in numbers)
    if len(values) > 2 and values == list(range(values[0], values[-1] + 1)):
        return f"{values[0]} to {values[-1]}"
    if len(values) == 1:
        return str(values[0])
    return ", ".join(map(str, values[:-1])) + f" or {values[-1]}"


class Question:
    """A decision as the person sees it and answers it: numbered options, or the numbers themselves."""

    def __init__(self, decision):
        self.prompt = decision.get("prompt", "")
        self.options = decision["options"]
        self.by_number = _is_number_question(self.options)

    def lines(self, width: int, room: int | None = None) -> list[Text]:
        """The prompt and the options, in columns when there are many; in no more than `room` lines
        when that is given and the labels fit, cut with "…", in two or three columns."""
        lines = [_shown(self.prompt, "bold")]
        if self.by_number:
            numbers = [o["label"] for o in self.options if o["label"] != "done"]
            done = " (or `done`)" if len(numbers) < len(self.options) else ""
            lines.append(Text(f"  Answer with a number: {_number_span(numbers)}{done}"))
            return lines
        cells = [Text.assemble(f"{n:>2}. ", _shown(o["label"])) for n, o in enumerate(self.options, 1)]
        if not cells:
            return lines
        widest = max(c.cell_len for c in cells) + len(GAP)
        columns = max(1, min(3, width // widest)) if len(cells) > 3 else 1
        rows = -(-len(cells) // columns)
        if room is not None and rows > room - 1 and columns < 3:
            columns = max(columns, min(3, -(-len(cells) // max(1, room - 1))))
            rows, widest = -(-len(cells) // columns), width // columns
            cells = [_one_line(cell, widest - len(GAP)) for cell in cells]
        for r in range(rows):
            line = Text()
            for c in range(columns):
                i = c * rows + r
                if i < len(cells):
                    cell = cells[i].copy()
                    if c < columns - 1:
                        cell.pad_right(widest - cell.cell_len)
                    line.append_text(cell)
            lines.append(_one_line(line, width))
        return lines

    def ask(self) -> str:
        if self.by_number:
            numbers = [o["label"] for o in self.options if o["label"] != "done"]
            return f"Your answer ({_number_span(numbers)}; ? for help): "
        return f"Your choice (1-{len(self.options)}; ? for help): "

    def answer(self, text: str):
        """The option key `text` answers, or None."""
        if self.by_number:
            for option in self.options:
                if option["label"] == text or (text.lower() in ("d", "done") and option["label"] == "done"):
                    return option["key"]
            return None
        if text.isdigit() and 1 <= int(text) <= len(self.options):
            return self.options[int(text) - 1]["key"]
        return None

    def mistake(self) -> str:
        if self.by_number:
            numbers = [o["label"] for o in self.options if o["label"] != "done"]
            return f"Type a number: {_number_span(numbers)}; `?` lists the commands."
        return f"Type a number from 1 to {len(self.options)}; `?` lists the commands."


# ------------------------------------------------------------------------------------------ looking up
def _targets(view) -> list[tuple[str, str, object]]:
    """What `inspect` can show, as (name, kind, key): visible cards, zones (yours also by their bare
    label: `hand`), players."""
    about = view.get("about", {})
    found = [(details["name"], "card", card_id) for card_id, details in about.get("cards", {}).items()]
    for key, zone in _zones_in_order(view):
        found.append((zone["name"], "zone", key))
        if key.endswith(f":{view['you']}"):
            found.append((zone["name"].split("'s ", 1)[-1], "zone", key))
    found += [(player, "player", player) for player in view["players"]]
    return found


def _matches(word: str, names: list[str]) -> list[str]:
    """Names that `word` means: equal (any case), else starting with it, else holding it."""
    folded = word.casefold()
    for test in (
        lambda n: n.casefold() == folded,
        lambda n: n.casefold().startswith(folded),
        lambda n: folded in n.casefold(),
    ):
        hits = list(dict.fromkeys(n for n in names if test(n)))
        if hits:
            return hits
    return []


def _not_found(word: str, names: list[str], what: str) -> list[Text]:
    folded = {n.casefold(): n for n in names}
    close = suggestions.closest(word.casefold(), list(folded))
    hint = f" Did you mean `{folded[close]}`?" if close else ""
    return [_shown(f"No {what} named `{word}` is in sight.{hint}")]


def inspect(view, word: str) -> list[Text]:
    """The lines that `i WORD` prints: a card's details and where it lies, a zone's cards in full, or a
    player's counters and zones."""
    targets = _targets(view)
    names = [name for name, _, _ in targets]
    if not word:
        return [
            Text(
                "Type `i` and the name of a card, a zone or a player (a prefix will do): `i "
                + plain(names[0] if names else "hand")
                + "`."
            )
        ]
    hits = _matches(word, names)
    if not hits:
        return _not_found(word, names, "card, zone or player")
    if len(hits) > 1:
        return [
            _shown(
                f"`{word}` could be: {', '.join(hits[:12])}"
                + (" …" if len(hits) > 12 else "")
                + ". Type more of the name."
            )
        ]
    lines: list[Text] = []
    for name, kind, key in targets:
        if name != hits[0]:
            continue
        if kind == "card":
            lines += _card_lines(view, key)
        elif kind == "zone":
            lines += _zone_lines(view, key)
        else:
            lines += _player_lines(view, key)
    return lines


def _card_lines(view, card_id) -> list[Text]:
    details = view["about"]["cards"][card_id]
    kind = " · ".join([details.get("type", "")] + details.get("tags", [])).strip(" ·")
    lines = [Text.assemble(_shown(details["name"], "bold"), _shown(f" — {kind}" if kind else ""))]
    if details.get("back"):
        lines.append(_shown(f"  back: {details['back']}"))
    for field, label in (("cost", "cost"), ("requires", "requires")):
        if details.get(field):
            lines.append(_shown(f"  {label}: {', '.join(details[field])}"))
    numbers = [f"{name} {value}" for name, value in details.get("stats", {}).items()]
    numbers += [f"{name}: {value}" for name, value in details.get("refs", {}).items()]
    if numbers:
        lines.append(_shown("  " + " · ".join(numbers)))
    if details.get("text"):
        lines.append(_shown("  " + details["text"]))
    where = [
        zone["name"]
        for _, zone in _zones_in_order(view)
        if any(isinstance(c, dict) and c.get("id") == card_id for c in (zone.get("cards") or []))
        or isinstance(zone.get("top"), dict)
        and zone["top"].get("id") == card_id
    ]
    if where:
        lines.append(_shown("  in sight: " + "; ".join(where), "dim"))
    return lines


def _zone_lines(view, key) -> list[Text]:
    zone = view["zones"][key]
    lines = [Text.assemble(_shown(zone["name"], "bold"), f" — {zone['count']} card{'s' * (zone['count'] != 1)}")]
    cards = zone.get("cards")
    if "top" in zone:
        lines.append(_shown(f"  on top: {_card_text(zone['top'])}; the others face down"))
    elif cards:
        if _zone_type(view, key) == "pile":
            shown = [_card_text(c) for c in reversed(cards) if c is not None]
            lines.append(_shown("  from the top: " + ", ".join(shown)))
        elif None in cards or "hidden" in cards or _zone_type(view, key) == "row":
            lines.append(_shown("  in order: " + " · ".join(_card_text(c) for c in cards)))
        else:
            lines.append(_shown("  " + grouped([_card_text(c) for c in cards if c is not None])))
    elif zone["count"]:
        lines.append(Text("  all face down"))
    text = view.get("about", {}).get("zones", {}).get(key, {}).get("text")
    if text:
        lines.append(_shown("  " + text, "dim"))
    return lines


def _player_lines(view, player) -> list[Text]:
    names = view.get("counter_names", {})
    values = view["counters"].get(player, {})
    lines = [_shown(player + (" (you)" if player == view["you"] else ""), "bold")]
    if values:
        lines.append(
            _shown("  " + " · ".join(f"{names.get(c, c)} {counter_value(view, c, v)}" for c, v in values.items()))
        )
    for label, text in _player_zones(view).get(player, {}).items():
        lines.append(_shown(f"  {label}: {text}"))
    return lines


def why(view, word: str = "") -> list[Text]:
    """The lines that `why [NAME]` prints: each action left out of the menu and the first condition it
    failed (the view's `decision.unavailable`), or the one named."""
    decision = view.get("decision") or {}
    missing = decision.get("unavailable")
    if missing is None:
        if decision.get("kind") != "action":
            return [
                Text(
                    "`why` explains the actions missing from a turn's menu; this question offers every "
                    "answer the rules allow."
                )
            ]
        return [Text("This game gives no reasons for the actions missing from the menu.")]
    if not word:
        if not missing:
            return [Text("Every action of the game is on the menu.")]
        return [Text("Not on the menu:", "bold")] + [
            Text.assemble("  ", _shown(m["label"], "bold"), ": ", _shown(m["why"])) for m in missing
        ]
    on_menu = [o["label"] for o in decision.get("options", [])]
    hits = _matches(word, [m["label"] for m in missing])
    if hits:
        return [
            Text.assemble(_shown(m["label"], "bold"), ": ", _shown(m["why"])) for m in missing if m["label"] in hits
        ]
    offered = _matches(word, on_menu)
    if offered:
        return [_shown(f"`{label}` is on the menu: type {on_menu.index(label) + 1}.") for label in offered]
    return _not_found(word, [m["label"] for m in missing] + on_menu, "action")


def help_lines() -> list[Text]:
    widest = max(len(c) for c, _ in HELP)
    return [Text("Commands:", "bold")] + [Text(f"  {c:<{widest}}  {what}") for c, what in HELP]


CLEAR_SCREEN_AND_SCROLLBACK = "\x1b[H\x1b[2J\x1b[3J"


class HandOver:
    """Several people at one terminal (`knap play --human 1 --human 2`): between two different seats the
    screen and its scrollback are cleared and the keyboard is handed over ("Pass to P2 — press Enter"), so
    that nobody reads the previous seat's hand or choices. Shared by the seats' HumanAgents."""

    def __init__(self):
        self.last: str | None = None  # the seat that answered last at this terminal

    def to(self, seat: str, console: Console, stdin) -> None:
        if self.last is not None and seat != self.last:
            clear(console)
            console.print(Text(f"Pass to {seat} — press Enter", "bold"), end="")
            line = stdin.readline()
            if not line or line.strip().lower() in ("q", "quit", "exit"):
                raise KeyboardInterrupt
            clear(console)
        self.last = seat


def clear(console: Console) -> None:
    """Clear the screen and, where the terminal keeps one, its scrollback; elsewhere (a pipe) a plain
    separator line, so a transcript still shows where a seat's screen began."""
    if console.is_terminal:
        console.file.write(CLEAR_SCREEN_AND_SCROLLBACK)
        console.file.flush()
    else:
        console.print()


class HumanAgent:
    """Asks the person at the keyboard; reads answers and commands from `stdin` (a pseudo terminal or a
    pipe). `q`, Ctrl-C and the end of input raise KeyboardInterrupt: the caller saves the game. With
    `hand_over` (shared by the seats several people play at one terminal) the keyboard is handed over,
    behind a cleared screen, whenever another seat must answer."""

    name = "human"

    def __init__(
        self, console: Console | None = None, stdin=None, *, spectator: bool = False, hand_over: HandOver | None = None
    ):
        self.console = console or safe_console()
        self.stdin = stdin or sys.stdin
        self.spectator = spectator  # answers for the table (an oracle) without a seat of their own
        self.hand_over = hand_over
        self.seen = 0  # log lines shown at the last decision: the board shows the tail since then
        self.recent: list[str] = []

    def act(self, view, legal, model=None):
        if self.hand_over is not None:  # an oracle's question too: it shows the table as `view["you"]` sees it
            self.hand_over.to(view["you"], self.console, self.stdin)
        question = Question(view["decision"])
        height = self.console.height
        at_least = question.lines(self.console.width, max(QUESTION_ROOM, height // 3))  # room the question keeps
        board = Board(view, self.console, self.spectator, max_height=height - len(at_least) - 1)
        block = question.lines(self.console.width, height - board.height - 1)
        reserve = sum(len(self.console.render_lines(line, pad=False)) for line in block) + 1
        self.recent = view["log"][self.seen :]
        self._print_board(view, board, block, reserve, self.seen)
        self.seen = len(view["log"])
        while True:
            self.console.print(question.ask(), end="")
            line = self.stdin.readline()
            if not line:
                raise KeyboardInterrupt
            text = line.strip()
            key = question.answer(text)
            if key is not None:
                return key
            command, _, rest = text.partition(" ")
            command, rest = command.lower(), rest.strip()
            if command in ("q", "quit", "exit"):
                raise KeyboardInterrupt
            if command in ("?", "h", "help"):
                self._print(help_lines())
            elif command in ("i", "inspect"):
                self._print(inspect(view, rest))
            elif command == "why":
                self._print(why(view, rest))
            elif command == "log":
                self._print(self._log(view, rest))
            elif command in ("b", "board"):
                self._print_board(view, board, block, reserve, len(view["log"]) - len(self.recent))
            else:
                self.console.print(Text(question.mistake(), "red"))

    def _print_board(self, view, board, block, reserve, since):
        render(view, self.console, since=since, reserve=reserve, board=board)
        self._print(block)

    def _log(self, view, rest) -> list[Text]:
        lines = view["log"][-int(rest) :] if rest.isdigit() and int(rest) > 0 else self.recent or view["log"][-20:]
        return [_shown("  " + line) for line in lines] or [Text("The log is empty.")]

    def _print(self, lines):
        for line in lines:
            self.console.print(line)
