"""A secret choice's cycle with less work per decision and per player once the runtime is compiled: its work counted in
the loop that copies each chooser's options (verbs.ChooseSecretly._first_pending, no `sum` of a `map`), the look for a
card among the options a loop (none when they are written out as texts alone; so too in Choose._pending), and each
player's legal answers (protocol.allowed_for) found with `in` rather than calls of `get`, sorted without a set unless
an option is there twice. The same states, work and log as the code before, an oracle copy of it, played side by side
(tests/lockstep.py): Neolithibum (hands, opponents, written words), packs of many `choose`, a pack whose hands hold
identical cards, and `allowed_for` against its old self for any pending decision."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lockstep import play_side_by_side, swapped_in
from test_compiled_effects import interpreted
from test_runtime_speed_zn_secret_loops import ONE_EACH
from test_secret_choice import pack

from engine.runtime import game as game_module
from engine.runtime import interpreter, persist, protocol, verbs
from engine.runtime.budget import out_of_work
from engine.runtime.log_words import seat_bits
from engine.runtime.protocol import DONE
from engine.runtime.rules import load
from engine.runtime.verbs import _MANY_PLACES, _PLACES, _one_of_each_seen, _same_kind_twice, labelled

CONTENT = Path(__file__).resolve().parents[1] / "content"


def first_pending_before(self, g, c, frame):
    """ChooseSecretly._first_pending before: its work a `sum` of a `map`, a card looked for by `int in map(type, ...)`
    (the oracle)."""
    wait = frame["wait"]
    own, options = wait["own"], wait["options"]
    work = g.work = g.work - sum(map(len, own.values()))  # as `_pending` charges it, one chooser after another
    if work < 0:
        out_of_work()
    allowed: dict[str, list[int]] = {}
    offers: dict[str, list[int]] = {}
    for player, keys in own.items():
        allowed[player] = keys[:]
        n = len(keys)
        offers[player] = _PLACES[:n] if n <= _MANY_PLACES else list(range(n))
    if self.of_cards and options and (type(options[0]) is int or int in map(type, options)):
        instances = g.rules.instances
        try:
            kinds = [instances[option] for option in options]
        except TypeError:
            kinds = None
        for player, keys in own.items():
            if kinds is None:
                twice = _same_kind_twice(g, list(map(options.__getitem__, keys)))
            else:
                twice = len({kinds[key] for key in keys}) < len(keys)
            if twice:
                offers[player], allowed[player] = _one_of_each_seen(g, player, keys, options, 0, len(keys))
    prompt = self.fixed_prompt
    if prompt is None or self.shape is not None or self.args.get("showing") is not None:
        return self._ask(g, c, wait, allowed, offers, False)
    wait["offer"] = offers
    askers = list(own)
    wait["order"] = askers
    first = {}
    for player in askers:
        first[player] = [offers[player], allowed[player]]
    wait["first"] = first
    return {
        "kind": "secret",
        "by": list(askers),
        "order": list(askers),
        "answers": {},
        "prompt": prompt,
        "options": list(options),
        "allowed": allowed,
        "cards": self.of_cards,
    }


def allowed_for_before(pending, player, live):
    """protocol.allowed_for before: `get` of each field, the player's own answers a sorted set (the oracle)."""
    limits = pending.get("limit")
    if limits is not None:
        limit = limits.get(player)
        if limit is not None:
            live = [o for o in live if o < limit]
    allowed = pending.get("allowed")
    if allowed is not None:
        own = allowed.get(player)
        if own is not None:
            if len(live) == len(pending["options"]):
                kept = sorted(set(own))
                if not kept or (kept[0] >= 0 and kept[-1] < len(live)):
                    return kept
            live = list(filter(set(own).__contains__, live))
    return live


def choose_pending_before(self, g, c, frame):
    """Choose._pending before: a card among the options looked for by `int in map(type, window)` (the oracle)."""
    wait = frame["wait"]
    cands, picked, low, by = wait["cands"], wait["picked"], wait["low"], wait["by"]
    start = picked[-1] + 1 if picked else 0
    still = max(0, low - len(picked))
    stop = len(cands) - still + 1 if still else len(cands)
    blind = False
    window = cands[start:stop]
    if wait["cards"] and int in map(type, window):
        offer, options, seen = [], [], set()
        can_see, instances, loc, orient = g.can_see, g.rules.instances, g.state["loc"], g.state["orient"]
        bit = seat_bits(g).get(by, 0) if type(by) is str and not g.state["shown"] else 0
        masks = g.sight_masks
        for j in range(start, stop):
            value = cands[j]
            if type(value) is int:
                sight = masks.get(loc[value]) if bit else None
                if can_see(value, by) if sight is None else sight & bit:
                    key = (instances[value], loc[value], orient[value])
                    if key in seen:
                        continue
                    seen.add(key)
                else:
                    blind = True
            offer.append(j)
            options.append(value)
    else:
        offer, options = list(range(start, stop)), window
    if len(picked) >= low:
        offer.append(-1)
        options.append(DONE)
    wait["offer"] = offer
    if len(offer) > 1:
        wait["free"] = True
    question = wait.get("prompt") or self.plain
    high = wait["high"]
    pending = {
        "kind": "choose",
        "by": [by],
        "prompt": f"{question} ({len(picked) + 1} of {high})" if high > 1 else question,
        "options": options,
        "blind": blind,
        "cards": wait["cards"],
    }
    if self.showing is None and self.shape is None:
        return pending
    return labelled(self, g, c, pending)


def _as_before():
    """The code before, for as long as the block runs (`allowed_for` wherever it was imported by name)."""
    return swapped_in(
        [
            (verbs.ChooseSecretly, "_first_pending", first_pending_before),
            (verbs.Choose, "_pending", choose_pending_before),
            (protocol, "allowed_for", allowed_for_before),
            (interpreter, "allowed_for", allowed_for_before),
            (game_module, "allowed_for", allowed_for_before),
            (persist, "allowed_for", allowed_for_before),
        ]
    )


@pytest.mark.parametrize("interpret", [False, True])
def test_neolithibum_goes_as_before(interpret):
    """The pack with the most secret choices (hands, opponents, written words), lowered and step by step."""
    rules = load(CONTENT / "neolithibum")
    if interpret:
        with interpreted(rules):
            assert play_side_by_side(rules, 4, 5, _as_before)["secret"] > 10
    else:
        for seed in (1, 4):
            assert play_side_by_side(rules, 3 + seed % 2, seed, _as_before)["secret"] > 10


@pytest.mark.parametrize("pack_name", ["cro-magnon", "paleo-a-new-beginning"])
def test_choices_of_cards_go_as_before(pack_name):
    """Packs of many `choose` of cards and of names (Choose._pending's look for a card), lowered."""
    rules = load(CONTENT / pack_name)
    kinds = play_side_by_side(rules, 3, 2, _as_before, answers=300)
    assert kinds["choose"] > 5


@pytest.mark.parametrize("copies", [None, {"Bread": 1, "Cheese": 1, "Plum": 1, "Fig": 1, "Nut": 1}])
def test_one_pick_each_of_hands_goes_as_before(tmp_path, copies):
    """Hands with identical cards (Bread and Fig twice: `_one_of_each_seen`) or none, 2 or 3 players."""
    rules = pack(tmp_path, ONE_EACH, copies)
    asked = sum(play_side_by_side(rules, 2 + seed % 2, seed, _as_before)["secret"] for seed in range(4))
    assert asked > 4


def test_the_work_runs_out_at_the_same_decision(tmp_path):
    """With too little work left for a secret choice's options, the same error at the same place as before."""
    rules = pack(tmp_path, ONE_EACH)
    errors = []
    for as_before in (False, True):
        game = game_module.Game.new(rules, 3, 0)
        frame = game.state["stack"][-1] if game.state["stack"] else None
        assert game.state["pending"]["kind"] == "secret" and frame is not None
        verb = rules.code[frame["code"]].steps[frame["pc"]][1]
        game.work = 3  # fewer than the options of three hands
        frame["wait"].pop("first", None)
        try:
            if as_before:
                with _as_before():
                    verbs.ChooseSecretly._first_pending(verb, game, None, frame)
            else:
                verb._first_pending(game, None, frame)
        except Exception as exc:  # noqa: BLE001 -- whatever it is, the same before and now
            errors.append((type(exc), str(exc), game.work))
        else:
            errors.append(None)
    assert errors[0] is not None and errors[0] == errors[1]


_PLAYERS = ("P1", "P2", "P3")


@st.composite
def pendings(draw):
    """A pending decision as `allowed_for` reads it: options, perhaps `limit` (a bid) and `allowed` (a secret choice:
    each player's places, perhaps one twice or out of range), and the live options (all or some)."""
    size = draw(st.integers(0, 6))
    pending: dict = {"kind": "secret", "options": list(range(size))}
    if draw(st.booleans()):
        pending["limit"] = draw(
            st.one_of(st.none(), st.dictionaries(st.sampled_from(_PLAYERS), st.one_of(st.none(), st.integers(0, 7))))
        )
    if draw(st.booleans()):
        places = st.lists(st.integers(-1, size + 1), max_size=6)
        pending["allowed"] = draw(
            st.one_of(st.none(), st.dictionaries(st.sampled_from(_PLAYERS), st.one_of(st.none(), places)))
        )
    live = list(range(size))
    if draw(st.booleans()):
        live = sorted(draw(st.sets(st.integers(0, max(0, size - 1)), max_size=size))) if size else []
    return pending, draw(st.sampled_from(_PLAYERS)), live


@settings(max_examples=400, deadline=None)
@given(pendings())
def test_allowed_for_answers_as_before(case):
    """Every player's legal answers the same list as before, for any pending decision, its fields left as they were."""
    pending, player, live = case
    before = allowed_for_before(pending, player, list(live))
    assert protocol.allowed_for(pending, player, list(live)) == before


def test_an_option_twice_is_one_answer():
    """A chooser offered the same place twice (the oracle's set) answers it once, in order."""
    pending = {"kind": "secret", "options": [10, 11, 12, 13], "allowed": {"P1": [3, 1, 3, 0, 1]}}
    assert protocol.allowed_for(pending, "P1", [0, 1, 2, 3]) == [0, 1, 3]
