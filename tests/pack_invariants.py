"""What must hold after every decision of a game of one pack, besides what holds for every pack
(invariants.py): the limits a pack's rules set in their own words, which no generic check can read.
`checks_for(game)` gives the checks of the game's pack; invariants.Watch runs them, so the game tests and
tools/soak.py check them after every decision."""

from __future__ import annotations


def stone_age_limits(game):
    """Stone Age and its expansion (shared/reference/stone-age-base.md): each player's 10 figures are in
    their box, at home, on places of the board or taming the mammoth, never anywhere else ("Player");
    with 2-3 players at most 2 of the village places are used and a resource area holds at most 1 (2
    players) or 2 (3 players) colours, except where the mammoth token stands ("Capacities", and The Mammoth
    Herd's "Changes for 2-3 Players"); food and resources never go below 0 ("Feeding")."""
    state, params = game.state, game.params
    places = params["board_places"] + params["civ_places"] + params["building_places"] + ["home", "figure_box"]
    if "herd_figures" in game.rules.zones:
        places.append("herd_figures")
    for player in state["players"]:
        held = sum(1 for z in places for x in state["zones"][f"{z}:{player}"] if game.rules.instances[x] == "figure")
        assert held == params["max_figures"], f"{player} has {held} figures"
    village = sum(1 for z in params["village"] if any(state["zones"][f"{z}:{p}"] for p in state["players"]))
    assert village <= params["village_limit"], "too many village places used"
    mammoth = state["counters"]["table"].get("mammoth_area", 0)
    for number, area in enumerate(params["resource_areas"], 1):
        if number == mammoth:
            continue  # the mammoth lifts the players' limit there (the 7 still holds)
        colours = sum(1 for p in state["players"] if state["zones"][f"{area}:{p}"])
        assert colours <= params["players_per_area"], f"{colours} colours on {area}"
    assert len([x for x in state["zones"]["civ_display"] if x is not None]) <= params["display_places"]
    for player in state["players"]:
        for kind in ["food"] + list(params["resource_kinds"]):
            assert state["counters"][player][kind] >= 0, f"{player} has {state['counters'][player][kind]} {kind}"


class CemeteryOnlyGrows:
    """Paleo, its expansion, modules and scenarios (shared/reference/paleo-base.md, "Night": "the graveyard
    never returns"): a card in the cemetery never leaves it."""

    def __init__(self):
        self.buried: set[int] = set()

    def __call__(self, game):
        now = {x for x in game.state["zones"]["cemetery"] if x is not None}
        gone = self.buried - now
        assert not gone, f"cards left the cemetery: {sorted(game.rules.instances[x] for x in gone)}"
        self.buried = now


BY_PACK = {"stone_age": [stone_age_limits], "stone_age_mammoth_herd": [stone_age_limits]}


def checks_for(game) -> list:
    if game.rules.pack_id.startswith("paleo"):
        return [CemeteryOnlyGrows()]
    return BY_PACK.get(game.rules.pack_id, [])
