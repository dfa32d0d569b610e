"""The HTML report of one run or of several side by side (`knap report`): one page that needs nothing else.

Plots are PNG images inside the page (`data:` addresses), the style sheet is in the page, and nothing is fetched: the
file can be mailed, archived or opened offline. Every text that comes from a run or a pack (card, action, agent, seat,
pack and run names, end reasons) is escaped (`html.escape`): a pack is a stranger's file, and a card named
`<script>` is shown as those eight characters. The same runs give the same page, byte for byte (balance.plots).
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from html import escape

from engine.runtime.sim import newcombe

from . import plots

MOST = 10  # cards shown at each end of the impact ranking
ROUND_SHARE = 0.1  # the score plot stops at the last round a tenth of the games reached


@dataclass
class RunReport:
    """One run as the report shows it: its name, its description (`run.json`), its summary and its statistics."""

    name: str
    meta: dict
    summary: dict | None
    stats: dict

    def about(self, key: str, default=None):
        """A fact of the run: from its description, else its summary."""
        if self.meta.get(key) is not None:
            return self.meta[key]
        return (self.summary or {}).get(key, default)

    @property
    def pack(self) -> str:
        """The pack's id: run.json describes the pack by its id, folder and hash (balance.runs); the summary names it."""
        described = self.meta.get("pack")
        if isinstance(described, dict) and described.get("id") is not None:
            return str(described["id"])
        return str((self.summary or {}).get("pack", "?"))


def render(runs: list[RunReport], differences: bool = False) -> str:
    """The whole page for these runs (several: side by side, each plot one series a run); `differences`: each seat's
    win rate in each run but the first minus the first's, with Newcombe's 95 % interval, in the headline table."""
    names = _names(runs)
    series = [(name, run.stats) for name, run in zip(names, runs, strict=True)]
    packs = sorted({run.pack for run in runs})
    title = f"Balance report: {', '.join(packs)}"
    body = [
        f"<header><h1>{escape(title)}</h1><p class='runs'>{_runs_line(names, runs)}</p></header>",
        _headline(names, runs, differences),
        "<section id='plots'><h2>Plots</h2><div class='grid'>",
        *_figures(series, runs),
        "</div></section>",
        _cards(names, runs),
        _actions(names, runs),
        _definitions(),
    ]
    return (
        "<!doctype html>\n<html lang='en'>\n<head>\n<meta charset='utf-8'>\n"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>\n"
        f"<title>{escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def _names(runs: list[RunReport]) -> list[str]:
    """Each run's name, made unique by its place when two folders share a name."""
    names = [run.name for run in runs]
    return [name if names.count(name) == 1 else f"{i + 1}. {name}" for i, name in enumerate(names)]


def _runs_line(names: list[str], runs: list[RunReport]) -> str:
    parts = []
    for name, run in zip(names, runs, strict=True):
        agents = run.about("agents") or []
        who = ", ".join(str(a) for a in agents) if isinstance(agents, list) else str(agents)
        parts.append(
            f"<b>{escape(name)}</b>: {escape(run.pack)}, {escape(str(run.about('players', '?')))} "
            f"players ({escape(who)}), {run.stats['games']:,} games from seed {escape(str(run.about('seed', '?')))}"
        )
    return "<br>".join(parts)


# ------------------------------------------------------------------------------------------------ plots
def _figures(series, runs: list[RunReport]) -> list[str]:
    unit = str(runs[0].about("length_unit") or "turns")
    counter = str(runs[0].about("score_counter") or "score")
    many = len(series) > 1
    figures = [
        _figure(
            "win-rate-seat",
            plots.win_rates(series, "seats", "Win rate by seat"),
            "Win rate of each seat with its 95 % Wilson interval (a shared win counts 1/k to each of its k winners)"
            + ("; one colour per run." if many else "; the dashed line is an even share."),
        ),
        _figure(
            "win-rate-agent",
            plots.win_rates(series, "agents", "Win rate by agent"),
            "Win rate of each agent over the seats it played, with its 95 % Wilson interval.",
        ),
    ]
    if any(result["score_by_round"]["rounds"] for _name, result in series):
        figures.append(
            _figure(
                "score-by-round",
                plots.score_by_round(series, counter, unit, ROUND_SHARE),
                f"Mean {escape(counter)} of each seat at the end of each round (a pass of the seats), over the games "
                f"that reached it; rounds fewer than {100 * ROUND_SHARE:.0f} % of the games reached are left out.",
            )
        )
    else:
        figures.append(_empty("score-by-round", "Score by round", "The pack has no score counter: no score track."))
    figures.append(
        _figure(
            "length",
            plots.histogram(series, "length", "Game length", unit),
            f"Games by their length in {escape(unit)}; the dashed line is the median.",
        )
    )
    if any(result["margin"].get("n") for _name, result in series):
        figures.append(
            _figure(
                "margin",
                plots.histogram(series, "margin", "Winning margin", f"winner's {counter} − best other's"),
                f"Games by the best winner's {escape(counter)} minus the best of the other seats'; the dashed line is "
                "the median.",
            )
        )
    else:
        figures.append(_empty("margin", "Winning margin", "No game has a margin: no score counter, or no winner."))
    figures.append(
        _figure(
            "card-impact",
            plots.impact(series, lambda r: r["cards"]["table"], "card", "Card impact", MOST),
            f"Win rate of the seats that {_basis(series)} a card minus that of the seats that did not, with Newcombe's "
            f"95 % interval: the {MOST} highest and lowest"
            + (" of each run" if many else ", green or red when the interval excludes 0")
            + f". Cards in fewer than {series[0][1]['cards']['min_games']} seat-games on either side are left out.",
            wide=True,
        )
    )
    figures.append(
        _figure(
            "action-impact",
            plots.impact(series, lambda r: r["actions"], "action", "Action impact", MOST),
            "Win rate of the seats that took an action more often than the median seat (zeros included) minus that of "
            "the others, with Newcombe's 95 % interval.",
            wide=True,
        )
    )
    return figures


def _basis(series) -> str:
    """What having a card meant, as a verb: "took" (or "drew", in a pack where nothing is taken)."""
    verbs = {"taken": "took", "drawn": "drew"}
    return " or ".join(sorted({verbs.get(result["cards"]["basis"], "had") for _name, result in series}))


def _figure(name: str, png: bytes, caption: str, wide: bool = False) -> str:
    """A plot in its `<figure>`, the image inside the page; `caption` is HTML (its pack texts escaped)."""
    data = base64.b64encode(png).decode("ascii")
    classes = "plot wide" if wide else "plot"
    return (
        f"<figure id='plot-{name}' class='{classes}' data-plot='{name}'>"
        f"<img src='data:image/png;base64,{data}' alt='{escape(name)} plot'>"
        f"<figcaption>{caption}</figcaption></figure>"
    )


def _empty(name: str, title: str, why: str) -> str:
    return (
        f"<figure id='plot-{name}' class='plot empty' data-plot='{name}'><p>{escape(why)}</p>"
        f"<figcaption>{escape(title)}</figcaption></figure>"
    )


# ------------------------------------------------------------------------------------------------ tables
def _percent(rate) -> str:
    return "–" if rate is None else f"{100 * rate:.1f} %"


def _interval(ci) -> str:
    return "" if not ci else f" <span class='ci'>[{100 * ci[0]:.1f}, {100 * ci[1]:.1f}]</span>"


def _signed(value, ci) -> str:
    if value is None:
        return "–"
    text = f"{100 * value:+.1f} pts"
    if ci:
        text += f" <span class='ci'>[{100 * ci[0]:+.1f}, {100 * ci[1]:+.1f}]</span>"
    return text


def _headline(names: list[str], runs: list[RunReport], differences: bool) -> str:
    rows: list[tuple[str, list[str]]] = []
    stats = [run.stats for run in runs]
    units = [escape(str(run.about("length_unit") or "turns")) for run in runs]
    rows.append(("Pack", [escape(run.pack) for run in runs]))
    rows.append(("Players", [escape(str(run.about("players", "?"))) for run in runs]))
    rows.append(
        (
            "Games played",
            [f"{s['played']:,} of {s['games']:,} ({s['stalled']} stalled, {s['errors']} errors)" for s in stats],
        )
    )
    rows.append(
        (
            "Game length",
            [_length(s["length"], unit) for s, unit in zip(stats, units, strict=True)],
        )
    )
    rows.append(("Winning margin", [_length(s["margin"], "") for s in stats]))
    rows.append(
        (
            "First player's win rate",
            [
                f"{_percent(f['win_rate'])}{_interval(f['ci95'])} vs {_percent(f['expected'])}"
                for f in (s["first_player"] for s in stats)
            ],
        )
    )
    rows.append(
        (
            "First-player advantage",
            [_signed(f["advantage"], f.get("advantage_ci95")) + _flag(f) for f in (s["first_player"] for s in stats)],
        )
    )
    for seat in _seat_names(stats):
        rows.append((f"{escape(seat)} win rate", [_seat_rate(s, seat) for s in stats]))
    for agent in sorted({row["agent"] for s in stats for row in s["agents"]}):
        rows.append((f"Agent {escape(agent)}", [_agent_rate(s, agent) for s in stats]))
    rows.append(("Endings", [_endings(s) for s in stats]))
    if differences and len(runs) > 1:
        for seat in _seat_names(stats):
            rows.append(
                (
                    f"{escape(seat)} vs {escape(names[0])}",
                    ["–"] + [_difference(stats[0], s, seat) for s in stats[1:]],
                )
            )
    head = "".join(f"<th scope='col'>{escape(name)}</th>" for name in names)
    lines = "".join(
        f"<tr><th scope='row'>{label}</th>{''.join(f'<td>{cell}</td>' for cell in cells)}</tr>" for label, cells in rows
    )
    return (
        "<section id='headline'><h2>Headline numbers</h2>"
        f"<table class='headline'><thead><tr><th></th>{head}</tr></thead><tbody>{lines}</tbody></table>"
        "<p class='note'>Rates with their 95 % interval in brackets. Only played games count: not stalled, not "
        "stopped by an error.</p></section>"
    )


def _flag(row: dict) -> str:
    """The mark of an interval that excludes 0, but on a row of too few games to say much."""
    return " <span class='sig'>significant</span>" if row.get("significant") and not row.get("few") else ""


def _length(spread: dict, unit: str) -> str:
    if not spread.get("n"):
        return "–"
    unit = f" {unit}" if unit else ""
    return (
        f"median {spread['median']}{unit}, mean {spread['mean']:.1f} "
        f"<span class='ci'>(10–90 %: {spread['p10']}–{spread['p90']}, range {spread['min']}–{spread['max']})</span>"
    )


def _seat_names(stats: list[dict]) -> list[str]:
    names: list[str] = []
    for s in stats:
        names += [row["seat"] for row in s["seats"] if row["seat"] not in names]
    return names


def _seat_rate(stats: dict, seat: str) -> str:
    row = next((r for r in stats["seats"] if r["seat"] == seat), None)
    return "–" if row is None else _percent(row["win_rate"]) + _interval(row["ci95"])


def _agent_rate(stats: dict, agent: str) -> str:
    row = next((r for r in stats["agents"] if r["agent"] == agent), None)
    if row is None:
        return "–"
    return f"{_percent(row['win_rate'])}{_interval(row['ci95'])} <span class='ci'>({row['games']:,} seats)</span>"


def _endings(stats: dict) -> str:
    played = stats["played"] or 1
    ordered = sorted(stats["endings"].items(), key=lambda item: (-item[1], item[0]))
    return "<br>".join(f"{escape(reason)} {100 * n / played:.1f} %" for reason, n in ordered) or "–"


def _difference(a: dict, b: dict, seat: str) -> str:
    """B's win rate at `seat` minus A's, with Newcombe's 95 % interval."""
    row_a = next((r for r in a["seats"] if r["seat"] == seat), None)
    row_b = next((r for r in b["seats"] if r["seat"] == seat), None)
    if row_a is None or row_b is None:
        return "–"
    estimate = newcombe(row_a["wins"], row_a["games"], row_b["wins"], row_b["games"])
    if estimate is None:
        return "–"
    d, low, high = estimate
    return _signed(d, [low, high]) + _flag({"significant": low > 0 or high < 0})


def _cards(names: list[str], runs: list[RunReport]) -> str:
    parts = ["<section id='cards'><h2>Cards</h2>"]
    for index, (name, run) in enumerate(zip(names, runs, strict=True)):
        cards = run.stats["cards"]
        rows = sorted(cards["table"], key=lambda r: (r["few"], r["impact"] is None, -(r["impact"] or 0), r["card"]))
        lines = "".join(
            f"<tr{' class=few' if row['few'] else ''}><th scope='row'>{escape(row['card'])}</th>"
            f"<td>{row['games']:,}</td><td>{_number(row['drawn_per_game'])}</td>"
            f"<td>{_number(row['taken_per_game'])}</td><td>{_number(row['used_per_game'])}</td>"
            f"<td>{_percent(row['with']['win_rate'])} <span class='ci'>({row['with']['games']:,})</span></td>"
            f"<td>{_percent(row['without']['win_rate'])}</td>"
            f"<td>{_signed(row['impact'], row['impact_ci95'])}{_flag(row)}</td></tr>"
            for row in rows
        )
        parts.append(
            f"<details{' open' if index == 0 else ''}><summary>{escape(name)}: {len(rows)} cards, impact by "
            f"{escape(cards['basis'])}</summary><table class='cards'><thead><tr><th scope='col'>card</th>"
            "<th scope='col'>games seen</th><th scope='col'>drawn / game</th><th scope='col'>taken / game</th>"
            f"<th scope='col'>used / game</th><th scope='col'>win rate {escape(cards['basis'])} (seats)</th>"
            "<th scope='col'>without</th><th scope='col'>impact</th></tr></thead>"
            f"<tbody>{lines}</tbody></table></details>"
        )
    parts.append(
        "<p class='note'>Greyed rows: fewer than the minimum of seat-games on one side; their impact says little. "
        "An impact is an association, not a cause.</p></section>"
    )
    return "".join(parts)


def _actions(names: list[str], runs: list[RunReport]) -> str:
    parts = ["<section id='actions'><h2>Actions</h2>"]
    for index, (name, run) in enumerate(zip(names, runs, strict=True)):
        rows = run.stats["actions"]
        lines = "".join(
            f"<tr{' class=few' if row['few'] else ''}><th scope='row'>{escape(row['action'])}</th>"
            f"<td>{row['times']:,}</td><td>{_number(row['per_game'])}</td><td>{row['seat_games']:,}</td>"
            f"<td>{row['median']}</td><td>{_percent(row['with']['win_rate'])} "
            f"<span class='ci'>({row['with']['games']:,})</span></td><td>{_percent(row['without']['win_rate'])}</td>"
            f"<td>{_signed(row['impact'], row['impact_ci95'])}{_flag(row)}</td></tr>"
            for row in rows
        )
        parts.append(
            f"<details{' open' if index == 0 else ''}><summary>{escape(name)}: {len(rows)} actions</summary>"
            "<table class='actions'><thead><tr><th scope='col'>action</th><th scope='col'>times</th>"
            "<th scope='col'>per game</th><th scope='col'>seats that took it</th><th scope='col'>median a seat</th>"
            "<th scope='col'>win rate above the median (seats)</th><th scope='col'>the others</th>"
            f"<th scope='col'>impact</th></tr></thead><tbody>{lines}</tbody></table></details>"
        )
    if not any(run.stats["actions"] for run in runs):
        parts.append("<p class='note'>No action of the pack's menus was taken in these games.</p>")
    parts.append("</section>")
    return "".join(parts)


def _number(value) -> str:
    return "–" if value is None else f"{value:.2f}"


def _definitions() -> str:
    return (
        "<section id='definitions'><h2>Definitions</h2><dl>"
        "<dt>drawn</dt><dd>a card came from a zone nobody sees (a hidden deck or bag) into a seat's zones or play "
        "area; the setup's deals count.</dd>"
        "<dt>taken</dt><dd>a card came, by the seat's own act, into one of its zones from a zone that was not its own "
        "(a market, a discard pile, another seat's hand, a deck, its play area); the setup is left out.</dd>"
        "<dt>used</dt><dd>a card left one of the seat's zones by its own act, for a zone no seat owns (spent, "
        "discarded, played to the table) or for another of its zones that everyone sees from one they did not "
        "(played from a hand to a tableau).</dd>"
        "<dt>impact</dt><dd>the win rate of the seats that had a card (took it; drew it in a pack where nothing is "
        "taken) or that took an action more often than the median seat, minus the win rate of the others, with "
        "Newcombe's 95 % interval. Significant: the interval excludes 0.</dd>"
        "<dt>first-player advantage</dt><dd>the win rate of the seat that took the first turn minus an even share "
        "(1/players).</dd></dl><p class='note'>docs/balance.md says more.</p></section>"
    )


STYLE = """
:root { --ink: #1f2328; --muted: #656d76; --line: #d0d7de; --panel: #f6f8fa; --accent: #3b6ea5; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1560px; padding: 24px 32px 48px; color: var(--ink); background: #fff;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; }
h1 { font-size: 26px; margin: 0 0 6px; }
h2 { font-size: 19px; margin: 32px 0 12px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
.runs { color: var(--muted); margin: 0; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 5px 12px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
thead th { background: var(--panel); font-weight: 600; }
tbody th { font-weight: 600; white-space: nowrap; }
table.headline td { min-width: 260px; }
.ci { color: var(--muted); font-size: 13px; }
.sig { background: #fff4d6; color: #7a5200; border-radius: 4px; padding: 0 5px; font-size: 12px; }
tr.few { color: var(--muted); }
.note { color: var(--muted); font-size: 13px; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(600px, 1fr)); gap: 20px; align-items: start; }
figure.plot { margin: 0; padding: 12px; border: 1px solid var(--line); border-radius: 8px; background: #fff; }
figure.plot img { display: block; width: 100%; max-width: 720px; height: auto; margin: 0 auto; }
figure.empty p { color: var(--muted); font-style: italic; margin: 24px 8px; }
figcaption { color: var(--muted); font-size: 13px; margin-top: 8px; }
details { margin: 10px 0; }
summary { cursor: pointer; font-weight: 600; margin-bottom: 8px; }
dt { font-weight: 600; margin-top: 8px; }
dd { margin: 2px 0 0 20px; }
"""
