"""`knap serve` without a browser (Starlette's TestClient): starting games, a seat's page drawn from that seat's
view only, answers and undo, save and load, the replay log, the checks every request passes, the pack browser.
The browser itself is driven in test_serve_browser.py."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from scenario import ROOT, saved_and_loaded
from starlette.testclient import TestClient

from engine.runtime import session
from engine.runtime.game import Game
from engine.serve.app import create_app
from engine.serve.pages import card, esc

PACKS = [ROOT / "content" / "cro-magnon", ROOT / "content" / "neolithibum"]


@pytest.fixture(scope="module")
def app():
    return create_app(PACKS)


@pytest.fixture
def client(app):
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        yield client


def start(client, pack="cro-magnon", seats="human,random", seed="7", **extra):
    answer = client.post(
        "/new", data={"pack": pack, "seats": seats, "seed": seed, "max_rounds": "500", **extra}, follow_redirects=False
    )
    assert answer.status_code == 303, answer.text
    table_id = answer.headers["location"].rsplit("/", 1)[-1]
    table = client.app.state.tables.get(table_id)
    table.settle()
    return table


def seat_url(table, seat):
    return f"/s/{table.tokens[seat]}"


def options(page_html: str) -> list[tuple[int, str]]:
    return [
        (int(k), label)
        for k, label in re.findall(r"<button name='key' value='(\d+)' class='option'>([^<]*)<", page_html)
    ]


def mark_of(page_html: str) -> str:
    return re.search(r"name='d' value='([0-9a-f]+)'", page_html).group(1)


def test_a_new_game_gives_each_person_a_page_and_lets_the_bots_play(client):
    """A game of one person and one bot: the host page links to the person's page only; the person's page
    asks the question of `view(seat)` with its options as buttons."""
    table = start(client)
    host = client.get(f"/t/{table.id}").text
    assert seat_url(table, "P1") in host and seat_url(table, "P2") not in host
    page = client.get(seat_url(table, "P1")).text
    view = table.game.view("P1")
    assert [label for _, label in options(page)] == [esc(o["label"]) for o in view["decision"]["options"]]
    assert client.get(seat_url(table, "P2")).status_code == 404  # a bot's seat has no page


def test_a_seat_page_is_drawn_from_that_seats_view_alone(client):
    """Others' hands are counts: no card of P2's hand is drawn on P1's page, and a counter P1 may not read
    shows as `?` (the view's own)."""
    table = start(client, pack="neolithibum", seats="human,human,human")
    page = client.get(seat_url(table, "P1")).text
    for key, entry in table.game.view("P1")["zones"].items():
        if key.endswith(":P2") and entry["count"]:
            block = page.split(f"data-zone='{key}'", 1)[1].split("</div></div>", 1)[0]
            assert "class='card'" not in block and "face down" in block
    assert re.search(r"data-owner='P2' data-counter='meals'>Meals <b>\?</b>", page)
    assert re.search(r"data-owner='P1' data-counter='meals'>Meals <b>\d+</b>", page)


def test_answers_are_checked_and_applied(client):
    """An answer is one of the seat's legal options for the question its page shows; anything else is refused
    with the reason on the page, and the game is left as it was."""
    table = start(client)
    url = seat_url(table, "P1")
    mark = mark_of(client.get(url).text)
    before = len(table.game.history)
    legal = table.game.legal("P1")
    for bad in ({"key": "999", "d": mark}, {"key": "x"}, {"key": str(legal[0]), "d": "0123456789abcdef"}):
        refused = client.post(f"{url}/answer", data=bad, follow_redirects=False)
        assert refused.status_code == 409 and "class='notice'" in refused.text
    assert len(table.game.history) == before
    done = client.post(f"{url}/answer", data={"key": str(legal[0]), "d": mark}, follow_redirects=False)
    assert done.status_code == 303
    table.settle()
    assert table.game.history[before] == ["P1", legal[0]]


def test_requests_from_other_sites_and_unknown_addresses_are_refused(client):
    table = start(client)
    url = seat_url(table, "P1")
    key = str(table.game.legal("P1")[0])
    foreign = client.post(f"{url}/answer", data={"key": key}, headers={"Origin": "http://evil.example"})
    assert foreign.status_code == 403
    assert client.get("/s/not-a-token").status_code == 404
    assert client.post("/s/not-a-token/answer", data={"key": "0"}).status_code == 404
    assert client.get("/t/nope").status_code == 404
    assert client.get(f"/t/{table.id}/secrets").status_code == 404
    assert client.get("/pack/nope").status_code == 404
    bad = client.post("/new", data={"pack": "cro-magnon", "seats": "human,wizard", "seed": "1"})
    assert bad.status_code == 400 and "wizard" in bad.text
    assert client.post("/new", data={"pack": "cro-magnon", "seats": "human", "seed": "1"}).status_code == 400
    assert client.post("/new", data={"pack": "cro-magnon", "seats": "human,random", "seed": "-1"}).status_code == 400


def test_undo_goes_back_to_my_last_decision_on_a_new_branch(client):
    """Undo restores the game as it was when the seat last decided (Game.load of its save) and keeps the
    answers given since as a branch left behind."""
    table = start(client, seats="human,random", seed="3")
    url = seat_url(table, "P1")
    asked_at = table.game.save()
    first = table.game.legal("P1")[-1]
    mark = mark_of(client.get(url).text)
    client.post(f"{url}/answer", data={"key": str(first), "d": mark})
    table.settle()
    assert table.game.save() != asked_at
    page = client.get(url).text
    assert "id='undo'" in page
    client.post(f"{url}/undo")
    table.settle()
    assert table.game.save() == asked_at
    assert table.branches and table.branches[-1][0] == ["P1", first]
    assert "id='undo'" not in client.get(url).text  # nothing left to undo
    stale = client.post(f"{url}/answer", data={"key": str(first), "d": mark})  # the page from before the undo
    assert stale.status_code == 409 and len(table.game.history) == len(Game.load(table.rules, asked_at).history)


def test_save_and_load_go_on_with_the_same_table(client):
    """The save is a checked `knap play` session (seats, oracle, the game); loading it makes a new table
    whose game is the same, and a file that is not a save is refused with the reason."""
    table = start(client, seats="human,random", seed="11")
    client.post(f"{seat_url(table, 'P1')}/answer", data={"key": str(table.game.legal("P1")[0])})
    table.settle()
    saved = client.get(f"/t/{table.id}/save")
    assert saved.headers["content-disposition"].startswith("attachment")
    data = json.loads(saved.text)
    session.check_session(data)
    loaded = client.post("/load", content=saved.content)
    assert loaded.status_code == 200, loaded.text
    again = client.app.state.tables.get(loaded.json()["table"].rsplit("/", 1)[-1])
    again.settle()
    assert again.seats == ["human", "random"]
    assert again.game.state_hash() == saved_and_loaded(table.game).state_hash()
    broken = dict(data, seats=["human", "wizard"])
    refused = client.post("/load", content=json.dumps(broken))
    assert refused.status_code == 400 and "wizard" in refused.json()["error"]
    assert client.post("/load", content=b"not json").status_code == 400


def test_the_replay_log_replays(client):
    table = start(client, seats="human,random", seed="5")
    client.post(f"{seat_url(table, 'P1')}/answer", data={"key": str(table.game.legal("P1")[0])})
    table.settle()
    log = json.loads(client.get(f"/t/{table.id}/log").text)
    replayed = session.replay(table.rules, log)
    assert replayed.state_hash() == table.game.state_hash()


def test_pack_text_is_escaped():
    """A card's text from a pack is drawn as text, never as markup."""
    drawn = card({"name": "<script>alert(1)</script>", "text": "a & b <i>", "cost": ["<b>"]}, {"provenance": "x"})
    assert "<script>" not in drawn and "&lt;script&gt;" in drawn and "&lt;i&gt;" in drawn


def test_responses_forbid_scripts_from_elsewhere(client):
    page = client.get("/")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert "http" not in re.sub(r"<[^>]*", "", page.text)  # nothing is fetched from another site
    for asset in ("knap.js", "knap.css"):
        assert "http" not in client.get(f"/static/{asset}").text


def test_the_pack_browser_shows_cards_provenance_graph_and_findings(client):
    page = client.get("/pack/cro-magnon").text
    assert page.count("class='entry'") > 20
    assert "class='badge placeholder'" in page
    assert "<svg id='graph'" in page and "href='#card-" in page
    assert "id='files'" in page and "finding(s)" in page


def test_editing_a_pack_file_relints_it(tmp_path):
    """The pack's stamp changes when a file is edited, and the page then shows the new finding."""
    pack = tmp_path / "cro-magnon"
    shutil.copytree(ROOT / "content" / "cro-magnon", pack)
    app = create_app([pack])
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        before = client.get("/pack/cro-magnon/stamp").json()["version"]
        assert "0 finding(s)" in client.get("/pack/cro-magnon").text
        card_file = next(pack.glob("cards/*.yaml"))
        card_file.write_text(card_file.read_text(encoding="utf-8") + "\n---\nkind: card\nid: 7\n", encoding="utf-8")
        assert client.get("/pack/cro-magnon/stamp").json()["version"] != before
        page = client.get("/pack/cro-magnon").text
        assert "0 finding(s)" not in page.split("id='lint-summary'>", 1)[1][:40]
        assert "class='finding error'" in page


def test_simultaneous_choices_a_person_answers_their_part_and_the_bots_theirs(client):
    """Neolithibum, one person and two bots: everyone chooses a card at once; the person's page asks only the
    person, and once the person has answered the bots' parts are answered by the bots in the background."""
    table = start(client, pack="neolithibum", seats="human,random,random", seed="2")
    pending = table.game.pending
    assert pending["kind"] == "secret" and set(table.waiting_for()) == {"P1"}  # the bots have chosen already
    page = client.get(seat_url(table, "P1")).text
    assert options(page) and "Waiting for" not in page
    client.post(f"{seat_url(table, 'P1')}/answer", data={"key": str(table.game.legal("P1")[0])})
    table.settle()
    chosen = [who for who, _ in table.game.history]
    assert {"P1", "P2", "P3"} <= set(chosen)


def test_a_person_reports_a_physical_outcome_when_the_table_says(client):
    """With physical outcomes told by the people (`--oracle ask`), the oracle's question shows on a person's
    page with every outcome, and the person's answer is the outcome applied."""
    table = start(client, pack="neolithibum", seats="human,random,random", seed="2", oracle="ask")
    url = seat_url(table, "P1")
    for _ in range(40):
        table.settle()
        if table.oracle_for_people():
            break
        client.post(f"{url}/answer", data={"key": str(table.game.legal("P1")[0])})
    else:
        pytest.fail("no physical outcome was asked")
    page = client.get(url).text
    assert "At the table:" in page
    outcomes = options(page)
    assert [k for k, _ in outcomes] == table.game.decision.legal
    answered = len(table.game.history)
    client.post(f"{url}/answer", data={"key": str(outcomes[-1][0])})
    assert table.game.history[answered] == ["chance", outcomes[-1][0]]


def test_knap_serve_checks_its_arguments(knap):
    code, _, err = knap("serve", "no-such-pack")
    assert code == 2 and "no-such-pack" in err
    code, _, err = knap("serve", "cro-magnon", "--port", "70000")
    assert code == 2 and "--port" in err


def test_knap_serve_on_a_port_in_use_says_so_in_one_line(knap):
    """A port another program holds: a line naming it and a hint, exit 1, no traceback, no uvicorn log record."""
    import socket

    with socket.create_server(("127.0.0.1", 0)) as held:
        port = held.getsockname()[1]
        code, out, err = knap("serve", "cro-magnon", "--port", str(port))
    assert code == 1 and out == ""
    assert f"cannot listen on 127.0.0.1 port {port}" in err and "--port" in err
    assert "Traceback" not in err and "ERROR" not in err


def test_knap_serve_listens_on_this_machine_only_by_default():
    """`knap serve` binds 127.0.0.1 unless told otherwise, and answers there; `--port 0` takes a free port and
    prints it."""
    import subprocess
    import sys
    import time
    import urllib.request

    # `--port 0`: the port is one the server holds from the start (a port found free, closed and passed on could be
    # taken meanwhile by another test's process), read back from the address it prints
    command = [sys.executable, "-m", "engine.commands.cli", "serve", "cro-magnon", "--port", "0"]
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        printed = server.stdout.readline()
        found = re.search(r"at http://127\.0\.0\.1:(\d+)/", printed)
        assert found, (printed, server.stderr.read() if server.poll() is not None else "")
        port = int(found.group(1))
        assert port > 0
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1) as answer:
                    assert "Start a game" in answer.read().decode()
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "knap serve did not start"
                time.sleep(0.05)
        listening = subprocess.run(["ss", "-ltnH"], capture_output=True, text=True, check=False).stdout
        if listening:  # `ss` (iproute2) is on the machine: the port is bound on the loopback address only
            bound = [line.split()[3] for line in listening.splitlines() if line.split()[3].endswith(f":{port}")]
            assert bound == [f"127.0.0.1:{port}"], bound
    finally:
        server.terminate()
        server.wait(10)


def test_a_seat_page_links_to_nothing_of_the_hosts(client):
    """A seat's page has no link to the tables, the host page or the downloads (which hold every hidden card)."""
    table = start(client)
    page = client.get(seat_url(table, "P1")).text
    links = re.findall(r"(?:href|action)='([^']*)'", page)
    assert links and all(link.startswith(("/static/", seat_url(table, "P1"))) for link in links), links


def test_the_graph_stands_each_card_right_of_what_it_needs():
    from engine.lint import graph as techgraph
    from engine.serve.packs import layout

    graph = techgraph.build({"a": {}, "b": {"requires": ["a"]}, "c": {"requires": ["a", "b"]}, "d": {}})
    places = layout(techgraph.involved(graph))
    assert all(places[a][0] < places[b][0] for a, b in graph.edges)
    assert "d" not in places  # a card in no prerequisite is left out of the drawing
