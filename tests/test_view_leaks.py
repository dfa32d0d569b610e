"""No seat is ever told the name of a card it cannot see (issue 13).

docs/runtime.md promises: "Players' views and logs name only the cards they can see". Random games of every
shipped pack, and of small packs that use every verb that moves, shows or chooses cards with hidden zones,
are played; after every decision, every seat's view, its log lines and the labels of the options it is
offered are searched for the names of cards the seat has never seen. What a seat has seen is the engine's
own notion: the cards it can see now (`Game.can_see`), and the cards of moves and reveals the log records
as seen by it then (the sight masks of log_words.py), gathered over the whole game.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from pathlib import Path

import pytest
from conftest import write_tree

from engine.runtime import rules as rules_module
from engine.runtime.context import Ctx
from engine.runtime.game import Game
from engine.runtime.log_words import MOVE, seat_bits
from engine.runtime.persist import SaveError
from engine.runtime.session import play_randomly
from engine.runtime.verbs import Reveal
from engine.runtime.views import option_label

ROOT = Path(__file__).resolve().parent.parent
REVEAL = "reveal"  # the log's entry of cards shown (log_words.REVEAL), as saves spell it
# the shipped packs and the example games of docs/examples, by folder
PACKS = sorted(
    str(p.relative_to(ROOT))
    for folder in (ROOT / "content", ROOT / "docs" / "examples")
    for p in folder.iterdir()
    if (p / "pack.yaml").exists()
)


def _texts(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)


def spoken_kinds(rules) -> set[str]:
    """Names of kinds of card that the pack's own rules say to everyone: an id in a list of the rules
    (`choose 1 from [seer, envoy] as guess`: a guess names a kind, and the log tells what was guessed) or a
    name in a quoted text (`log "the Seer does nothing"`). Naming a kind tells nothing about a card on the
    table, so those names are not searched for."""
    documents = [*rules.cards.values(), *rules.actions.values(), *rules.ends, *rules.scorings]
    documents += [*rules.functions.values(), *(d for phases in rules.phases.values() for d in phases)]
    names = {card_id: card.get("name") or card_id for card_id, card in rules.cards.items()}
    spoken = set()
    for text in (t for document in documents for key, v in document.items() if key != "name" for t in _texts(v)):
        for listed in re.findall(r"\[([^\]]*)\]", text):
            spoken |= {names[word] for word in re.findall(r"[a-z_][a-z0-9_]*", listed) if word in names}
        for quoted in re.findall(r'"([^"]*)"', text):
            spoken |= {name for name in names.values() if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", quoted)}
    return spoken


class Watcher:
    """Follows one game and checks every seat after every decision."""

    def __init__(self, game: Game):
        self.game = game
        rules = game.rules
        self.names = [game.card_label(n, None) for n in range(len(rules.instances))]
        words = [
            spec.get("name") or "" for table in (rules.zones, rules.actions, rules.counters) for spec in table.values()
        ]
        other_names = "\n".join(words + list(game.players))
        # a card's name that is also (a word of) the name of a zone, an action or a counter says nothing by itself
        self.card_names = {
            name for name in set(self.names) if name and not re.search(rf"(?<!\w){re.escape(name)}(?!\w)", other_names)
        } - spoken_kinds(rules)
        self.seen: dict[str, set[str]] = {p: set() for p in game.players}
        self.read: dict[str, int] = {p: 0 for p in game.players}  # log entries already gathered
        self.checked: dict[str, int] = {p: 0 for p in game.players}  # log lines already checked
        self.checks = 0

    def _gather(self, seat: str):
        """What `seat` has seen: the cards it sees now, and the cards the log says it saw move or shown."""
        g, seen = self.game, self.seen[seat]
        for card in range(len(self.names)):
            if g.can_see(card, seat):
                seen.add(self.names[card])
        bit = seat_bits(g)[seat]
        log = g.state["log"]
        start = self.read[seat] if self.read[seat] <= len(log) else 0
        for entry in log[start:]:
            if entry[0] == MOVE:
                seen.update(self.names[c] for c, mask in zip(entry[6], entry[7], strict=True) if mask & bit)
            elif entry[0] == REVEAL:
                seen.update(self.names[c] for c, mask in zip(entry[4], entry[5], strict=True) if mask & bit)
        self.read[seat] = len(log)

    def check(self, where: str):
        g = self.game
        for seat in g.players:
            self._gather(seat)
            unseen = sorted(self.card_names - self.seen[seat], key=len, reverse=True)
            view = g.view(seat)
            lines = view.pop("log")
            start = self.checked[seat] if self.checked[seat] <= len(lines) else 0
            texts = [("log", line) for line in lines[start:]]
            self.checked[seat] = len(lines)
            decision = view.get("decision") or {}
            texts += [("option", o["label"]) for o in decision.get("options", [])]
            view.pop("about")  # what the cards it sees say, which may name other kinds of card (a cost)
            texts.append(("view", json.dumps(view, ensure_ascii=False)))
            self.checks += 1
            # a name it saw may hold one it did not ("Stone Knife" and "Stone"): those are not searched
            covering = sorted((n for n in self.seen[seat] if any(u in n and u != n for u in unseen)), key=len)[::-1]
            for kind, text in texts:
                for name in covering:
                    text = text.replace(name, "\0")
                for name in unseen:
                    if name in text and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text):
                        raise AssertionError(
                            f"{where}: {seat} reads the name of a card it never saw ({name!r}) in its {kind}: "
                            f"{text[:300]}"
                        )
            pending = g.pending
            if pending is not None and pending.get("cards") and seat in pending["by"]:
                for key in g.legal(seat):
                    value = pending["options"][key]
                    label = option_label(g, pending, value, seat)
                    assert not re.fullmatch(r"[\d, ]+", label), f"{where}: a card option labelled {label!r}"


def play_watched(game: Game, seed: int, most: int, where: str) -> Watcher:
    """Random answers (the game's own stream for chance) until the game ends or `most` answers were given."""
    watcher = Watcher(game)
    watcher.check(f"{where}, at the start")
    steps = itertools.count(1)
    play_randomly(
        game, random.Random(seed), after=lambda g: watcher.check(f"{where}, after step {next(steps)}"), limit=most
    )
    return watcher


# every shipped pack and example game: a few short games each, 2 and 3 seats
@pytest.mark.parametrize("pack", PACKS)
def test_no_seat_reads_a_card_it_never_saw_in_shipped_packs(pack):
    rules = rules_module.load(ROOT / pack)
    low, high = rules.players
    checks = 0
    for seed, players in enumerate(sorted({max(low, min(high, n)) for n in (2, 3)})):
        game = Game.new(rules, players, seed, max_rounds=6)
        checks += play_watched(game, seed, 250, f"{pack}, seed {seed}, {players} players").checks
    assert checks > 10


# ---------------------------------------------------------------------- a small pack with every verb
MANIFEST = """kind: pack
id: peek
name: Peek
version: 1.0.0
players: {min: 2, max: 3}
"""

ZONES = """kind: zone
id: deck
name: Deck
type: deck
visibility: hidden
shuffled: true
discard: pile
---
kind: zone
id: pile
name: Pile
type: pile
visibility: public
---
kind: zone
id: stash
name: Stash
type: pile
visibility: hidden
---
kind: zone
id: market
name: Market
type: row
slots: 2
visibility: public
---
kind: zone
id: hand
name: Hand
type: hand
owner: player
visibility: owner
---
kind: zone
id: vault
name: Vault
type: tableau
owner: player
visibility: hidden
orientation: true
"""

# every card a different word, none a word of the rest of the pack
CARD_NAMES = ["Amber", "Basalt", "Cobalt", "Dolomite", "Emerald", "Flint", "Garnet", "Hematite", "Jasper", "Kyanite"]
CARDS = "\n---\n".join(
    f"kind: card\nid: {name.lower()}\nname: {name}\ntype: gem\ndeck: deck\ncopies: {3 if n == 0 else 1}\n"
    f"stats: {{worth: {n % 3 + 1}}}\n"
    "effect: |  # knap: ignore[D008]\n  gain card.worth vp"
    for n, name in enumerate(CARD_NAMES)
)

COUNTER = "kind: counter\nid: vp\nname: Points\nowner: player\n"
END = "kind: end\nid: goal\nname: Goal\ntrigger: me.vp >= 12\nthen: immediate\nresult: most\ncounter: vp\n"


def _action(action_id: str, effect: str, available: str = "") -> str:
    body = "\n".join("  " + line for line in effect.strip().splitlines())
    extra = f"available: {available}\n" if available else ""
    return f"kind: action\nid: {action_id}\nname: {action_id.title()} now\nlimit: once_per_turn\n{extra}effect: |\n{body}\n"


ACTIONS = [
    _action("draw_hand", "draw 1 from deck to hand"),
    _action("draw_loose", "draw 1 from deck as found\ntake found to vault"),
    _action(
        "peek_other",
        "choose 1 from opponents where count(hand(item)) > 0 as other\nchoose 1 from hand(other) as card\nreveal card to [me]",
        "count(hand(next_player(me))) > 0",
    ),
    _action(
        "show_one",
        "choose 1 from hand(me) as card\nchoose 1 from opponents as other\nreveal card to [other]",
        "count(hand(me)) > 0",
    ),
    _action("show_all", "choose 1 from vault(me) as card\nreveal card", "count(vault(me)) > 0"),
    _action(
        "hide",
        "choose 1 from hand(me) as card\nmove card to vault\nchoose 1 from opponents as other\ngive card to other",
        "count(hand(me)) > 0",
    ),
    _action("stash_it", "choose 1 from hand(me) as card\nmove card to stash", "count(hand(me)) > 0"),
    _action("toss", "choose 1 from hand(me) as card\ndiscard card", "count(hand(me)) > 0"),
    _action("bury", "choose 1 from vault(me) as card\nremove card", "count(vault(me)) > 0"),
    _action("grab", "choose 1 from pile as card\ntake card", "count(pile) > 0"),
    _action("blind_grab", "choose 1 from stash as card\ntake card", "count(stash) > 0"),
    _action("play", "choose 1 from hand(me) as card\nresolve card\ndiscard card", "count(hand(me)) > 0"),
    _action("refresh", "move market to pile\nslide market from deck"),
    _action("reshuffle", "shuffle pile into deck"),
    _action(
        "spend",
        "pay_cost [amber] from hand(me) as paid\ndiscard paid",
        "count(hand(me) where item.id = amber) > 0",
    ),
    _action(
        "secret",
        'choose_secretly players from hand(me) as picks with "Which card?"\n'
        "for each pick in picks:\n    if pick != none:\n        move pick to stash",
    ),
    _action("tilt", "choose 1 from vault(me) as card\nturn card to turned", "count(vault(me)) > 0"),
    _action(
        "secret_few",
        "choose_secretly players from hand(me) taking between(0, 2) as picks\nfor each few in picks:\n    discard few",
    ),
]


def peek_pack(tmp_path: Path) -> Path:
    return write_tree(
        tmp_path / "peek",
        {
            "pack.yaml": MANIFEST,
            "zones.yaml": ZONES,
            "cards.yaml": CARDS,
            "rules.yaml": "\n---\n".join([COUNTER, END, *ACTIONS]),
        },
    )


def test_the_small_pack_lints_clean(tmp_path, lint_json):
    _code, found = lint_json(peek_pack(tmp_path))
    assert found == []


@pytest.mark.parametrize("players", [2, 3])
def test_no_seat_reads_a_card_it_never_saw_with_every_verb(tmp_path, players):
    rules = rules_module.load(peek_pack(tmp_path))
    taken = set()
    for seed in range(3):
        game = Game.new(rules, players, seed, max_rounds=30)
        play_watched(game, seed, 400, f"peek, seed {seed}, {players} players")
        taken |= {line.split(": ", 1)[1] for line in game.log_for(None) if re.fullmatch(r"P\d: \w+ now", line)}
    assert len(taken) == len(ACTIONS), sorted(taken)  # every verb was played


def test_a_reveal_to_one_player_is_named_only_for_that_player(tmp_path):
    """ "P2 shows a card to P1" on a bystander's screen; the card's name for the one it was shown to."""
    rules = rules_module.load(peek_pack(tmp_path))
    game = Game.new(rules, 3, 0)
    amber = game.rules.instances.index("amber")
    game.move(amber, "hand:P2")
    step = Reveal("reveal", {"cards": lambda c: [amber], "to": lambda c: ["P1"]}, {})
    step.run(game, Ctx(game, {}, "P2", None), {})
    assert game.log_for("P1")[-1] == "P2 shows Amber to P1"
    assert game.log_for("P2")[-1] == "P2 shows Amber to P1"
    assert game.log_for("P3")[-1] == "P2 shows a card to P1"
    assert "Amber" not in json.dumps(game.view("P3"))
    saved = Game.load(rules, game.save())  # the new entry is a fact a save may hold
    assert saved.log_for("P3")[-1] == "P2 shows a card to P1"


# ---------------------------------------------------------------------- forced choices, options of cards
def one_action_pack(tmp_path, effect: str) -> Game:
    rules = "\n---\n".join([COUNTER, END, _action("act", effect)])
    root = write_tree(
        tmp_path / "one", {"pack.yaml": MANIFEST, "zones.yaml": ZONES, "cards.yaml": CARDS, "rules.yaml": rules}
    )
    return Game.new(rules_module.load(root), 3, 0)


def deal(game, seat: str, names: list[str]) -> list[int]:
    cards = [game.rules.instances.index(name.lower()) for name in names]
    for card in cards:
        game.move(card, f"hand:{seat}")
    game.rebuild_menu()
    return cards


def test_a_forced_choice_is_logged_as_any_other(tmp_path):
    """A choice with one option, answered by the engine, is logged as a chosen answer is (its absence would tell
    the others the chooser had nothing else); only the chooser reads that there was only one option."""
    game = one_action_pack(tmp_path, 'choose 1 from pile as card with "Which card?"\ntake card')
    pile = deal(game, "P1", ["Basalt"])
    game.move(pile[0], "pile")
    game.rebuild_menu()
    game.apply(game.decision.options.index("act"), "P1")
    assert game.log_for("P1")[-2] == 'P1, asked "Which card?", chooses Basalt (only one option)'
    assert game.log_for("P2")[-2] == 'P1, asked "Which card?", chooses Basalt'
    assert game.log_for("P3")[-2] == game.log_for("P2")[-2]


def test_a_free_choice_reads_the_same_for_the_others(tmp_path):
    game = one_action_pack(tmp_path, 'choose 1 from pile as card with "Which card?"\ntake card')
    for card in deal(game, "P1", ["Basalt", "Cobalt"]):
        game.move(card, "pile")
    game.rebuild_menu()
    game.apply(game.decision.options.index("act"), "P1")
    game.apply(game.legal("P1")[0], "P1")
    assert game.log_for("P1")[-2] == game.log_for("P2")[-2] == 'P1, asked "Which card?", chooses Basalt'


def test_options_that_are_cards_or_lists_of_cards_never_show_card_numbers(tmp_path):
    """ "1. 5  2. 27" and "Chosen together: P1 99, P2 41" were card numbers: options read as names, a card the
    reader cannot see as "a face-down card" (with its place when it is an option on its own)."""
    game = one_action_pack(
        tmp_path,
        "let other = next_player(me)\n"
        "choose 1 from [[first(hand(me)), last(hand(me))], [first(hand(other)), last(hand(other))]] as pair\n"
        "choose 1 from hand(next_player(me)) as blind\n"
        "choose_secretly players from [[first(hand(me)), last(hand(me))]] as sets",
    )
    deal(game, "P1", ["Basalt", "Cobalt"])
    deal(game, "P2", ["Flint", "Garnet"])
    deal(game, "P3", ["Jasper"])
    game.apply(game.decision.options.index("act"), "P1")
    pair = [o["label"] for o in game.view("P1")["decision"]["options"]]
    assert pair[0] == "Basalt + Cobalt"
    assert pair[1] == "a face-down card + a face-down card"
    game.apply(game.legal("P1")[0], "P1")
    blind = [o["label"] for o in game.view("P1")["decision"]["options"]]
    assert blind == ["a face-down card #1 in P2's hand", "a face-down card #2 in P2's hand"]
    game.apply(game.legal("P1")[0], "P1")  # the secret choice has one option each: given at once
    for seat in game.players:
        for line in game.log_for(seat):
            assert not re.search(r"(chooses|Chosen together).*\b\d+\b", line), line
    told = [line for line in game.log_for("P2") if line.startswith("Chosen together")]
    assert told and "Basalt" not in told[-1] and "Flint + Garnet" in told[-1], told


def test_a_forged_reveal_entry_is_refused_at_load(tmp_path):
    """The new log fact is checked as moves are: its seats, cards and sight masks must be this game's."""
    rules = rules_module.load(peek_pack(tmp_path))
    game = Game.new(rules, 2, 0)
    good = ["reveal", 0, "P1", ["P2"], [0], [3]]
    for bad, where in [
        (["reveal", 0, "P1", ["P9"], [0], [3]], "/log/"),
        (["reveal", 0, "P1", None, [9999], [3]], "/log/"),
        (["reveal", 0, "P1", ["P2"], [0], [64]], "/log/"),
        (["reveal", 0, "P1", ["P2"], [0, 1], [3]], "/log/"),
    ]:
        game.state["log"].append(bad)
        with pytest.raises(SaveError) as caught:
            Game.load(rules, game.save())
        assert where in str(caught.value), caught.value
        game.state["log"].pop()
    game.state["log"].append(good)
    assert Game.load(rules, game.save()).log_for("P2")[-1] == "P1 shows Amber to P2"
