"""Neolithibum's rules rewritten to work out less, the same rules (issue 16: a pack's own text may be made cheaper when
its games stay the same):
- the know-it-alls' aims are gathered once a round (`know_aims`), instead of a loop over every player for each
  carrier, and nobody is looked at when no know-it-all was played;
- the clubmen are counted among the round's picks (the cards just laid out), not over every player's `played`;
- whether the temple has collapsed is known after each card carried out (only the player placing a stone brings it
  down, and `collapse` flags them): `fallen`, instead of asking `collapsed_this_round()` of every player for each card
  (the round, and the punishment of a round without a stone);
- the doubter of a stone is the first objector found by `index_of`, instead of a loop over the opponents.
The oracle is the pack as it was written before (the old texts put back into a copy): random games of every player
count played side by side, answer for answer, hold the same state (all but the effects' own locals and the steps
counted) and end with the same fingerprint."""

from __future__ import annotations

import random
import shutil

import pytest
from scenario import ROOT

from engine.runtime.rules import load

PACK = ROOT / "content" / "neolithibum"
# (file, the text now, the text before)
REWRITES = [
    (
        "rules/round.yaml",
        """  # of category 2; at most 3. `know_aims`: the players the know-it-alls point at (one entry per card)
  let know_aims = map(picks where id = know_it_all, aims[index_of(picks, item)])
  if not empty(know_aims):
      for each target in players where count(played(item) where tag = carrier) > 0:
          let taken = min(count(know_aims where item = target), max_handicaps)
          if taken >= 1:
              draw 1 from handicaps_1 to handicaps for target
          if taken >= 2:
              draw 1 from handicaps_2 to handicaps for target
          if taken >= 3:
              draw 1 from handicaps_3 to handicaps for target
""",
        """  # of category 2; at most 3
  for each target in players where count(played(item) where tag = carrier) > 0:
      let pointing = 0
      let m = 0
      for each q in players:
          let m = m + 1
          if picks[m].id = know_it_all and aims[m] = target:
              let pointing = pointing + 1
      let taken = min(pointing, max_handicaps)
      if taken >= 1:
          draw 1 from handicaps_1 to handicaps for target
      if taken >= 2:
          draw 1 from handicaps_2 to handicaps for target
      if taken >= 3:
          draw 1 from handicaps_3 to handicaps for target
""",
    ),
    (
        "rules/round.yaml",
        """  let clubmen = count(picks where id = clubman)
  let fallen = false
  let n = 0
  for each p in players:
      let n = n + 1
      if fallen:
          log "The temple collapsed: this card is not carried out"
      elif has(picks[n], carrier):
          perform carry_stone with picks[n] for p
          let fallen = flagged(collapsed, p)
""",
        """  let clubmen = count(everyone(played) where id = clubman)
  let n = 0
  for each p in players:
      let n = n + 1
      if collapsed_this_round():
          log "The temple collapsed: this card is not carried out"
      elif has(picks[n], carrier):
          perform carry_stone with picks[n] for p
""",
    ),
    (
        "rules/round.yaml",
        """      let fallen = false
      for each p in players:
          if not fallen:
              perform escape_cowardice for p
              let fallen = flagged(collapsed, p)
""",
        """      for each p in players:
          if not collapsed_this_round():
              perform escape_cowardice for p
""",
    ),
    (
        "rules/stones.yaml",
        """  let first_objection = index_of(objections, "object")
  if first_objection = 0:
      stop
  let doubter = opponents[first_objection]
""",
        """  let doubter = none
  let n = 0
  for each p in opponents:
      let n = n + 1
      if doubter = none and objections[n] = "object":
          let doubter = p
  if doubter = none:
      stop
""",
    ),
]
APART = (
    "stack",
    "steps",
    "pack_version",
)  # the effects' locals (other names, mid-effect), the steps counted, the text's hash


@pytest.fixture(scope="module")
def rules_before(tmp_path_factory):
    """The pack as written before the rewrites."""
    folder = tmp_path_factory.mktemp("neolithibum_before") / "neolithibum"
    shutil.copytree(PACK, folder)
    for name, now, before in REWRITES:
        path = folder / name
        text = path.read_text()
        assert text.count(now) == 1, f"{name}: the rewritten text is not (once) in the pack"
        path.write_text(text.replace(now, before))
    return load(folder)


def _game_state(game) -> dict:
    return {key: value for key, value in game.state.items() if key not in APART}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("seed", [0, 7])
def test_rewritten_rules_play_the_same_games(rules_before, players, seed):
    from engine.runtime.game import Game

    now, before = Game.new(load(PACK), players, seed), Game.new(rules_before, players, seed)
    assert _game_state(now) == _game_state(before)
    rnd = random.Random(seed)
    answered = 0
    while not now.over:
        decision = now.decision
        player = decision.players[0]
        assert before.decision.players == decision.players and before.legal(player) == now.legal(player)
        legal = now.legal(player)
        option = legal[rnd.randrange(len(legal))]
        now.apply(option, player)
        before.apply(option, player)
        answered += 1
        if answered % 25 == 0 or now.over:  # (the whole state compared every 25 answers: the log is long)
            assert _game_state(now) == _game_state(before), answered
        assert now.state["pending"] == before.state["pending"], answered
    assert before.over
    assert now.state_hash() == before.state_hash()
