"""The report's plots: matplotlib figures of a run's statistics (balance.stats), each drawn as PNG bytes.

matplotlib is an optional extra (`pip install 'knapper[report]'`): `require` says so in one line when it is missing.
The same statistics give the same bytes: matplotlib's Agg backend, chosen here, with its default style (never the
user's matplotlibrc), fixed figure sizes and no metadata in the files. Text from a pack (card and action ids, seat
and run names) is drawn as plain text: `text.parse_math` is off, so a `$` in a card's id is a dollar sign.

Each plot takes a list of series, one per run: `(name, result)` with `result` from `Stats.result()`.
"""

from __future__ import annotations

import io
import warnings
from contextlib import contextmanager

INSTALL = "pip install 'knapper[report]'"
COLOURS = ("#3b6ea5", "#d9822b", "#4f9a5b", "#b8474d", "#7d62a8", "#8c6d4f", "#c86fa8", "#6f6f6f")
POSITIVE, NEGATIVE, NEUTRAL = "#3f8f4f", "#b8474d", "#8a8a8a"
DPI = 100
WIDE, TALL = (7.2, 3.6), (7.2, 6.4)  # inches at DPI: 720 x 360 and 720 x 640 pixels
LABEL = 36  # characters of an id shown on an axis
_RC = {
    "text.parse_math": False,
    "svg.hashsalt": "knap-report",
    "figure.dpi": DPI,
    "savefig.dpi": DPI,
    "font.family": "DejaVu Sans",  # shipped with matplotlib: the same glyphs on every machine
    "font.size": 9.5,
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.35,
    "grid.linewidth": 0.6,
    "legend.frameon": False,
    "figure.facecolor": "white",
}


class MissingMatplotlib(RuntimeError):
    """matplotlib is not installed: the report cannot be drawn."""


def require() -> None:
    """Load matplotlib with the Agg backend, or raise MissingMatplotlib naming the extra to install."""
    try:
        import matplotlib
    except ImportError:
        raise MissingMatplotlib(
            f"`knap report` draws its plots with matplotlib, which is not installed: {INSTALL}"
        ) from None
    matplotlib.use("Agg", force=True)  # no window, no display: the same PNG everywhere


@contextmanager
def _drawing():
    """matplotlib's default style and ours, whatever the user's settings; warnings (a glyph a font lacks) kept quiet."""
    import matplotlib.style

    with warnings.catch_warnings(), matplotlib.style.context("default"), matplotlib.rc_context(_RC):
        warnings.simplefilter("ignore")
        yield


def _figure(size=WIDE, columns: int = 1):
    from matplotlib.figure import Figure

    figure = Figure(figsize=size, dpi=DPI, layout="constrained")
    axes = figure.subplots(1, columns, sharey=True, squeeze=False)[0]
    return figure, list(axes)


def _png(figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def short(text: str) -> str:
    """An id cut to fit an axis."""
    return text if len(text) <= LABEL else text[: LABEL - 1] + "…"


def _colour(index: int) -> str:
    return COLOURS[index % len(COLOURS)]


def _offsets(count: int, width: float) -> list[float]:
    return [(i - (count - 1) / 2) * width for i in range(count)]


# ---------------------------------------------------------------------------------------------- win rates
def win_rates(series: list[tuple[str, dict]], key: str, title: str) -> bytes:
    """Bars of the win rate of each seat (`key` "seats") or agent ("agents"), with their 95 % intervals; the
    dashed line is an even share (1/players) when every run has one player count."""
    with _drawing():
        figure, (axes,) = _figure()
        names = _union(series, key, key[:-1])
        width = 0.8 / len(series)
        for index, (offset, (run, result)) in enumerate(zip(_offsets(len(series), width), series, strict=True)):
            rows = {row[key[:-1]]: row for row in result[key]}
            xs, ys, low, high = [], [], [], []
            for position, name in enumerate(names):
                row = rows.get(name)
                if row is None or row["win_rate"] is None:
                    continue
                xs.append(position + offset)
                ys.append(row["win_rate"])
                low.append(row["win_rate"] - row["ci95"][0])
                high.append(row["ci95"][1] - row["win_rate"])
            label = short(run) if len(series) > 1 else None
            axes.bar(xs, ys, width * 0.92, color=_colour(index), label=label, yerr=[low, high], capsize=4)
        even = {1 / int(n) for _run, result in series for n in result["players"] if int(n)}
        if len(even) == 1 and key == "seats":
            axes.axhline(even.pop(), color="#444444", linestyle="--", linewidth=1, label="even share")
        axes.set_xticks(range(len(names)), [short(n) for n in names])
        axes.set_xlim(-0.75, len(names) - 0.25)
        axes.set_ylabel("win rate")
        axes.set_ylim(0, max(0.05, min(1.0, _top(series, key) * 1.15)))
        axes.set_title(title)
        if len(series) > 1 or key == "seats":
            axes.legend(loc="upper right", fontsize=8)
        return _png(figure)


def _union(series, key: str, field: str) -> list[str]:
    """The names of every run's rows, in the first run's order and then the others' new ones."""
    names: list[str] = []
    for _run, result in series:
        names += [row[field] for row in result[key] if row[field] not in names]
    return names


def _top(series, key: str) -> float:
    return max((row["ci95"][1] for _run, result in series for row in result[key]), default=1.0)


# ---------------------------------------------------------------------------------------------- score by round
def score_by_round(series: list[tuple[str, dict]], counter: str, unit: str, share: float) -> bytes:
    """The mean score of each seat after each round, one panel per run; rounds that fewer than `share` of the
    played games reached are left out (their mean is a handful of long games')."""
    from matplotlib.ticker import MaxNLocator

    with _drawing():
        figure, panels = _figure(WIDE, len(series))
        for axes, (run, result) in zip(panels, series, strict=True):
            track = result["score_by_round"]
            floor = max(1, share * result["played"])
            kept = [i for i, games in enumerate(track["games"]) if games >= floor]
            rounds = [track["rounds"][i] for i in kept]
            for index, (seat, means) in enumerate(track["seats"].items()):
                axes.plot(rounds, [means[i] for i in kept], color=_colour(index), label=seat, linewidth=1.6)
            axes.set_xlabel("round")
            axes.xaxis.set_major_locator(MaxNLocator(integer=True))
            axes.set_title(short(run) if len(series) > 1 else f"Mean {counter} after each round")
            axes.legend(loc="upper left", fontsize=8)
        panels[0].set_ylabel(f"mean {counter}")
        if len(series) > 1:
            figure.suptitle(f"Mean {counter} after each round", fontweight="bold", fontsize=11)
        return _png(figure)


# ---------------------------------------------------------------------------------------------- histograms
def histogram(series: list[tuple[str, dict]], key: str, title: str, xlabel: str) -> bytes:
    """How many games had each value of `key` ("length", "margin"), in bins of equal width shared by the runs (one
    value a bin when there are few): bars for one run; for several, each run's share of its games as an outline
    (runs of different sizes compare). The dashed lines are the medians."""
    from matplotlib.ticker import MaxNLocator

    with _drawing():
        figure, (axes,) = _figure()
        single = len(series) == 1
        edges = _edges([int(v) for _run, result in series for v in result[key].get("counts") or {}])
        for index, (run, result) in enumerate(series):
            counts = result[key].get("counts") or {}
            heights = [0] * (len(edges) - 1)
            width = edges[1] - edges[0] if len(edges) > 1 else 1
            for value, n in counts.items():
                heights[(int(value) - edges[0]) // width] += n
            if single:
                axes.bar(
                    edges[:-1], heights, width, align="edge", color=_colour(index), edgecolor="white", linewidth=0.5
                )
            else:
                total = sum(heights) or 1
                shares = [h / total for h in heights]
                axes.stairs(shares, edges, color=_colour(index), linewidth=1.6, label=short(run))
            spread = result[key]
            if spread.get("n"):
                axes.axvline(spread["median"] + 0.5, color=_colour(index), linestyle="--", linewidth=1.2)
        axes.set_xlabel(
            xlabel + (f" (bins of {edges[1] - edges[0]})" if len(edges) > 1 and edges[1] - edges[0] > 1 else "")
        )
        axes.set_ylabel("games" if single else "share of games")
        if single:
            axes.yaxis.set_major_locator(MaxNLocator(integer=True))
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.set_title(title)
        if not single:
            axes.legend(loc="upper right", fontsize=8)
        return _png(figure)


BINS = 40  # at most so many bins in a histogram


def _edges(values: list[int]) -> list[int]:
    """The edges of bins of one width covering every value (a value v lies in [v, v + 1)): one value a bin up to
    BINS values, wider bins beyond."""
    if not values:
        return [0, 1]
    low, high = min(values), max(values) + 1
    width = max(1, -(-(high - low) // BINS))
    return list(range(low, high + width, width))[: -(-(high - low) // width) + 1]


# ---------------------------------------------------------------------------------------------- impact
def impact(series: list[tuple[str, dict]], rows_of, name: str, title: str, most: int) -> bytes:
    """Each thing's impact (win rate with it minus without, with Newcombe's 95 % interval) as a point and a bar,
    the largest first: the `most` highest and `most` lowest of the first run (and those of the other runs), one
    colour a run; for one run, green or red where the interval excludes 0. `rows_of(result)` gives the rows (with
    `name`, `impact`, `impact_ci95`, `few`)."""
    with _drawing():
        chosen: list[str] = []
        for _run, result in series:
            ranked = sorted(
                (r for r in rows_of(result) if r["impact"] is not None and not r["few"]),
                key=lambda r: (-r["impact"], r[name]),
            )
            picked = ranked if len(ranked) <= 2 * most else ranked[:most] + ranked[-most:]
            chosen += [r[name] for r in picked if r[name] not in chosen]
        first = {r[name]: r for r in rows_of(series[0][1])}
        chosen.sort(key=lambda n: (first[n]["impact"] if n in first and first[n]["impact"] is not None else 0, n))
        height = max(2.4, min(TALL[1] * 1.6, 0.9 + 0.26 * len(chosen) * max(1, len(series) ** 0.5)))
        figure, (axes,) = _figure((TALL[0], height))
        step = 0.7 / len(series)
        for index, (offset, (run, result)) in enumerate(zip(_offsets(len(series), step), series, strict=True)):
            rows = {r[name]: r for r in rows_of(result)}
            label: str | None = short(run)  # on the run's first point only
            for position, thing in enumerate(chosen):
                row = rows.get(thing)
                if row is None or row["impact"] is None or row["impact_ci95"] is None:
                    continue
                low, high = row["impact_ci95"]
                colour = _colour(index)
                if len(series) == 1:
                    colour = POSITIVE if low > 0 else NEGATIVE if high < 0 else NEUTRAL
                axes.errorbar(
                    row["impact"],
                    position + offset,
                    xerr=[[row["impact"] - low], [high - row["impact"]]],
                    fmt="o",
                    color=colour,
                    markersize=4,
                    capsize=2,
                    linewidth=1.2,
                    label=label,
                )
                label = None
        axes.axvline(0, color="#444444", linewidth=0.8)
        axes.set_yticks(range(len(chosen)), [short(n) for n in chosen])
        axes.set_ylim(-0.7, len(chosen) - 0.3)
        axes.set_xlabel("win rate with − without")
        axes.set_title(title)
        if not chosen:
            axes.text(
                0.5,
                0.5,
                "none in enough seat-games both with it and without it",
                ha="center",
                va="center",
                transform=axes.transAxes,
            )
        if len(series) > 1:
            axes.legend(loc="lower right", fontsize=8)
        return _png(figure)
