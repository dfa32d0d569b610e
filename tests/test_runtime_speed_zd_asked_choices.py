"""The verbs that ask go as they did before their faster paths: `choose` pays for its candidates without a call of
`spend`, words its question without a format each time and returns a decision with nothing to label without a call
of `labelled`; a secret choice of one pick each asks nobody whether two options are the same card when no option is
a card, builds what each could pick at first without a comprehension, calls no `labelled` with nothing to label and
keeps no picks in a wait that is dropped as it returns (verbs.Choose, verbs.ChooseSecretly); `in_play_from` rotates
the seats without a call of `players_from` (table.Table); a move of one card tells the setup without a call of
`in_setup` (verbs._move_one_logged). Each is compared with an oracle copy of the code before it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from lockstep import kept_before, play_side_by_side, swapped_in
from test_compiled_effects import interpreted
from test_secret_choice import KEEP, pack

from engine.runtime import verbs
from engine.runtime.budget import spend
from engine.runtime.context import Ctx
from engine.runtime.game import Game
from engine.runtime.log_words import MOVE, log_choice, remember, seen_by
from engine.runtime.protocol import DONE
from engine.runtime.rules import load
from engine.runtime.session import play_randomly
from engine.runtime.table import Table

CONTENT = Path(__file__).resolve().parents[1] / "content"


# ------------------------------------------------------------------------------------------- the oracles
def _choose_run_before(self, g, c, frame):
    """Choose.run before: the candidates paid for by a call of `spend`."""
    if self.unless is not None and self.unless(c):
        self.bind(c, None if self.binds_one else [])
        return None
    f = self.amount_of
    amount = self.amount if f is None else f(c)
    f = self.from_of
    candidates = g.items_of(self.source if f is None else f(c))
    spend(g, len(candidates))
    if amount == "all":
        low = high = len(candidates)
    elif isinstance(amount, dict):
        low, high = amount["between"]
    else:
        low = high = int(amount or 0)
    high = min(high, len(candidates))
    if high <= 0 and low <= 0:
        self.bind(c, None if self.binds_one else [])
        return None
    if len(candidates) < low:
        if g.attempt is not None:
            return "fail"
        low = high = len(candidates)
    f = self.by_of
    by = (self.by if f is None else f(c)) or c.me
    f = self.with_of
    prompt = self.prompt if f is None else f(c)
    frame["wait"] = {
        "cands": candidates,
        "picked": [],
        "low": low,
        "high": high,
        "by": by,
        "cards": self.of_cards,
        "prompt": str(prompt) if prompt is not None else None,
    }
    return _choose_pending_before(self, g, c, frame)


def _choose_pending_before(self, g, c, frame):
    """Choose._pending before: the question worded at each call, `labelled` always called."""
    wait = kept_before(frame["wait"])
    cands, picked, low, by = wait["cands"], wait["picked"], wait["low"], wait["by"]
    start = picked[-1] + 1 if picked else 0
    still = max(0, low - len(picked))
    stop = len(cands) - still + 1 if still else len(cands)
    blind = False
    window = cands[start:stop]
    if wait["cards"] and int in map(type, window):
        offer, options, seen = [], [], set()
        can_see, instances, loc, orient = g.can_see, g.rules.instances, g.state["loc"], g.state["orient"]
        for j in range(start, stop):
            value = cands[j]
            if type(value) is int:
                if can_see(value, by):
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
    question = wait.get("prompt") or f"Choose {(self.binds or '').replace('_', ' ')}"
    progress = f" ({len(picked) + 1} of {wait['high']})" if wait["high"] > 1 else ""
    pending = {
        "kind": "choose",
        "by": [by],
        "prompt": f"{question}{progress}",
        "options": options,
        "blind": blind,
        "cards": wait["cards"],
    }
    return verbs.labelled(self, g, c, pending)


def _choose_resume_before(self, g, c, frame, answer):
    """Choose.resume before: the picks read through the wait at each use."""
    wait = kept_before(frame["wait"])
    j = wait["offer"][answer]
    if j >= 0:
        wait["picked"].append(j)
    if j < 0 or len(wait["picked"]) >= wait["high"] or wait["picked"][-1] >= len(wait["cands"]) - 1:
        cands = wait["cands"]
        chosen = list(map(cands.__getitem__, wait["picked"]))
        if self.binds:
            c.env[self.binds] = (chosen[0] if chosen else None) if self.binds_one else chosen
        if chosen:
            labels = None
            if self.showing is not None:
                labels = verbs.labelled(self, g, c, {"options": chosen})["labels"]
            shape = list(self.shape) if self.shape is not None else None
            forced = not wait.get("free")
            log_choice(g, wait["by"], wait.get("prompt"), self.binds, forced, wait["cards"], chosen, labels, shape)
        return None
    return _choose_pending_before(self, g, c, frame)


def _first_pending_before(self, g, c, frame):
    """ChooseSecretly._first_pending before: each chooser's options asked whether two are the same card, cards or not."""
    wait = kept_before(frame["wait"])
    own, options = wait["own"], wait["options"]
    g.work -= sum(map(len, own.values()))
    if g.work < 0:
        verbs.out_of_work()
    allowed = dict(zip(own, map(list, own.values()), strict=True))
    offers = dict(zip(own, map(list, map(range, map(len, own.values()))), strict=True))
    if self.of_cards:
        for player, keys in own.items():
            if verbs._same_kind_twice(g, list(map(options.__getitem__, keys))):
                offers[player], allowed[player] = verbs._one_of_each_seen(g, player, keys, options, 0, len(keys))
    return self._ask(g, c, wait, allowed, offers, False)


def _ask_before(self, g, c, wait, allowed, offers, done):
    """ChooseSecretly._ask before: what each could pick at first made by a comprehension, `labelled` always called."""
    options = wait["options"] + [DONE] if done else list(wait["options"])
    wait["offer"] = offers
    askers = list(allowed)
    wait["order"] = askers
    if "first" not in wait:
        wait["first"] = {p: [offers[p], allowed[p]] for p in askers}
    plain = self.plain
    question = self.args.get("with")
    if question is None:
        asked = dict.fromkeys(askers, plain)
    elif self.same_question:
        asked = dict.fromkeys(askers, question(c) or plain)
    else:
        asked = {p: question(Ctx(g, c.env, p, c.card)) or plain for p in askers}
    most = max(wait["limits"][p][1] for p in askers) if wait["taking"] else 1
    if most > 1:
        round_of = f" ({1 + min(len(wait['picks'][p]) for p in askers)} of {most})"
        asked = {p: text + round_of for p, text in asked.items()}
        plain += round_of
    alike = len(set(asked.values())) == 1
    pending = {
        "kind": "secret",
        "by": list(askers),
        "order": list(askers),
        "answers": {},
        "prompt": next(iter(asked.values())) if alike else plain,
        "options": options,
        "allowed": allowed,
        "cards": self.of_cards,
    }
    if not alike:
        pending["prompts"] = asked
    owner = None
    if self.args.get("showing") is not None:
        owner = {key: p for p, keys in reversed(wait["own"].items()) for key in keys}
    return verbs.labelled(self, g, c, pending, owner)


def _secret_resume_before(self, g, c, frame, answer):
    """ChooseSecretly.resume before: every answer kept in the wait's picks, one pick each too."""
    wait = kept_before(frame["wait"])
    if "own" not in wait:
        frame["wait"] = wait = verbs._one_round(wait)
    own, offers, picks = wait["own"], wait["offer"], wait["picks"]
    for player, key in zip(wait["order"], answer, strict=False):
        picks[player].append(verbs._place_answered(own[player], offers[player], key))
    options = wait["options"]
    if wait["taking"]:
        pending = self._pending(g, c, frame)
        if pending is not None:
            return pending
        chosen = {}
        for p, places in picks.items():
            if places and places[-1] < 0:
                places = places[:-1]
            chosen[p] = list(map(options.__getitem__, map(own[p].__getitem__, places)))
        self.bind(c, [chosen.get(p, []) for p in wait["players"]])
        told_of = [(p, v) for p, values in chosen.items() for v in values]
    else:
        picked = dict(zip(wait["order"], map(options.__getitem__, answer), strict=False))
        self.bind(c, list(map(picked.get, wait["players"])))
        told_of = list(picked.items())
    everyone = (1 << len(g.state["players"])) - 1
    told = []
    for p, v in told_of:
        if self.of_cards and type(v) is int:
            told.append([p, g._card_names[v], seen_by(g, v)])
        elif type(v) is list:
            sight = everyone
            for card in verbs.cards_in(g, v, self.shape) if self.of_cards else ():
                sight &= seen_by(g, card)
            reader = next((q for q, bit in verbs.seat_bits(g).items() if sight & bit), None)
            told.append([p, verbs.composite_words(g, v, self.shape, reader, self.of_cards), sight or everyone])
        else:
            told.append([p, g.label(v), everyone])
    if told:
        verbs.log_together(g, told)
    return None


def _in_play_from_before(self, player):
    """Table.in_play_from before: the seats from `players_from`."""
    seats = self.players_from(player)
    out = self.state.get("out")
    return [p for p in seats if p not in out] if out else seats


def _move_one_logged_before(g, card, target, actor, verb, slot):
    """verbs._move_one_logged before: the setup told by a call of `in_setup`."""
    state = g.state
    before = seen_by(g, card)
    source = state["loc"][card]
    g.move(card, target, slot)
    setup = 0
    if g.in_setup():
        setup = 2 if actor not in (source.rsplit(":", 1)[-1], target.rsplit(":", 1)[-1]) else 1
    now = seen_by(g, card)
    if before & ~now:
        remember(g, card, before & ~now)
    state["log"].append([MOVE, setup, actor, verb, source, target, [card], [before | now]])


_PATCHED = (
    (verbs.Choose, "run", _choose_run_before),
    (verbs.Choose, "_pending", _choose_pending_before),
    (verbs.Choose, "resume", _choose_resume_before),
    (verbs.ChooseSecretly, "_first_pending", _first_pending_before),
    (verbs.ChooseSecretly, "_ask", _ask_before),
    (verbs.ChooseSecretly, "resume", _secret_resume_before),
    (Table, "in_play_from", _in_play_from_before),
    (verbs, "_move_one_logged", _move_one_logged_before),
)


def _as_before():
    """The code before the faster paths, for as long as the block runs (`_PATCHED` read when it starts:
    test_the_oracles_run_in_lowered_effects counts the calls of one oracle)."""
    return swapped_in(_PATCHED)


# ------------------------------------------------------------------------------------------- as before
@pytest.mark.parametrize(
    ("pack_id", "players", "seed", "kind"),
    [
        ("neolithibum", 4, 1, "secret"),  # secret choices of cards and of players, one pick each; `choose`
        ("stone-age-mammoth-herd", 4, 1, "choose"),  # `choose` of places, numbers and kinds
        ("paleo-a-new-beginning", 3, 0, "choose"),  # `choose ... showing`: labels
        ("cro-magnon", 3, 0, "choose"),
    ],
)
def test_packs_go_as_before(pack_id, players, seed, kind):
    """Every pack that asks: every decision, state and work left the same as before, answer for answer."""
    rules = load(CONTENT / pack_id)
    kinds = play_side_by_side(rules, players, seed, _as_before, answers=400)
    assert kinds[kind] > 3, kinds


def test_neolithibum_goes_as_before_step_by_step():
    """The same, every effect interpreted (the oracles of `run` lowered in neither game)."""
    rules = load(CONTENT / "neolithibum")
    with interpreted(rules):
        assert play_side_by_side(rules, 3, 2, _as_before)["secret"] > 10


_SHOWN = 'choose_secretly players from hand(me) as picks showing "{item.name}!" with "Which do you keep?"'
_EFFECTS = {
    "one pick each": KEEP.replace(" taking {amount}", ""),
    "taking two": KEEP.format(amount=2),
    "taking between": KEEP.format(amount="between(0, 2)"),
    "showing": KEEP.replace(
        'choose_secretly players from hand(me) taking {amount} as picks with "Which do you keep?"', _SHOWN
    ),
    "of players": KEEP.replace("hand(me) taking {amount}", "opponents").replace(
        "move picks[n] to basket for p", "log picks[n]"
    ),
    "choose two": "choose 2 from hand(me) as two\nmove two to basket\ngain 1 vp",
    "choose up to two": "choose between(0, 2) from hand(me) as some\nmove some to basket\ngain 1 vp",
    "choose a pair": 'choose 1 from [[1, 2], [3, 4]] as pair with "Which pair?"\ngain 1 vp',
    "choose showing": 'choose 1 from hand(me) as one showing "{item.name}!"\nmove one to basket\ngain 1 vp',
}


@pytest.mark.parametrize("effect", sorted(_EFFECTS))
@pytest.mark.parametrize("copies", [None, {"Bread": 1, "Cheese": 1, "Plum": 1, "Fig": 1, "Nut": 1}])
def test_small_choices_go_as_before(tmp_path, effect, copies):
    """A secret choice of cards or players, one pick or several, labelled or not; `choose` of one, two, up to two,
    of lists (a shape to label) and labelled; identical cards or none; 2 or 3 players: all as before."""
    rules = pack(tmp_path, _EFFECTS[effect], copies)
    asked = 0
    for seed in range(3):
        kinds = play_side_by_side(rules, 2 + seed % 2, seed, _as_before)
        asked += kinds["secret"] + kinds["choose"]
    assert asked > 3


def test_the_oracles_run_in_lowered_effects(monkeypatch):
    """`play_side_by_side` runs `Choose.run`'s oracle for the game played as before and `Choose.run` for the other, as
    often: a lowered effect keeps the `run` it was built with, so an oracle patched on the class alone would not run
    there."""
    calls: list[str] = []
    oracle, now = _choose_run_before, verbs.Choose.run

    def counted_before(*args):
        calls.append("before")
        return oracle(*args)

    def counted_now(*args):
        calls.append("now")
        return now(*args)

    monkeypatch.setattr(verbs.Choose, "run", counted_now)
    monkeypatch.setitem(
        globals(), "_PATCHED", tuple((o, n, counted_before if f is oracle else f) for o, n, f in _PATCHED)
    )
    play_side_by_side(load(CONTENT / "stone-age-mammoth-herd"), 4, 1, _as_before, answers=200)
    assert calls.count("before") == calls.count("now") > 10


# ------------------------------------------------------------------------------------------- the fast paths
def _refused(*args, **kwargs):
    raise AssertionError("called")


def _play(pack_id: str, answers: int, players: int = 4) -> Game:
    game = Game.new(load(CONTENT / pack_id), players, 0)
    play_randomly(game, random.Random(0), limit=answers)
    return game


def test_a_choice_with_nothing_to_label_calls_no_labelled(monkeypatch):
    """`choose` and a secret choice without `showing` nor list options return their decision as it is: fails without
    the fast paths (Neolithibum asks both)."""
    monkeypatch.setattr(verbs, "labelled", _refused)
    game = _play("neolithibum", 150)
    kinds = {line[0] for line in game.state["log"] if type(line[0]) is str}
    assert "together" in kinds and "choice" in kinds


def test_choose_pays_for_its_candidates_without_spend(monkeypatch):
    """`choose` charges its candidates to the work budget without a call of `spend` (the same units: the games above
    end with the same work): fails without the fast path."""
    running = []
    run = verbs.Choose.run

    def watched(self, g, c, frame):
        running.append(True)
        try:
            return run(self, g, c, frame)
        finally:
            running.pop()

    def watched_spend(g, units, *rest):
        assert not running, "`spend` called by `choose`"
        return spend(g, units, *rest)

    monkeypatch.setattr(verbs.Choose, "run", watched)
    monkeypatch.setattr(verbs, "spend", watched_spend)
    # interpreted: the lowered effects would keep the `run` they were built with
    rules = load(CONTENT / "stone-age-mammoth-herd")
    with interpreted(rules):
        game = Game.new(rules, 4, 0)
        play_randomly(game, random.Random(0), limit=100)
    assert sum(line[0] == "choice" for line in game.state["log"] if type(line[0]) is str) > 3


def test_secret_choice_of_players_asks_no_card_question(monkeypatch):
    """A secret choice whose options hold no card (Neolithibum's "at which player") asks no chooser whether two
    options are the same card: fails without the fast path. (One of cards still does, from every option's kind read
    at once when all are card numbers, without `_same_kind_twice`: tests/test_runtime_speed_zn_secret_loops.py.)"""
    asked: list[list] = []
    same_kind_twice = verbs._same_kind_twice

    def watched(g, values):
        asked.append(values)
        return same_kind_twice(g, values)

    monkeypatch.setattr(verbs, "_same_kind_twice", watched)
    game = _play("neolithibum", 150)
    assert sum(line[0] == "together" for line in game.state["log"] if type(line[0]) is str) > 4
    assert all(int in map(type, values) for values in asked)


def test_one_pick_each_keeps_no_picks_and_its_wait_is_dropped(monkeypatch):
    """One pick each: `resume` keeps no pick in the wait (fails without the fast path), which interpreter.resume_verb
    drops as `resume` returns None, before any decision, view or save could read it."""
    resume = verbs.ChooseSecretly.resume
    seen = []

    def watched(self, g, c, frame, answer):
        result = resume(self, g, c, frame, answer)
        if not frame["wait"]["taking"]:
            assert result is None
            assert "picks" not in frame["wait"]  # (none kept at all: nothing to forget in an imagined game)
            seen.append(frame)
        return result

    monkeypatch.setattr(verbs.ChooseSecretly, "resume", watched)
    game = _play("neolithibum", 150)
    assert len(seen) > 4
    assert all(frame["wait"] is None for frame in seen)  # dropped as `resume` returned
    assert game.state["history"]


def test_secret_first_offers_are_those_offered(tmp_path):
    """What each could pick at first is the offer and the options first offered themselves (imagine.py resets a
    chooser's picks to them), as the comprehension made it."""
    game = Game.new(pack(tmp_path, KEEP.format(amount=2)), 3, 0)
    wait = game.state["stack"][-1]["wait"]
    assert set(wait["first"]) == set(wait["order"])
    for player, (offer, allowed) in wait["first"].items():
        assert offer is wait["offer"][player]
        assert allowed is game.state["pending"]["allowed"][player]


def test_in_play_from_calls_no_players_from(monkeypatch):
    """`players` and `opponents` rotate the seats without a call of `players_from`: fails without the fast path;
    the same seats as `players_from` less those out, whoever is asked (a seat not at the table: from the first)."""
    game = _play("neolithibum", 0)
    expected = {p: _in_play_from_before(game, p) for p in [*game.players, "nobody"]}
    game.state["out"] = {game.players[1]: "round"}
    expected_out = {p: _in_play_from_before(game, p) for p in [*game.players, "nobody"]}
    monkeypatch.setattr(Table, "players_from", _refused)
    assert {p: game.in_play_from(p) for p in expected} == expected_out
    del game.state["out"]
    assert {p: game.in_play_from(p) for p in expected} == expected
    assert expected["P3"] == ["P3", "P4", "P1", "P2"]


def test_a_move_tells_the_setup_without_in_setup(monkeypatch):
    """A move of one card tells whether it is part of the setup without a call of `in_setup`: fails without the fast
    path (Stone Age lays out its board one card at a time at the setup: those moves are told as the setup's)."""
    running = []
    move_one, in_setup = verbs._move_one_logged, Table.in_setup

    def watched(*args):
        running.append(True)
        try:
            return move_one(*args)
        finally:
            running.pop()

    def watched_in_setup(self):
        assert not running, "`in_setup` called by a move of one card"
        return in_setup(self)

    monkeypatch.setattr(verbs, "_move_one_logged", watched)
    monkeypatch.setattr(Table, "in_setup", watched_in_setup)
    game = _play("stone-age-mammoth-herd", 60)
    moves = [line for line in game.state["log"] if line[0] == MOVE and len(line[6]) == 1]
    assert any(line[1] for line in moves) and any(not line[1] for line in moves)
