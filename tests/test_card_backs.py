"""A card's back (issue 15): printed on the card (`back:`), seen by everyone while the face is hidden, read by
rules as `card.back`; a zone's `backs:` says which backs of its face-down cards are seen (`visible`: every one,
`top`: the top card's, the default of decks and piles; `hidden`: none, the default of bags). Views, option labels,
log lines and the terminal name the back, never the face; a bot's imagined game re-deals hidden cards only among
cards whose seen back is the same."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import write_tree
from test_view_leaks import play_watched

from engine.runtime import rules as rules_module
from engine.runtime.functions import field_getter
from engine.runtime.game import Game
from engine.runtime.terminal import zone_text

ROOT = Path(__file__).resolve().parent.parent

MANIFEST = "kind: pack\nid: backs\nname: Backs\nversion: 1.0.0\nplayers: {min: 2, max: 3}\n"

COUNTER_AND_END = """kind: counter
id: vp
name: Points
owner: player
---
kind: end
id: goal
name: Goal
trigger: me.vp >= 3
then: immediate
result: most
counter: vp
"""


def doc_block(heading: str) -> str:
    """The first YAML example under a heading of docs/authoring.md."""
    text = (ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")
    section = text[text.index(f"### {heading}\n") :]
    found = re.search(r"```yaml\n(.*?)```", section, re.DOTALL)
    assert found, heading
    return found.group(1)


def backs_pack(tmp_path: Path, example: str | None = None) -> Path:
    """The docs/authoring.md example ("Card backs") as written, with a counter and an end."""
    example = doc_block("Card backs") if example is None else example
    return write_tree(tmp_path / "backs", {"pack.yaml": MANIFEST, "rules.yaml": example, "end.yaml": COUNTER_AND_END})


def new_game(tmp_path, players: int = 2, seed: int = 0) -> Game:
    return Game.new(rules_module.load(backs_pack(tmp_path)), players, seed)


def explore(game: Game, seat: str = "P1") -> None:
    game.apply(game.decision.options.index("explore"), seat)


def test_the_pack_with_backs_lints_clean(tmp_path, lint_json):
    _code, found = lint_json(backs_pack(tmp_path))
    assert found == []


def test_a_back_that_is_not_a_word_is_reported_where_it_is(tmp_path, lint_json):
    example = doc_block("Card backs").replace("back: danger", "back: [danger]")
    line = example.splitlines().index("back: [danger]") + 1
    _code, found = lint_json(backs_pack(tmp_path, example))
    assert any(name == "rules.yaml" and at == line for name, at, *_ in found), found


def test_a_zones_backs_must_be_one_of_three_words(tmp_path, lint_json):
    example = doc_block("Card backs").replace("backs: visible ", "backs: all ")
    line = next(i for i, text in enumerate(example.splitlines(), 1) if text.startswith("backs: all"))
    _code, found = lint_json(backs_pack(tmp_path, example))
    assert [(name, at) for name, at, *_ in found] == [("rules.yaml", line)], found


def test_card_back_is_read_by_rules(tmp_path):
    game = new_game(tmp_path)
    deer = game.rules.instances.index("deer")
    assert field_getter("back")(game, deer) == "forest"
    explore(game)
    # the 3 cards drawn lie in P1's looking area; options name their backs, never their faces
    labels = [o["label"] for o in game.view("P1")["decision"]["options"]]
    assert len(labels) == 3
    for label in labels:
        assert re.fullmatch(r"a face-down card \((forest|danger) back\) #\d in P1's looking at", label), label
    assert "Deer" not in json.dumps(game.view("P1")) and "Cave bear" not in json.dumps(game.view("P2"))
    picked = game.state["zones"]["looking:P1"][0]
    back = game.card_def(picked)["back"]
    game.apply(game.legal("P1")[0], "P1")
    assert game.rules.instances[picked] in ("deer", "bear")
    assert (back == "danger") == any(line.endswith("P1 faces a danger") for line in game.log_for("P1"))
    assert game.view("P1")["counters"]["P1"]["vp"] == (1 if back == "forest" else 0)


def test_views_show_backs_as_the_zone_allows(tmp_path):
    game = new_game(tmp_path)
    deck = game.state["zones"]["deck:P1"]
    backs = [game.card_def(c)["back"] for c in deck]
    view = game.view("P2")["zones"]
    assert view["deck:P1"]["backs"] == backs[-1:]  # a deck: only its top card's back
    assert "cards" not in view["deck:P1"]
    explore(game)
    looking = game.state["zones"]["looking:P1"]
    for seat in ("P1", "P2"):  # `backs: visible`: every back, bottom first, for everyone
        entry = game.view(seat)["zones"]["looking:P1"]
        assert entry["backs"] == [game.card_def(c)["back"] for c in looking]
        assert "cards" not in entry
    game.apply(game.legal("P1")[0], "P1")
    played = game.view("P2")["zones"]["played:P1"]["cards"]
    assert played[0]["back"] in ("forest", "danger") and played[0]["name"] in ("Deer", "Cave bear")


def test_log_lines_name_the_backs_of_cards_moved_to_where_backs_are_seen(tmp_path):
    game = new_game(tmp_path)
    explore(game)
    backs = [game.card_def(c)["back"] for c in game.state["zones"]["looking:P1"]]
    lines = [x for x in game.log_for("P2") if "draws" in x]
    assert lines == [f"P1 draws a card ({back} back) from P1's deck to P1's looking at" for back in backs], lines


def test_the_terminal_shows_backs(tmp_path):
    game = new_game(tmp_path)
    explore(game)
    view = game.view("P2")
    text = zone_text(view, "looking:P1", view["zones"]["looking:P1"])
    looking = [game.card_def(c)["back"] for c in game.state["zones"]["looking:P1"]]
    assert "backs: " + ", ".join(reversed(looking)) in text, text


def test_an_imagined_game_never_changes_a_back_that_is_seen(tmp_path):
    game = new_game(tmp_path, players=2, seed=3)
    explore(game)
    seen = {}
    for key, cards in game.state["zones"].items():
        for card in cards:
            if card is not None and game.sees_back(card, "P2"):
                seen[(key, cards.index(card))] = game.card_def(card).get("back")
    assert ("looking:P1", 0) in seen
    moved = False
    for seed in range(30):
        imagined = game.determinized("P2", seed)
        for (key, i), back in seen.items():
            card = imagined.state["zones"][key][i]
            assert imagined.card_def(card).get("back") == back, (seed, key, i)
            moved |= card != game.state["zones"][key][i]
    assert moved  # P2 does not see P1's cards' faces: they are re-dealt, among the same backs
    view = game.view("P2")
    for seed in range(10):  # what P2 sees of the imagined game is what it sees of the real one
        imagined = game.determinized("P2", seed).view("P2")
        assert imagined["zones"] == view["zones"] and imagined["decision"] == view["decision"]


def test_no_seat_reads_a_face_it_never_saw_with_backs(tmp_path):
    rules = rules_module.load(backs_pack(tmp_path))
    for seed in range(3):
        game = Game.new(rules, 2, seed, max_rounds=10)
        watcher = play_watched(game, seed, 150, f"backs, seed {seed}")
        assert watcher.checks > 5


def test_the_docs_say_what_the_engine_does(tmp_path):
    """The words docs/authoring.md ("Card backs") and docs/runtime.md ("Who sees what") quote are the engine's."""
    game = new_game(tmp_path, seed=0)
    explore(game)
    labels = [o["label"] for o in game.view("P1")["decision"]["options"]]
    view = game.view("P2")
    backs = view["zones"]["looking:P1"]["backs"]
    text = zone_text(view, "looking:P1", view["zones"]["looking:P1"])
    lines = [x for x in game.log_for("P2") if "draws" in x]
    authoring = (ROOT / "docs" / "authoring.md").read_text(encoding="utf-8")
    runtime = (ROOT / "docs" / "runtime.md").read_text(encoding="utf-8")
    said = " ".join(authoring.split())
    assert f'"{labels[0]}"' in said and f'"{lines[-1]}"' in said, (labels, lines)
    assert json.dumps({"backs": backs})[1:-1] in said and f"`{text}`" in said, (backs, text)
    assert "backs: visible" in runtime and labels[0] in " ".join(runtime.split()), labels


def test_paleo_bots_imagine_decks_with_the_same_backs():
    """Paleo (content/paleo): every deck's backs are seen (`backs: visible`, "Choosing a card"), so the game a bot
    imagines deals a danger-back card only where a danger back lies; the faces still differ."""
    game = Game.new(rules_module.load(ROOT / "content" / "paleo"), 3, 2)
    places = [(key, i) for key in game.state["zones"] if key.startswith(("deck:", "looking:")) for i in range(60)]
    places = [(k, i) for k, i in places if i < len(game.state["zones"][k])]
    differ = 0
    for seed in range(10):
        imagined = game.determinized("P1", seed)
        for key, i in places:
            real, dreamt = game.state["zones"][key][i], imagined.state["zones"][key][i]
            assert game.card_def(real)["back"] == imagined.card_def(dreamt)["back"], (seed, key, i)
            differ += real != dreamt
    assert differ > 0
