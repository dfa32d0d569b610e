"""The Cro-Magnon pack against its rulebook (shared/rulebooks/cro-magnon.txt). Each test names the section
it checks; values the rulebook does not print must carry a provenance mark."""

from __future__ import annotations

from collections import Counter

import networkx as nx
import pytest

from engine.content import pack_search
from engine.content.packs import pack_documents
from engine.lint import graph as techgraph

PACK = pack_search.builtin_pack("cro-magnon")


@pytest.fixture(scope="module")
def docs():
    return [data for _, _, data in pack_documents(PACK)]


@pytest.fixture(scope="module")
def by_id(docs):
    return {d["id"]: d for d in docs if "id" in d and d["kind"] != "pack"}


@pytest.fixture(scope="module")
def manifest(docs):
    return next(d for d in docs if d["kind"] == "pack")


def copies_in(docs, zone):
    return Counter({d["id"]: d.get("copies", 1) for d in docs if d["kind"] == "card" and d["deck"] == zone})


def test_the_pack_lints_clean(knap):
    """The whole pack passes every lint stage."""
    code, out, _ = knap("lint", "cro-magnon", "--no-cache")
    assert code == 0, out


def test_components_have_the_rulebooks_counts(docs):
    """ "Components": the box's contents with their counts."""
    counts = {d["name"]: d["count"] for d in docs if d["kind"] == "component"}
    expected = {
        "Forest terrain cards": 21,
        "Mountains terrain cards": 19,
        "Plains terrain cards": 19,
        "River terrain cards": 19,
        "Spoils cards": 15,
        "First Technologies cards": 9,
        "Settlement cards": 6,
        "Reminder cards": 4,
        "Event cards for the solo game": 9,
    }
    for name, count in expected.items():
        assert counts.get(name) == count, name
    for kind in ("Weapons", "Daily Life", "Dwelling"):
        assert counts[f"{kind} technology cards"] == 12


@pytest.mark.parametrize(
    "deck, composition",
    [
        ("forest", {"wood": 14, "deer_bird": 6, "wolf": 1}),
        ("mountains", {"stone": 12, "markhor_bird": 6, "cave_bear": 1}),
        ("river", {"flint": 12, "spring": 6, "crocodile": 1}),
        ("plains", {"grass": 12, "clay": 6, "sabre_toothed_tiger": 1}),
    ],
)
def test_terrain_decks_have_their_compositions(docs, manifest, deck, composition):
    """ "Composition of the Terrain Decks": exact card counts per deck, declared in the manifest too."""
    assert copies_in(docs, deck) == Counter(composition)
    assert manifest["decks"][deck]["composition"] == composition


@pytest.mark.parametrize(
    "predator, strength, vp, spoils, bonus",
    [("wolf", 3, 1, 1, 1), ("cave_bear", 4, 1, 2, 2), ("crocodile", 4, 2, 1, 3), ("sabre_toothed_tiger", 5, 2, 2, 4)],
)
def test_predators(by_id, predator, strength, vp, spoils, bonus):
    """ "Types of predators and their habitats" and "Final Scoring" (predator figures)."""
    card = by_id[predator]
    assert card["type"] == "predator"
    assert card["stats"] == {"strength": strength, "vp": vp, "spoils": spoils, "end_bonus": bonus}
    assert by_id[card["refs"]["figure"]]["kind"] == "component"


def test_herbivores_give_at_most_two_spoils(by_id):
    """ "Types of herbivores": Deer/Bird and Markhor/Bird, 6 cards each, trophies 2 Spoils."""
    for herbivore in ("deer_bird", "markhor_bird"):
        assert by_id[herbivore]["copies"] == 6 and by_id[herbivore]["stats"]["max_spoils"] == 2


def test_first_technologies_lie_in_their_rows(docs):
    """ "Setup", step 5: top row axe, chopper, stone knife; middle campfire, fibre, needle; bottom syrets,
    shelter, cave."""
    rows = {}
    for d in docs:
        if d["kind"] == "card" and "first_technology" in d.get("tags", []):
            rows.setdefault(d["deck"], {})[d["slot"]] = d["id"]
    assert rows == {
        "weapons_row": {1: "axe", 2: "chopper", 3: "stone_knife"},
        "daily_life_row": {1: "campfire", 2: "fibre", 3: "needle"},
        "dwelling_row": {1: "syrets", 2: "shelter", 3: "cave"},
    }


def test_technology_decks_and_their_properties(docs):
    """ "4. Using Technologies": 12 cards of each kind; "Each Dwelling technology has the property of
    increasing the limit of cards held" (a hand-limit icon of at least 1) and Improve Dwelling allows "from
    1 to 3" Spoils."""
    techs = [d for d in docs if d["kind"] == "card" and d["type"] == "technology"]
    by_deck = Counter(d["deck"] for d in techs)
    assert by_deck["weapons_deck"] == by_deck["daily_life_deck"] == by_deck["dwelling_deck"] == 12
    for d in techs:
        kind = {"weapons_deck": "weapons", "daily_life_deck": "daily_life", "dwelling_deck": "dwelling"}.get(d["deck"])
        if kind:
            assert kind in d["tags"] and d["cost"] and d["stats"]["vp"] >= 1
        if "dwelling" in d["tags"]:
            assert 1 <= d["stats"]["improve_dwelling"] <= 3 and d["stats"]["hand_limit"] >= 1, d["id"]
    assert sum("dwelling" in d["tags"] for d in techs) >= 12  # the check above looked at every Dwelling card


def test_unprinted_values_are_marked(docs):
    """The rulebook prints no technology or settlement card, nor the exchange rates: all placeholders (the
    solo events are checked with the solo pack)."""
    unprinted = [
        d
        for d in docs
        if d["kind"] == "card" and (d["type"] in ("technology", "settlement") or "exchange_rate" in d.get("stats", {}))
    ]
    kinds = Counter("exchange rate" if "exchange_rate" in d.get("stats", {}) else d["type"] for d in unprinted)
    assert kinds["technology"] >= 36 and kinds["settlement"] == 6 and kinds["exchange rate"] >= 1, kinds
    for d in unprinted:
        assert d.get("provenance") == "placeholder" and d.get("reason"), d["id"]


def test_prerequisite_tree_is_sound_for_a_real_game(docs):
    """ "3. Mastering a Technology": prerequisites must be mastered at the table. Every technology is reachable
    from the first ones, the graph is acyclic and shallow, and at least 9 per deck need only first technologies
    (which are visible from the start), so no game can stall on a buried prerequisite."""
    cards = {d["id"]: d for d in docs if d["kind"] == "card"}
    graph = techgraph.build(cards)
    assert nx.is_directed_acyclic_graph(graph)
    assert techgraph.reachable(graph) >= {i for i, d in cards.items() if d["type"] == "technology"}
    first = {i for i, d in cards.items() if "first_technology" in d.get("tags", [])}
    for deck in ("weapons_deck", "daily_life_deck", "dwelling_deck"):
        members = [d for d in cards.values() if d["deck"] == deck]
        only_first = [d for d in members if set(d["requires"]) <= first]
        assert len(only_first) >= 9
    assert nx.dag_longest_path_length(graph) <= 2
    assert techgraph.unlockable(graph, first) >= {
        d["id"] for d in cards.values() if d.get("requires") and set(d["requires"]) <= first
    }


def test_parameters(manifest):
    """ "Sequence of Play" (2 AP), "1. Explore Terrain" (hand limit 5), "End of the Game and Scoring"
    (30/24/22 VP), "Special Rule Valuable Spoils" (3 Spoils), "6. Founding a Settlement" (+6 VP)."""
    params = manifest["parameters"]
    assert params["action_points"]["default"] == 2
    assert params["hand_limit"]["default"] == 5
    assert params["victory_points"]["by_player_count"] == {"2": 30, "3": 24, "4": 22}
    assert params["spoils_joker"]["default"] == 3
    assert params["settlement_vp"]["default"] == 6
    assert params["flint_per_weapon"]["default"] == 2
    assert params["track_lines"]["provenance"] == "assumption"
    assert manifest["players"] == {"min": 2, "max": 4}


def test_every_action_of_the_rulebook_is_written_as_rules(by_id):
    """ "Available Actions During a Player's Turn": actions 1-7 with their costs."""
    expected = {
        "explore": {"ap": 1},
        "attack": {"ap": 1},
        "new_technology": {"ap": 1},
        "improve_dwelling": {"ap": 1},
        "develop_technology": {"ap": 2},
    }
    for action, cost in expected.items():
        assert by_id[action]["kind"] == "action" and by_id[action]["cost"] == cost
    assert by_id["natural_exchange"]["free"] and by_id["master_technology"]["free"]
    assert by_id["found_settlement"]["whole_turn"] and by_id["found_settlement"]["limit"] == "once_per_game"
    assert by_id["additional_exploration"]["limit"] == "once_per_turn"
    end = by_id["victory_point_goal"]
    assert end["then"] == "last_turns_then_trigger_player" and end["result"] == "most"
    assert {"cards_in_hand", "predator_figures"} <= set(by_id)


def test_the_stats_count_placeholders(knap):
    """`knap lint --stats` shows the pack's provenance counts for reviewers."""
    code, out, _ = knap("lint", "--stats", "--no-cache", "--format", "json", "cro-magnon")
    import json

    stats = json.loads(out)["stats"][0]
    assert code == 0 and stats["provenance"]["placeholder"] >= 50 and stats["provenance"]["assumption"] >= 1
    # terrain decks, Spoils, deck technologies, first technologies, settlements (the events are the solo pack's)
    assert stats["cards"] >= 60 and stats["card_copies"] == 21 + 19 + 19 + 19 + 15 + 36 + 9 + 6
