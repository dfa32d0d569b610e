"""`knap report`'s page in a real browser: Debian's headless Chromium (/usr/bin/chromium) driven by playwright opens
the report of a run of a few hundred random Cro-Magnon games from its file, with the network refused, and every plot
has loaded. A screenshot goes to $KNAP_SCREENSHOTS (default /tmp) as report.png.

The browser is required, as in tests/test_serve_browser.py; only KNAP_SKIP_BROWSER=1 skips these tests."""

from __future__ import annotations

import pytest
from balance_runs import make_run
from test_report import PLOTS
from test_serve_browser import CHROMIUM, FLAGS, SHOTS, WAIT_MS, _need_browser

pytestmark = pytest.mark.slow

GAMES = 300


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    _need_browser()
    from engine.commands.cli import main

    folder = make_run(tmp_path_factory.mktemp("runs") / "cro-magnon-random", games=GAMES, players=3)
    target = folder.parent / "report.html"
    assert main(["report", str(folder), "-o", str(target)]) == 0
    return target


def test_every_plot_loads_in_the_browser(report):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            fetched: list[str] = []
            page.route("**/*", lambda route: (fetched.append(route.request.url), route.continue_()))
            page.goto(report.as_uri(), wait_until="load", timeout=WAIT_MS)
            images = page.evaluate(
                "Array.from(document.querySelectorAll('figure[data-plot] img')).map(i => "
                "({plot: i.closest('figure').dataset.plot, complete: i.complete, width: i.naturalWidth}))"
            )
            assert [i["plot"] for i in images] == PLOTS
            assert all(i["complete"] and i["width"] > 0 for i in images), images
            assert fetched == [report.as_uri()]  # the page alone: nothing else was fetched
            assert page.title() == "Balance report: cro_magnon"
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / "report.png"), full_page=True)
        finally:
            browser.close()
