"""Cro-Magnon written by hand in plain Python: the yardstick the engine's speed is measured against
(issue 16). It is kept only for the benchmark (tools/bench/engine.py) and its tests
(tests/test_handcoded_reference.py); the game itself is played by the engine from content/cro-magnon.

The pack's card data (names, costs, stats, prerequisites, decks, parameters) is read once with pyyaml
(`Pack`); after that everything is lists, dicts and ints. The rules are those content/cro-magnon plays,
asked at the same decision points in the same way, so a random player sees the same choices:

- the turn menu (every action on offer, and ending the turn) is a decision even with one option; any
  other question with a single option is answered by itself and is not counted;
- `choose N from CARDS` is asked one card at a time, in the cards' order, identical cards the chooser
  can see offered once (a player's own hand), cards they cannot see one by one (a victim's hand);
- an action found impossible half-way (exploring an empty terrain, attacking an empty hand, taking a
  resource when there is none) is undone, and the answers that led there are not offered again until
  the next action is done (the engine's dead-end pruning, `Game.fail`);
- a joint-hunt invitation is one answer from each opponent.

Run `python tools/bench/handcoded_cromagnon.py [--games N] [--players 4]` for games/s on its own.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import yaml

PACK_DIR = Path(__file__).resolve().parents[2] / "content" / "cro-magnon"
END_TURN = "end_turn"
ROWS = ("weapons_row", "daily_life_row", "dwelling_row")
UPRIGHT, TURNED, REVERSED = 0, 1, 2
CHOOSE, ASK, INVITE, ACTION, PAY = "choose", "ask", "invite", "action", "pay"
ASKED_EVEN_WITH_ONE = (ASK, INVITE, ACTION)  # never answered by themselves (engine: Game._advance)
AP_COST = {"explore": 1, "attack": 1, "new_technology": 1, "improve_dwelling": 1, "develop_technology": 2}


class Undo(Exception):
    """The action under way cannot be done this way: it is taken back."""


class Pack:
    """Everything the game needs from content/cro-magnon, read once."""

    def __init__(self, root: Path = PACK_DIR):
        docs = []
        for path in [root / "pack.yaml", root / "zones.yaml"] + sorted((root / "cards").glob("*.yaml")):
            docs.extend(d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d)
        pack = next(d for d in docs if d.get("kind") == "pack")
        self.players = (pack["players"]["min"], pack["players"]["max"])
        self.params = {}
        for name, spec in pack["parameters"].items():
            self.params[name] = spec.get("default", spec.get("by_player_count"))
        self.zones = {d["id"]: d for d in docs if d.get("kind") == "zone"}
        self.cards = [d for d in docs if d.get("kind") == "card"]
        stats = {c["id"]: c.get("stats") or {} for c in self.cards}
        self.type = {c["id"]: c["type"] for c in self.cards}
        self.name = {c["id"]: c.get("name", c["id"]) for c in self.cards}
        self.home = {c["id"]: c["deck"] for c in self.cards}
        self.cost = {c["id"]: list(c.get("cost") or []) for c in self.cards}
        self.requires = {c["id"]: list(c.get("requires") or []) for c in self.cards}
        self.tags = {c["id"]: set(c.get("tags") or []) for c in self.cards}
        # each cost as (resource, how many) pairs, Spoils apart: a cost check is a few subtractions
        self.cost_needs = {}
        for card, cost in self.cost.items():
            needs: dict = {}
            for item in cost:
                needs[item] = needs.get(item, 0) + 1
            self.cost_needs[card] = (tuple((d, k) for d, k in needs.items() if d != "spoils"), needs.get("spoils", 0))

        def stat(key):
            return {card: s.get(key, 0) for card, s in stats.items()}

        self.vp, self.spoils, self.strength = stat("vp"), stat("spoils"), stat("strength")
        self.max_spoils, self.end_bonus, self.rate = stat("max_spoils"), stat("end_bonus"), stat("exchange_rate")
        self.hand_limit, self.improve = stat("hand_limit"), stat("improve_dwelling")
        self.need = {
            c: (s.get("need_weapons", 0), s.get("need_daily_life", 0), s.get("need_dwelling", 0))
            for c, s in stats.items()
        }
        # where a discarded card goes: its home deck's discard pile
        self.discard = {c: self.zones[self.home[c]].get("discard") for c in self.type}
        self.refill = {z: d.get("refill_from") for z, d in self.zones.items()}
        self.shuffled = [z for z, d in self.zones.items() if d.get("shuffled")]
        self.row_deck = {row: self.zones[row]["refill_from"] for row in ROWS}
        self.weapon = {c for c, t in self.tags.items() if "weapons" in t}
        self.daily_life = {c for c, t in self.tags.items() if "daily_life" in t}
        self.dwelling = {c for c, t in self.tags.items() if "dwelling" in t}
        self.terrains = list(self.params["terrains"])
        self.discards = [self.zones[t]["discard"] for t in self.terrains]
        self.technology = {c for c, t in self.type.items() if t == "technology"}
        self.cost_size = {c: len(cost) for c, cost in self.cost.items()}  # no cost is paid with fewer cards
        self.tech_decks = [self.row_deck[row] for row in ROWS]
        # what "can I master it?" reads of each technology, in one look-up: (cost size, the resources other
        # than Spoils as (resource, how many) pairs, Spoils in the cost, prerequisites, the kinds of card
        # in the cost)
        self.mastery = {
            c: (self.cost_size[c],) + self.cost_needs[c] + (tuple(self.requires[c]), frozenset(self.cost[c]))
            for c in self.technology
        }
        self.settlement_need = {c: self.need[c] for c, t in self.type.items() if t == "settlement"}

    def goal(self, players: int) -> int:
        return int(self.params["victory_points"][str(players)])


class HandGame:
    """One game. Players are seats 0..n-1; cards are their ids (copies of a card are alike)."""

    def __init__(
        self, pack: Pack, players: int, seed: int = 0, agent=None, *, max_rounds: int = 500, deal: bool = True
    ):
        self.pack, self.n, self.seed = pack, players, seed
        self.rng = random.Random(seed * 7919 + 17)  # the game's own chance: shuffles
        self.rnd = random.Random(seed)  # the random players' choices
        self.agent = agent  # None: the random players; else agent(game, seat, kind, options) -> index
        self.goal = pack.goal(players)
        p = pack.params
        self.ap_per_turn, self.base_hand_limit = p["action_points"], p["hand_limit"]
        self.lines, self.flint_per_weapon = p["track_lines"], p["flint_per_weapon"]
        self.joker_n, self.settlement_vp, self.per_final_vp = (
            p["spoils_joker"],
            p["settlement_vp"],
            p["cards_per_final_vp"],
        )
        self.zones = {
            z: ([None] * d["slots"] if d.get("type") == "row" else [])
            for z, d in pack.zones.items()
            if d.get("owner") != "player"
        }
        self.hand = [[] for _ in range(players)]
        self.tableau = [[] for _ in range(players)]
        self.orient = [[] for _ in range(players)]  # parallel to tableau
        self.trophies = [[] for _ in range(players)]
        self.vp = [0] * players
        self.ap = 0
        self.used_game = [set() for _ in range(players)]
        self.current, self.number, self.max_turns = 0, 0, max_rounds * players
        self.acted = self.turn_ending = self.exploring_extra = False
        self.used_turn: set = set()
        self.ending = None  # the queue of last turns, once the goal is reached
        self.dead: set = set()
        self.path = self.counts = None  # the answers of the action under way
        self.decisions = 0
        self.winners = None
        if deal:
            self._setup()

    # ------------------------------------------------------------------ setup
    def _setup(self):
        zones = self.zones
        for card in self.pack.cards:
            home = card["deck"]
            for _ in range(card.get("copies", 1)):
                if card.get("slot"):
                    zones[home][card["slot"] - 1] = card["id"]
                else:
                    zones[home].append(card["id"])
        for z in self.pack.shuffled:
            self.rng.shuffle(zones[z])
        for row in ROWS:  # "Setup", step 7: a settlement on each row's 4th square
            zones[row][3] = zones["settlements"].pop()
        zones["box"].extend(zones["settlements"])
        zones["settlements"].clear()

    # ------------------------------------------------------------------ decisions
    def decide(self, player, options, kind=CHOOSE):
        """The index of the option `player` picks; answers by itself when only one option is legal."""
        n = len(options)
        legal = None
        path = self.path
        if self.dead and path is not None:
            dead = self.dead
            legal = [i for i in range(n) if tuple(path) + (i,) not in dead]
            if not legal:
                raise Undo()
            if len(legal) == 1 and kind not in ASKED_EVEN_WITH_ONE:
                i = legal[0]
            else:
                i = legal[self._pick(player, kind, [options[k] for k in legal])]
                self.decisions += 1
        elif n == 1 and kind not in ASKED_EVEN_WITH_ONE:
            i = 0
        else:
            i = self._pick(player, kind, options)
            self.decisions += 1
        if path is not None:
            path.append(i)
            self.counts.append(n)
        return i

    def _pick(self, player, kind, options):
        if self.agent is None:
            return self.rnd.randrange(len(options))
        return self.agent(self, player, kind, options)

    def choose_cards(self, player, cands, low, high, keys=None, blind=False):
        """`choose` of several cards, one at a time in the cards' order (engine: verbs.Choose): the indices
        picked. Cards alike (same `keys` entry) are offered once unless the chooser cannot see them."""
        keys = keys or cands
        high = min(high, len(cands))
        if high <= 0 and low <= 0:
            return []
        if len(cands) < low:
            if self.path is not None:
                raise Undo()
            low = high = len(cands)
        picked = []
        last = len(cands) - 1
        while True:
            start = picked[-1] + 1 if picked else 0
            still = low - len(picked)
            end = len(cands) - still + 1 if still > 0 else len(cands)
            if blind:
                offer = list(range(start, end))
            else:
                offer, seen = [], set()
                for j in range(start, end):
                    if keys[j] not in seen:
                        seen.add(keys[j])
                        offer.append(j)
            if len(picked) >= low:
                offer.append(-1)
            j = offer[self.decide(player, [cands[k] if k >= 0 else None for k in offer])]
            if j >= 0:
                picked.append(j)
            if j < 0 or len(picked) >= high or picked[-1] >= last:
                return picked

    # ------------------------------------------------------------------ cards moving
    def draw(self, deck):
        cards = self.zones[deck]
        if not cards:
            source = self.pack.refill.get(deck)
            if not source or source in ROWS or not self.zones[source]:
                return None
            cards.extend(self.zones[source])
            self.zones[source].clear()
            self.rng.shuffle(cards)
        return cards.pop()

    def discard(self, card):
        self.zones[self.pack.discard[card]].append(card)

    def draw_spoils(self, player, amount):
        hand = self.hand[player]
        for _ in range(amount):
            card = self.draw("spoils_deck")
            if card is None:
                break
            hand.append(card)

    def drop_from_hand(self, player, indices):
        """Discard the hand's cards at `indices`, in that order."""
        hand = self.hand[player]
        for i in indices:
            self.discard(hand[i])
        gone = set(indices)
        self.hand[player] = [c for i, c in enumerate(hand) if i not in gone]

    def remove_copies(self, player, card, amount):
        hand = self.hand[player]
        for _ in range(amount):
            hand.remove(card)
            self.discard(card)

    # ------------------------------------------------------------------ facts
    def others(self, me):
        return [(me + k) % self.n for k in range(1, self.n)]

    def lines_between(self, low, high):
        a, b = self.vp[low], self.vp[high]
        return sum(1 for line in self.lines if a < line <= b)

    def weapons(self, player):
        weapon = self.pack.weapon
        return sum(
            1 for c, o in zip(self.tableau[player], self.orient[player], strict=True) if c in weapon and o != REVERSED
        )

    def visible_technologies(self):
        """(zone, slot or -1 for a deck's top, card) of every technology that may be mastered."""
        ttype, zones = self.pack.type, self.zones
        found = []
        for row in ROWS:
            for s, c in enumerate(zones[row]):
                if c is not None and ttype[c] == "technology":
                    found.append((row, s, c))
        for row in ROWS:
            deck = zones[self.pack.row_deck[row]]
            if deck and ttype[deck[-1]] == "technology":
                found.append((self.pack.row_deck[row], -1, deck[-1]))
        return found

    def affordable(self, player):
        """(zone, slot, card) of the technologies `player` can master now."""
        held = set()
        for t in self.tableau:
            held.update(t)
        counts: dict = {}
        for c in self.hand[player]:
            counts[c] = counts.get(c, 0) + 1
        requires, needs = self.pack.requires, self.pack.cost_needs
        found = []
        for v in self.visible_technologies():
            if all(r in held for r in requires[v[2]]) and self.covered(needs[v[2]], counts):
                found.append(v)
        return found

    def covered(self, needs, counts):
        """engine: verbs.cost_payable with Spoils as the joker (3 stand for any one other resource)."""
        others, spoils_needed = needs
        short = 0
        for item, k in others:
            have = counts.get(item, 0)
            if have < k:
                short += k - have
        spare = counts.get("spoils", 0) - spoils_needed
        return spare >= 0 and short * self.joker_n <= spare

    def payable(self, items, counts):
        need: dict = {}
        for item in items:
            need[item] = need.get(item, 0) + 1
        return self.covered((tuple((d, k) for d, k in need.items() if d != "spoils"), need.get("spoils", 0)), counts)

    def exchangeable(self, player):
        hand, rate = self.hand[player], self.pack.rate
        counts: dict = {}
        for c in hand:
            counts[c] = counts.get(c, 0) + 1
        return [c for c in hand if rate[c] > 0 and counts[c] >= rate[c]]

    def foundable(self, player):
        """(row, slot, settlement) of the settlements `player` may found: the technologies of each kind
        in their tableau (counted once, when a settlement is on a row) cover its needs."""
        needs = self.pack.settlement_need
        found = []
        have = None
        for row in ROWS:
            for s, c in enumerate(self.zones[row]):
                need = needs.get(c)  # None for an empty place or a card that is no settlement
                if need is None:
                    continue
                if have is None:
                    have = self.technologies_by_kind(player)
                if have[0] >= need[0] and have[1] >= need[1] and have[2] >= need[2]:
                    found.append((row, s, c))
        return found

    def technologies_by_kind(self, player):
        """How many weapons, daily life and dwelling technologies `player` holds, whichever way turned."""
        pack = self.pack
        weapon, daily_life, dwelling = pack.weapon, pack.daily_life, pack.dwelling
        weapons = daily = dwellings = 0
        for c in self.tableau[player]:
            if c in weapon:
                weapons += 1
            if c in daily_life:
                daily += 1
            if c in dwelling:
                dwellings += 1
        return weapons, daily, dwellings

    def takeable(self):
        ttype, zones = self.pack.type, self.zones
        found = []
        for pile in self.pack.discards:
            cards = zones[pile]
            if cards and ttype[cards[-1]] == "resource":
                found.append((pile, -1, cards[-1]))
        for row in ROWS:
            for s, c in enumerate(zones[row]):
                if c is not None and ttype[c] == "resource":
                    found.append((row, s, c))
        return found

    def upright(self, player, kind):
        return [
            i
            for i, (c, o) in enumerate(zip(self.tableau[player], self.orient[player], strict=True))
            if c in kind and o == UPRIGHT
        ]

    def menu(self, me):
        """The actions on `me`'s menu now, in the pack's order, then ending the turn (engine:
        driver.refusal): AP cost, limits, then each action's `available`."""
        pack, ap, hand = self.pack, self.ap, self.hand[me]
        counts: dict = {}
        for c in hand:
            counts[c] = counts.get(c, 0) + 1
        weapon, daily_life, dwelling = pack.weapon, pack.daily_life, pack.dwelling
        weapon_up = daily_up = dwelling_usable = False
        for c, o in zip(self.tableau[me], self.orient[me], strict=True):
            if o == UPRIGHT:
                if c in weapon:
                    weapon_up = True
                if c in daily_life:
                    daily_up = True
            if o != REVERSED and c in dwelling:
                dwelling_usable = True
        menu = ["explore"] if ap >= 1 else []
        rate = pack.rate
        for c, k in counts.items():
            if rate[c] and k >= rate[c]:
                menu.append("natural_exchange")
                break
        if self.can_master(counts, len(hand)):
            menu.append("master_technology")
        if ap >= 1:
            if weapon_up:
                menu.append("attack")
            if daily_up:
                menu.append("new_technology")
            if dwelling_usable and "spoils" in counts:
                menu.append("improve_dwelling")
        if ap >= 2:
            menu.append("develop_technology")
        if not self.acted and "found_settlement" not in self.used_game[me] and self.foundable(me):
            menu.append("found_settlement")
        if "additional_exploration" not in self.used_turn:
            mine, best = self.vp[me], max(self.vp)  # a line between me and a rival lies below the best
            if best > mine and any(mine < line <= best for line in self.lines):
                menu.append("additional_exploration")
        menu.append(END_TURN)
        return menu

    def can_master(self, counts, hand_size):
        """Whether any visible technology is affordable now (the first one found will do): `covered` and
        the prerequisites, inlined, for this runs at every menu and nearly always answers no."""
        zones, mastery, joker = self.zones, self.pack.mastery, self.joker_n
        visible = zones[ROWS[0]] + zones[ROWS[1]] + zones[ROWS[2]]
        for deck in self.pack.tech_decks:
            if zones[deck]:
                visible.append(zones[deck][-1])
        have, kinds_held = counts.get, counts.keys()
        spoils = have("spoils", 0)
        held = None
        for card in visible:
            facts = mastery.get(card)  # None for an empty place or a card that is no technology
            if facts is None or facts[0] > hand_size:
                continue
            _, others, spoils_needed, requires, kinds = facts
            spare = spoils - spoils_needed
            if spare < 0 or (spare < joker and not kinds_held >= kinds):  # no joker: every kind is needed
                continue
            short = 0
            for item, k in others:
                held_now = have(item, 0)
                if held_now < k:
                    short += k - held_now
            if short * joker > spare:
                continue
            if held is None:
                held = set().union(*self.tableau)
            if all(r in held for r in requires):
                return True
        return False

    # ------------------------------------------------------------------ the actions
    def explore(self, me):
        self.explore_once(me)

    def explore_once(self, me):
        terrains = self.pack.terrains
        card = self.draw(terrains[self.decide(me, terrains)])
        if card is None:  # require found != none
            raise Undo()
        self.encounter(me, card)

    def encounter(self, me, card):
        if self.pack.type[card] == "resource":
            self.hand[me].append(card)
        elif self.decide(me, [True, False], ASK) == 0:
            self.hunt(me, card)
        else:
            self.decline_hunt(me, card)

    def hunt(self, me, card):
        pack = self.pack
        herbivore = pack.type[card] == "herbivore"
        total = pack.max_spoils[card] if herbivore else pack.spoils[card] + pack.vp[card]
        opponents = self.others(me)
        offered = self.decide(me, list(range(total + 1))) if opponents else 0
        helpers = self.invite(me, opponents)
        strength = 0
        for hunter in helpers + [me]:
            strength += self.weapons(hunter)
            hand = self.hand[hunter]
            pairs_held = hand.count("flint") // self.flint_per_weapon
            pairs = self.decide(hunter, list(range(pairs_held + 1)))
            if pairs:
                self.remove_copies(hunter, "flint", pairs * self.flint_per_weapon)
            strength += pairs
        if herbivore:
            won = min(strength, pack.max_spoils[card])
            shared = min(offered, won) if helpers else 0
            for _ in range(shared):
                self.draw_spoils(helpers[self.decide(me, helpers)], 1)
            self.draw_spoils(me, won - shared)
            self.discard(card)
        elif strength >= pack.strength[card]:
            vp_left, spoils_left = pack.vp[card], pack.spoils[card]
            shared = min(offered, total) if helpers else 0
            for _ in range(shared):
                receiver = helpers[self.decide(me, helpers)]
                kinds = (["vp"] if vp_left > 0 else []) + (["spoils"] if spoils_left > 0 else [])
                if kinds[self.decide(me, kinds)] == "vp":
                    self.vp[receiver] += 1
                    vp_left -= 1
                else:
                    self.draw_spoils(receiver, 1)
                    spoils_left -= 1
            self.vp[me] += vp_left
            self.draw_spoils(me, spoils_left)
            self.trophies[me].append(card)
        else:
            self.decline_hunt(me, card)

    def invite(self, me, opponents):
        """Each opponent answers yes or no; one answer of the group for the undo bookkeeping."""
        if not opponents:
            return []
        path, self.path = self.path, None
        answers = [self.decide(p, [True, False], INVITE) for p in opponents]
        self.path = path
        if path is not None:
            path.append(tuple(answers))
            self.counts.append(-1)
        return [p for p, a in zip(opponents, answers, strict=True) if a == 0]

    def decline_hunt(self, me, card):
        if self.pack.type[card] == "predator":
            owed = min(self.pack.vp[card], len(self.hand[me]))
            self.drop_from_hand(me, self.choose_cards(me, self.hand[me], owed, owed))
        self.discard(card)
        if not self.exploring_extra:
            self.ap += 1

    def natural_exchange(self, me):
        offered_from = self.exchangeable(me)
        offered = offered_from[self.choose_cards(me, offered_from, 1, 1)[0]]
        self.remove_copies(me, offered, self.pack.rate[offered])
        self.draw_spoils(me, 1)

    def master_technology(self, me):
        pack = self.pack
        options = self.affordable(me)
        zone, slot, tech = options[self.decide(me, [o[2] for o in options])]
        paid = self.pay_cost(me, pack.cost[tech])
        hand = self.hand[me]
        for c in paid:
            hand.remove(c)
        if slot >= 0:
            self.zones[zone][slot] = None
        else:
            self.zones[zone].pop()
        self.tableau[me].append(tech)
        self.orient[me].append(UPRIGHT)
        mine = set(self.tableau[me])
        self.vp[me] += pack.vp[tech] + sum(1 for r in pack.requires[tech] if r in mine)
        if slot >= 0:
            self.zones[zone][slot] = paid[-1]
            paid = paid[:-1]
        for c in paid:
            self.discard(c)

    def pay_cost(self, me, cost):
        """Item by item, "the card itself or 3 Spoils?" asked only when both keep the rest payable."""
        counts: dict = {}
        for c in self.hand[me]:
            counts[c] = counts.get(c, 0) + 1
        paid = []
        n = self.joker_n
        for i, item in enumerate(cost):
            rest = cost[i + 1 :]
            choices = []
            if counts.get(item):
                counts[item] -= 1
                if self.payable(rest, counts):
                    choices.append("card")
                counts[item] += 1
            if item != "spoils" and counts.get("spoils", 0) >= n:
                counts["spoils"] -= n
                if self.payable(rest, counts):
                    choices.append("joker")
                counts["spoils"] += n
            how = choices[self.decide(me, choices, PAY)] if len(choices) > 1 else choices[0]
            if how == "card":
                counts[item] -= 1
                paid.append(item)
            else:
                counts["spoils"] -= n
                paid.extend(["spoils"] * n)
        return paid

    def attack(self, me):
        opponents = self.others(me)
        victim = opponents[self.decide(me, opponents)]
        loot = self.hand[victim]
        if not loot:  # require count(hand(victim)) > 0
            raise Undo()
        self.hand[me].append(loot.pop(self.choose_cards(me, loot, 1, 1, blind=True)[0]))
        weapons = self.upright(me, self.pack.weapon)
        self.orient[me][weapons[self.decide(me, [self.tableau[me][i] for i in weapons])]] = REVERSED

    def new_technology(self, me):
        daily = self.upright(me, self.pack.daily_life)
        used = daily[self.decide(me, [self.tableau[me][i] for i in daily])]
        self.develop(me)
        self.orient[me][used] = TURNED

    def develop_technology(self, me):
        self.develop(me)

    def develop(self, me):
        options = self.takeable()
        picked = self.choose_cards(me, [o[2] for o in options], 1, 1, keys=[(o[0], o[2]) for o in options])
        zone, slot, card = options[picked[0]]
        self.hand[me].append(card)
        if slot >= 0:
            self.zones[zone][slot] = self.draw(self.pack.row_deck[zone])
        else:
            self.zones[zone].pop()

    def improve_dwelling(self, me):
        pack = self.pack
        dwellings = [
            i
            for i, (c, o) in enumerate(zip(self.tableau[me], self.orient[me], strict=True))
            if c in pack.dwelling and o != REVERSED
        ]
        used = dwellings[self.decide(me, [self.tableau[me][i] for i in dwellings])]
        spoils = [c for c in self.hand[me] if c == "spoils"]
        given = len(self.choose_cards(me, spoils, 1, min(pack.improve[self.tableau[me][used]], len(spoils))))
        self.remove_copies(me, "spoils", given)
        self.vp[me] += given
        self.orient[me][used] = REVERSED

    def found_settlement(self, me):
        sites = self.foundable(me)
        row, slot, site = sites[self.decide(me, [s[2] for s in sites])]
        self.tableau[me].append(site)
        self.orient[me].append(UPRIGHT)
        self.zones[row][slot] = self.draw(self.pack.row_deck[row])
        self.vp[me] += self.settlement_vp

    def additional_exploration(self, me):
        rivals = [o for o in self.others(me) if self.lines_between(me, o) > 0]
        rival = rivals[self.decide(me, rivals)]
        self.exploring_extra = True
        for _ in range(self.lines_between(me, rival)):
            self.explore_once(me)
        self.exploring_extra = False

    # ------------------------------------------------------------------ snapshots (for undo)
    def snapshot(self):
        return (
            {z: list(c) for z, c in self.zones.items()},
            [list(h) for h in self.hand],
            [list(t) for t in self.tableau],
            [list(o) for o in self.orient],
            [list(t) for t in self.trophies],
            list(self.vp),
            self.ap,
            self.rng.getstate(),
        )

    def restore(self, snap):
        zones, hand, tableau, orient, trophies, vp, self.ap, rng = snap
        self.zones, self.hand, self.tableau, self.orient, self.trophies, self.vp = (
            zones,
            hand,
            tableau,
            orient,
            trophies,
            vp,
        )
        self.rng.setstate(rng)
        self.exploring_extra = False

    # ------------------------------------------------------------------ the turn
    def run_action(self, me, action, index, count):
        """Carry out a menu action; undone (and its answers remembered as dead ends) if impossible."""
        # only Additional Exploration changes the table before it can turn out impossible: the others are
        # undone by giving back the AP and the limits (see the module docstring)
        snap = self.snapshot() if action == "additional_exploration" else None
        ap, first_in_turn, first_in_game = self.ap, action not in self.used_turn, action not in self.used_game[me]
        self.ap -= AP_COST.get(action, 0)
        self.used_turn.add(action)
        self.used_game[me].add(action)
        self.path, self.counts = [index], [count]
        try:
            getattr(self, action)(me)
        except Undo:
            self._remember_dead_end()
            self.path = self.counts = None
            if snap is not None:
                self.restore(snap)
            self.ap = ap
            if first_in_turn:
                self.used_turn.discard(action)
            if first_in_game:
                self.used_game[me].discard(action)
            return
        self.path = self.counts = None
        self.dead = set()
        self.acted = True
        if action == "found_settlement":  # whole_turn
            self.turn_ending = True

    def _remember_dead_end(self):
        """engine: Game.fail. A question all of whose answers are dead ends is itself one."""
        dead, path, counts = self.dead, tuple(self.path), self.counts
        dead.add(path)
        prefix = path
        while len(prefix) > 1 and counts[len(prefix) - 1] >= 0:
            parent = prefix[:-1]
            gone = {d[-1] for d in dead if len(d) == len(prefix) and d[:-1] == parent}
            if len(gone) < counts[len(prefix) - 1]:
                break
            dead.add(parent)
            prefix = parent

    def check_end(self):
        if self.ending is not None or max(self.vp) < self.goal:
            return
        current = self.current
        for player in [(current + k) % self.n for k in range(self.n)]:
            if self.vp[player] >= self.goal:
                self.ending = [(current + k) % self.n for k in range(1, self.n) if (current + k) % self.n != player] + [
                    player
                ]
                if player == current:
                    self.turn_ending = True
                return

    def play_turn(self, me):
        self.current, self.number = me, self.number + 1
        self.acted = self.turn_ending = False
        self.used_turn = set()
        self.dead = set()
        self.ap = self.ap_per_turn
        orient = self.orient[me]
        for i, o in enumerate(orient):
            if o == TURNED:
                orient[i] = UPRIGHT
        self.rest_of_turn(me)

    def rest_of_turn(self, me):
        """The turn's menu until the turn ends, then the hand limit."""
        while True:
            self.check_end()
            if self.turn_ending:
                break
            menu = self.menu(me)
            legal = [i for i in range(len(menu)) if (i,) not in self.dead] if self.dead else range(len(menu))
            self.decisions += 1
            if self.agent is None:
                index = legal[self.rnd.randrange(len(legal))]
            else:
                index = legal[self.agent(self, me, ACTION, [menu[i] for i in legal])]
            action = menu[index]
            if action == END_TURN:
                self.dead = set()
                break
            self.run_action(me, action, index, len(menu))
        limit = self.base_hand_limit + sum(self.pack.hand_limit[c] for c in self.tableau[me])
        excess = len(self.hand[me]) - limit
        if excess > 0:
            self.drop_from_hand(me, self.choose_cards(me, self.hand[me], excess, excess))

    def play(self, *, resume: bool = False):
        """Play to the end; returns the winners (seats). `self.decisions` counts the answers given.
        `resume`: the current turn is under way (a position set up by hand) and goes on first."""
        me = None
        if resume:
            me = self.current
            self.rest_of_turn(me)
        while True:
            if me is not None:
                self.check_end()
            if self.ending is not None:
                if not self.ending:
                    break
                me = self.ending.pop(0)
            elif me is None:
                me = 0
            else:
                if self.number >= self.max_turns:
                    break
                me = (me + 1) % self.n
            self.play_turn(me)
        return self.finish()

    def finish(self):
        for p in range(self.n):
            self.vp[p] += len(self.hand[p]) // self.per_final_vp
        for p in range(self.n):
            self.vp[p] += sum(self.pack.end_bonus[c] for c in self.trophies[p])
        best = max(self.vp)
        self.winners = [p for p in range(self.n) if self.vp[p] == best]
        return self.winners


def play_random(pack: Pack, players: int, seed: int) -> int:
    """One game between random players; the answers given."""
    game = HandGame(pack, players, seed)
    game.play()
    return game.decisions


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    pack = Pack()
    started = time.process_time()  # CPU time: on a busy machine, leaves out the time others had the core
    decisions = sum(play_random(pack, args.players, seed) for seed in range(args.games))
    elapsed = time.process_time() - started
    print(
        f"{args.games} random {args.players}-player games (hand-written): {args.games / elapsed:.0f} games/s (CPU time), "
        f"{decisions / elapsed:,.0f} decisions/s ({decisions / args.games:.0f} decisions a game)"
    )


if __name__ == "__main__":
    main()
