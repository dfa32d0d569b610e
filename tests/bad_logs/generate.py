"""Write the bad-log and bad-save corpus (see README.md): `python tests/bad_logs/generate.py`.

Each case is one damaged copy of a real log or save of the `toy` pack beside this file, and the fragment
its one-line error must contain. Run this again after a change to the toy pack or to the file formats;
the cases are committed, so a change in what knap says shows in review.
"""

from __future__ import annotations

import copy
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from engine.runtime import rules as pack_rules
from engine.runtime import session
from engine.runtime.game import Game

SEED, PLAYERS = 2, 2
HEADER = (
    "# FILE  CODE  FRAGMENT: `knap replay FILE --pack toy` exits 1 with one line on stderr that names the runtime\n"
    "# error CODE and contains FRAGMENT, then the code's hint. Written by generate.py; see README.md.\n"
)


def _games():
    """The base log (a whole game) and two saves of it: at a choice inside an action, and at a die roll."""
    rules = pack_rules.load(HERE / "toy")
    game = Game.new(rules, PLAYERS, SEED)
    rnd = random.Random(SEED)
    saves = {}
    while not game.over:
        decision = game.decision
        if decision.kind in ("choose", "roll") and decision.kind not in saves:
            saves[decision.kind] = json.loads(game.save())
        if decision.is_chance:
            game.apply_chance()
        else:
            session.play_randomly(game, rnd, limit=1)
    log = session.game_log(game, agents=["random", "random"])
    log["pack_path"] = "toy"
    return log, saves["choose"], saves["roll"]


def _set(data, path, value=None, delete=False):
    data = copy.deepcopy(data)
    node = data
    for key in path[:-1]:
        node = node[key]
    if delete:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return data


def _text(data) -> str:
    return json.dumps(data, indent=1) + "\n"


def cases():
    """(file name, file content, expected fragment) for every case."""
    log, choose, roll = _games()
    last = len(log["decisions"]) - 1
    out = []

    def log_case(name, fragment, data=None, raw=None):
        out.append((f"log_{name}.json", raw if raw is not None else _text(data), fragment))

    def save_case(name, fragment, data=None, raw=None):
        out.append((f"save_{name}.json", raw if raw is not None else _text(data), fragment))

    # --- logs: answers of the wrong type or out of range
    log_case(
        "option_float",
        "/decisions/0/1: this entry must be a whole number, not 0.0",
        _set(log, ["decisions", 0, 1], 0.0),
    )
    log_case(
        "option_float_2_0",
        "/decisions/3/1: this entry must be a whole number, not 2.0",
        _set(log, ["decisions", 3, 1], 2.0),
    )
    log_case(
        "option_true",
        "/decisions/0/1: this entry must be a whole number, not true",
        _set(log, ["decisions", 0, 1], True),
    )
    log_case(
        "option_false",
        "/decisions/0/1: this entry must be a whole number, not false",
        _set(log, ["decisions", 0, 1], False),
    )
    log_case(
        "option_string",
        '/decisions/0/1: this entry must be a whole number, not "1"',
        _set(log, ["decisions", 0, 1], "1"),
    )
    log_case(
        "option_null",
        "/decisions/0/1: this entry must be a whole number, not null",
        _set(log, ["decisions", 0, 1], None),
    )
    log_case(
        "option_list", "/decisions/0/1: this entry must be a whole number, not [0]", _set(log, ["decisions", 0, 1], [0])
    )
    log_case(
        "option_negative",
        "/decisions/0/1: this entry is -1, out of range (minimum 0)",
        _set(log, ["decisions", 0, 1], -1),
    )
    log_case(
        "option_huge",
        "/decisions/0/1: this entry is 1000000000000, out of range (maximum 1000000)",
        _set(log, ["decisions", 0, 1], 10**12),
    )
    log_case(
        "option_not_legal",
        "/decisions/0: the log does not replay: decision 1 (P1 answers 9): 9 is not a legal answer",
        _set(log, ["decisions", 0, 1], 9),
    )
    log_case(
        "seed_too_many_digits",
        "a whole number of 5000 digits is too long",
        raw=_text(log).replace('"seed": 2', '"seed": ' + "9" * 5000),
    )
    log_case("option_nan", "`NaN` is not a number JSON allows", raw=_text(log).replace('"seed": 2', '"seed": NaN'))
    log_case(
        "option_infinity",
        "`Infinity` is not a number JSON allows",
        raw=_text(_set(log, ["decisions", 0, 1], 123456789)).replace("123456789", "Infinity"),
    )
    log_case(
        "option_minus_infinity",
        "`-Infinity` is not a number JSON allows",
        raw=_text(_set(log, ["decisions", 0, 1], 123456789)).replace("123456789", "-Infinity"),
    )
    log_case(
        "option_1e999",
        "the number 1e999 is too large",
        raw=_text(_set(log, ["decisions", 0, 1], 123456789)).replace("123456789", "1e999"),
    )
    # --- logs: answers of the wrong shape
    log_case("decision_one_item", '/decisions/0: this entry is ["P1"]: One answer', _set(log, ["decisions", 0], ["P1"]))
    log_case(
        "decision_three_items",
        '/decisions/0: this entry is ["P1", 0, 0]: One answer',
        _set(log, ["decisions", 0], ["P1", 0, 0]),
    )
    log_case("decision_empty", "/decisions/0: this entry is []: One answer", _set(log, ["decisions", 0], []))
    log_case(
        "decision_object",
        "/decisions/0: this entry must be a list",
        _set(log, ["decisions", 0], {"player": "P1", "option": 0}),
    )
    log_case("decision_number", "/decisions/0: this entry must be a list", _set(log, ["decisions", 0], 0))
    log_case(
        "decision_unknown_seat",
        "/decisions/0: the log does not replay: decision 1 (P9 answers 0): P9 has nothing to decide now",
        _set(log, ["decisions", 0, 0], "P9"),
    )  # P9 has the form of a seat, but the game has 2
    log_case(
        "decision_bad_seat",
        '/decisions/0/0: this entry is "Alice", which does not have the required form',
        _set(log, ["decisions", 0, 0], "Alice"),
    )
    log_case(
        "decision_seat_number", "/decisions/0/0: this entry must be a text, not 1", _set(log, ["decisions", 0, 0], 1)
    )
    log_case(
        "decision_wrong_player",
        "/decisions/0: the log does not replay: decision 1 (P2 answers 0): P2 has nothing to decide now",
        _set(log, ["decisions", 0, 0], "P2"),
    )
    log_case(
        "decision_chance_out_of_turn",
        "/decisions/0: the log does not replay: decision 1 (chance answers 0): chance has nothing",
        _set(log, ["decisions", 0, 0], "chance"),
    )
    log_case(
        "decision_after_the_end",
        f"/decisions/{last + 1}: the log does not replay: decision {last + 2} (P1 answers 0): the game is over",
        _set(log, ["decisions"], log["decisions"] + [["P1", 0]]),
    )
    log_case(
        "decision_missing", "the replayed game differs from the log", _set(log, ["decisions"], log["decisions"][:-1])
    )
    log_case("decisions_null", "/decisions: `decisions` must be a list, not null", _set(log, ["decisions"], None))
    log_case("decisions_object", "/decisions: `decisions` must be a list, not {}", _set(log, ["decisions"], {}))
    log_case("decisions_text", '/decisions: `decisions` must be a list, not "P1 0"', _set(log, ["decisions"], "P1 0"))
    log_case("decisions_missing", "/decisions: `decisions` is missing", _set(log, ["decisions"], delete=True))
    # --- logs: the setup
    log_case("players_text", '/players: `players` must be a whole number, not "two"', _set(log, ["players"], "two"))
    log_case("players_fraction", "/players: `players` must be a whole number, not 2.7", _set(log, ["players"], 2.7))
    log_case("players_float_2_0", "/players: `players` must be a whole number, not 2.0", _set(log, ["players"], 2.0))
    log_case("players_true", "/players: `players` must be a whole number, not true", _set(log, ["players"], True))
    log_case("players_zero", "/players: `players` is 0, out of range (minimum 1)", _set(log, ["players"], 0))
    log_case(
        "players_too_many_for_the_pack", "/players: this pack is for 2 to 3 players, not 9", _set(log, ["players"], 9)
    )
    log_case(
        "players_list",
        '/players: `players` must be a whole number, not ["P1", "P2"]',
        _set(log, ["players"], ["P1", "P2"]),
    )
    log_case("players_missing", "/players: `players` is missing", _set(log, ["players"], delete=True))
    log_case("seed_text", '/seed: `seed` must be a whole number, not "x"', _set(log, ["seed"], "x"))
    log_case("seed_fraction", "/seed: `seed` must be a whole number, not 2.5", _set(log, ["seed"], 2.5))
    log_case("seed_true", "/seed: `seed` must be a whole number, not true", _set(log, ["seed"], True))
    log_case("seed_null", "/seed: `seed` must be a whole number, not null", _set(log, ["seed"], None))
    log_case("seed_other", "): chance has nothing to decide now", _set(log, ["seed"], 3))
    log_case(
        "max_rounds_text",
        '/max_rounds: `max_rounds` must be a whole number, not "500"',
        _set(log, ["max_rounds"], "500"),
    )
    log_case(
        "max_rounds_zero", "/max_rounds: `max_rounds` is 0, out of range (minimum 1)", _set(log, ["max_rounds"], 0)
    )
    log_case(
        "max_rounds_huge",
        "/max_rounds: `max_rounds` is 1000000000000000000000, out of range",
        _set(log, ["max_rounds"], 10**21),
    )
    log_case(
        "format_other",
        '/format: `format` is "knap-log/2"; it must be "knap-log/1"',
        _set(log, ["format"], "knap-log/2"),
    )
    log_case("format_missing", "is not a Knapper game log", _set(log, ["format"], delete=True))
    log_case("pack_other", "/pack: the log is of the pack `other`, not `toy`", _set(log, ["pack"], "other"))
    log_case("pack_number", "/pack: `pack` must be a text, not 5", _set(log, ["pack"], 5))
    log_case(
        "pack_path_like",
        '/pack: `pack` is "../../etc", which does not have the required form',
        _set(log, ["pack"], "../../etc"),
    )
    log_case("pack_escape_sequence", '/pack: `pack` is "\\u001b[31mred"', _set(log, ["pack"], "\x1b[31mred"))
    log_case("pack_path_number", "/pack_path: `pack_path` must be a text, not 7", _set(log, ["pack_path"], 7))
    log_case("agents_text", '/agents: `agents` must be a list, not "random"', _set(log, ["agents"], "random"))
    log_case("final_hash_other", "the replayed game differs from the log", _set(log, ["final_hash"], "0" * 64))
    log_case("final_hash_number", "/final_hash: `final_hash` must be a text, not 0", _set(log, ["final_hash"], 0))
    log_case("final_hash_missing", "/final_hash: `final_hash` is missing", _set(log, ["final_hash"], delete=True))
    log_case(
        "result_text", '/result: `result` must be a mapping or empty, not "P1 won"', _set(log, ["result"], "P1 won")
    )
    log_case("unknown_key", '/decsions: "decsions" is not a key this may have', _set(log, ["decsions"], []))
    # --- logs: not JSON, or not a log at all
    log_case("top_level_list", "is not a Knapper game log", [])
    log_case("top_level_string", "is not a Knapper game log", "knap-log/1")
    log_case("top_level_null", "is not a Knapper game log", None)
    log_case("empty_file", "1:1: not valid JSON", raw="")
    log_case("garbage", "1:1: not valid JSON", raw="this is not json\n")
    log_case("truncated", "not valid JSON", raw=_text(log)[:200])
    log_case("trailing_comma", "not valid JSON", raw=_text(log).replace('"toy",', '"toy",,', 1))
    log_case(
        "duplicate_key",
        '4:2: the key "pack" appears twice in one object',
        raw=_text(log).replace('"pack": "toy",', '"pack": "toy",\n "pack": "other",', 1),
    )
    log_case("deep_nesting", "the data nests too deeply", raw="[" * 10000 + "]" * 10000)
    log_case("deep_but_parseable", "the data nests too deeply", raw="[" * 200 + "]" * 200)
    log_case("single_quotes", "not valid JSON", raw=_text(log).replace('"', "'"))
    out.append(("log_not_utf8.json", _text(log).encode().replace(b'"random"', b'"r\xe9\xff"', 1), "not UTF-8"))

    # --- saves
    save_case("top_level_list", "this is not a Knapper game log (nor a saved game)", [])
    save_case("top_level_number", "this is not a Knapper game log (nor a saved game)", 7)
    save_case("garbage", "1:2: not valid JSON", raw="{saved game}")
    save_case("nan", "`NaN` is not a number JSON allows", raw=_text(choose).replace('"seed": 2', '"seed": NaN'))
    save_case("deep_nesting", "the data nests too deeply", raw='{"a":' * 2000 + "1" + "}" * 2000)
    save_case(
        "format_other",
        '/format: `format` is "knap-state/0"; it must be "knap-state/2"',
        _set(choose, ["format"], "knap-state/0"),
    )
    save_case(
        "pack_other", "/pack: this game was saved with the pack `other`, not `toy`", _set(choose, ["pack"], "other")
    )
    save_case(
        "pack_version_other",
        "/pack_version: the pack has changed since this game was saved",
        _set(choose, ["pack_version"], "0123456789abcdef"),
    )
    save_case("zones_missing", "/zones: `zones` is missing", _set(choose, ["zones"], delete=True))
    save_case("zones_list", "/zones: `zones` must be a mapping, not []", _set(choose, ["zones"], []))
    save_case("zone_unknown", "/zones/attic: the pack has no such zone", _set(choose, ["zones", "attic"], []))
    save_case("zone_removed", "/zones: the zone `deck` is missing", _set(choose, ["zones", "deck"], delete=True))
    deck = choose["zones"]["deck"]
    save_case(
        "card_twice",
        f"/zones/discard_pile/0: card {deck[0]} is also in `deck`: a card lies in one place",
        _set(choose, ["zones", "discard_pile"], choose["zones"]["discard_pile"] + [deck[0]]),
    )
    save_case("card_lost", f"/zones: card {deck[0]} is in no zone", _set(choose, ["zones", "deck"], deck[1:]))
    save_case(
        "card_unknown",
        "/zones/deck/0: there is no card 999: the pack has 8",
        _set(choose, ["zones", "deck"], [999] + deck[1:]),
    )
    save_case(
        "card_text", '/zones/deck/0: this entry is "pebble"', _set(choose, ["zones", "deck"], ["pebble"] + deck[1:])
    )
    save_case("card_true", "/zones/deck/0: this entry is true", _set(choose, ["zones", "deck"], [True] + deck[1:]))
    save_case("card_float", "/zones/deck/0: this entry is 1.0", _set(choose, ["zones", "deck"], [1.0] + deck[1:]))
    save_case(
        "card_null_outside_a_row",
        "/zones/deck/0: an empty place (null) is only allowed in a row",
        _set(choose, ["zones", "deck"], [None] + deck),
    )
    save_case(
        "loc_wrong", f"/loc/{deck[0]}: card {deck[0]} lies in `deck`", _set(choose, ["loc", deck[0]], "discard_pile")
    )
    save_case("loc_short", "/loc: 7 entries, but the pack has 8 cards", _set(choose, ["loc"], choose["loc"][:-1]))
    save_case(
        "orient_out_of_range", "/orient/0: this entry is 7, out of range (maximum 2)", _set(choose, ["orient", 0], 7)
    )
    save_case("shown_not_a_card", '/shown/x: "x" is not a card number', _set(choose, ["shown", "x"], "all"))
    save_case(
        "players_unknown_names",
        "/players: the seats must be P1 to P2 in order",
        _set(choose, ["players"], ["P2", "P1"]),
    )
    save_case(
        "players_text",
        '/players/0: this entry is "Alice", which does not have the required form',
        _set(choose, ["players", 0], "Alice"),
    )
    save_case(
        "players_too_many",
        "/players: 4 seats, but this pack is for 2 to 3 players",
        _set(choose, ["players"], ["P1", "P2", "P3", "P4"]),
    )
    save_case("players_empty", "/players: `players` is []", _set(choose, ["players"], []))
    save_case(
        "params_unknown", "/params/extra: the pack has no parameter `extra`", _set(choose, ["params", "extra"], 1)
    )
    save_case(
        "counter_unknown",
        "/counters/P1/gold: the pack has no such counter",
        _set(choose, ["counters", "P1", "gold"], 3),
    )
    save_case(
        "counter_text",
        '/counters/P1/vp: `vp` must be a whole number, not "3"',
        _set(choose, ["counters", "P1", "vp"], "3"),
    )
    save_case(
        "counter_owner_unknown",
        "/counters: must have one entry for each seat and `table`",
        _set(choose, ["counters", "P7"], {}),
    )
    save_case(
        "used_seat_missing", "/used: must have one entry for each seat", _set(choose, ["used", "P2"], delete=True)
    )
    save_case("turn_player_unknown", "/turn/player: is not a seat of this game", _set(choose, ["turn", "player"], "P3"))
    save_case(
        "turn_number_float",
        "/turn/number: `number` must be a whole number, not 1.5",
        _set(choose, ["turn", "number"], 1.5),
    )
    save_case("stage_unknown", '/stage: `stage` is "lunch"', _set(choose, ["stage"], "lunch"))
    save_case(
        "frame_code_unknown",
        '/stack/0/code: the pack has no effect "action/fly/effect"',
        _set(choose, ["stack", 0, "code"], "action/fly/effect"),
    )
    save_case(
        "frame_code_an_expression",
        '/stack/0/code: the pack has no effect "action/play_card/available"',
        _set(choose, ["stack", 0, "code"], "action/play_card/available"),
    )
    save_case(
        "frame_pc_past_the_end",
        "/stack/0/pc: step 999 is past the end of `action/play_card/effect`",
        _set(choose, ["stack", 0, "pc"], 999),
    )
    save_case(
        "frame_pc_negative", "/stack/0/pc: `pc` is -1, out of range (minimum 0)", _set(choose, ["stack", 0, "pc"], -1)
    )
    save_case(
        "frame_pc_float", "/stack/0/pc: `pc` must be a whole number, not 0.0", _set(choose, ["stack", 0, "pc"], 0.0)
    )
    save_case(
        "frame_pc_other_step",
        "/stack/0/pc: the innermost effect is not at a `choose` step",
        _set(choose, ["stack", 0, "pc"], choose["stack"][0]["pc"] + 1),
    )
    save_case("frame_missing_key", "/stack/0/env: `env` is missing", _set(choose, ["stack", 0, "env"], delete=True))
    save_case(
        "stack_empty_under_a_choice",
        "/pending/kind: a decision inside an effect needs the effect's frame",
        _set(choose, ["stack"], []),
    )
    save_case("stack_text", '/stack: `stack` must be a list, not "deep"', _set(choose, ["stack"], "deep"))
    save_case("pending_kind_unknown", '/pending/kind: `kind` is "guess"', _set(choose, ["pending", "kind"], "guess"))
    save_case(
        "pending_by_unknown", "/pending/by/0: is not a seat of this game", _set(choose, ["pending", "by", 0], "P3")
    )
    save_case(
        "pending_by_two",
        "/pending/by: a `choose` decision is answered by one player",
        _set(choose, ["pending", "by"], ["P1", "P2"]),
    )
    save_case("pending_no_options", "/pending/options: `options` is []", _set(choose, ["pending", "options"], []))
    save_case("pending_missing", "/pending: a game in progress is saved at a decision", _set(choose, ["pending"], None))
    save_case(
        "pending_chance_by_a_player",
        "/pending/by: dice and oracles (and only they) are answered by `chance`",
        _set(roll, ["pending", "by"], ["P1"]),
    )
    save_case(
        "pending_probs_missing",
        "/pending/probs: a chance decision needs one probability per option",
        _set(roll, ["pending", "probs"], delete=True),
    )
    save_case(
        "pending_probs_nan",
        "`NaN` is not a number JSON allows",
        raw=_text(roll).replace('"probs": [\n   0.5', '"probs": [\n   NaN', 1),
    )
    save_case(
        "action_option_a_list",
        "/pending/options/0: the pack has no action []",
        _set(roll["attempt"]["snap"], ["pending", "options", 0], [])
        | {"attempt": None, "log": [], "history": [], "dead": []},
    )
    save_case(
        "pending_card_unknown", "/pending/options/0: there is no card 999", _set(choose, ["pending", "options", 0], 999)
    )
    save_case(
        "attempt_action_unknown",
        "/attempt/action: the pack has no such action",
        _set(choose, ["attempt", "action"], "fly"),
    )
    save_case(
        "attempt_snap_broken",
        "/attempt/snap/zones: `zones` is missing",
        _set(choose, ["attempt", "snap", "zones"], delete=True),
    )
    save_case(
        "attempt_snap_card_lost",
        "/attempt/snap/zones: card",
        _set(choose, ["attempt", "snap", "zones", "deck"], choose["attempt"]["snap"]["zones"]["deck"][1:]),
    )
    save_case(
        "attempt_path_empty",
        "/attempt/path: `path` and `counts` must be as long as each other",
        _set(choose, ["attempt", "path"], []),
    )
    save_case("history_bad_entry", '/history/0: this entry is ["P1"]', _set(choose, ["history", 0], ["P1"]))
    save_case("log_entry_number", "/log/0: this entry must be a list, not 5", _set(choose, ["log", 0], 5))
    save_case(
        "rng_text",
        '/rng/shuffle:deck: `shuffle:deck` must be a whole number, not "x"',
        _set(choose, ["rng", "shuffle:deck"], "x"),
    )
    save_case(
        "rng_negative",
        "/rng/shuffle:deck: `shuffle:deck` is -5, out of range (minimum 0)",
        _set(choose, ["rng", "shuffle:deck"], -5),
    )
    save_case(
        "result_while_playing",
        "/result: a finished game has a result, and only a finished game",
        _set(choose, ["result"], {"winners": [], "scores": {}, "reason": "x", "turns": 1}),
    )
    save_case("unknown_key", '/cheat: "cheat" is not a key this may have', _set(choose, ["cheat"], True))
    save_case(
        "max_turns_text",
        '/max_turns: `max_turns` must be a whole number, not "many"',
        _set(choose, ["max_turns"], "many"),
    )
    return out


def code_of(path: Path) -> str:
    """The runtime error code `knap replay PATH --pack toy` names (docs/runtime-errors.md), or `-`."""
    import contextlib
    import io
    import re

    from engine.commands.cli import main as knap

    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        knap(["replay", str(path), "--pack", str(HERE / "toy")])
    found = re.search(r": (X\d{3}) ", err.getvalue().split("\n")[0])
    return found.group(1) if found else "-"


def main():
    lines = []
    made = cases()
    for stale in {*HERE.glob("log_*.json"), *HERE.glob("save_*.json")} - {HERE / name for name, _, _ in made}:
        stale.unlink()  # a case renamed or dropped
    for name, content, fragment in made:
        path = HERE / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        lines.append(f"{name}  {code_of(path)}  {fragment}")
    (HERE / "expected.txt").write_text(HEADER + "\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} cases written to {HERE}")


if __name__ == "__main__":
    main()
