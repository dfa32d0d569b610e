"""A log line is read by every player (docs/authoring.md, "Counters not everyone may read"): a value put into it
that reads a counter another player may not read is lint's D011 — it was a silent leak (an example pack logged
"{me.chips} left" and every player read another's owner-only chips)."""

from __future__ import annotations

import pytest
from conftest import one_action_rules, tiny_manifest, write_tree

COUNTERS = """kind: counter
id: chips
name: Chips
owner: player
visibility: owner
---
kind: counter
id: bag
name: Bag
owner: table
visibility: hidden
---
kind: counter
id: pot
name: Pot
owner: table
"""


@pytest.mark.parametrize(
    ("line", "warned"),
    [
        ('log "{me} has {me.chips} chips"', True),
        ('log "{amount(chips, me)} left"', True),
        ('log "the bag holds {bag}"', True),
        ('log "{me} pays a chip; the pot holds {pot}"', False),
        ('let left = me.chips\nask me "You have {left}: go on?" as going', False),  # asked of the owner alone
    ],
)
def test_a_log_line_that_shows_a_hidden_counter_is_warned(tmp_path, lint_json, line, warned):
    rules = one_action_rules(line + "\ngain 1 vp", action="limit: once_per_turn", before=COUNTERS)
    pack = write_tree(tmp_path / "tiny", {"pack.yaml": tiny_manifest(), "rules.yaml": rules})
    _, found = lint_json(str(pack))
    codes = [code for _, _, _, code, _ in found]
    assert ("D011" in codes) is warned, codes
