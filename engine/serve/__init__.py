"""`knap serve`: a playtest table in the browser, and a browser of packs.

The app (app.py) keeps its games in memory (tables.py) and draws every seat's page on the server from that
seat's view alone (pages.py), so nothing a seat may not see ever reaches its browser. The pack browser
(packs.py) shows every card of a pack, its prerequisite graph and the linter's findings, re-linted when a
file changes. Everything the pages need ships in `static/`: nothing is fetched from elsewhere.
"""
