"""The DSL's built-in functions and fields at run time, one entry per name of `engine/dsl/builtins.py`.

Each function receives the evaluation context first (`c.g` is the game, `c.me` the acting player)
and then its evaluated arguments. The tables below must name exactly the declared functions and fields
(`implemented`): a difference stops the import.
"""

from __future__ import annotations

from bisect import bisect_right
from operator import ge, sub

from engine.dsl.builtins import CARD_FIELDS, FUNCTIONS, ZONE_FIELDS, implemented, name_args

from .budget import check_size, out_of_work, spend
from .costs import ZEROS, cost_payable, joker_of, split_kept, split_table
from .errors import not_a_card
from .layout import cards_by_number
from .places import room
from .protocol import DONE

MAX_NUMBERS = 1000

# Arguments (by position) that are bare words, not values: `sum(zone, vp)`, `flagged(done)`.
NAME_ARGS = {name: bare for name, function in FUNCTIONS.items() if (bare := name_args(function))}


def _items(g, value) -> list:
    """`value` as a list to read, not to keep (Table.items_read), each item paid for from the answer's work
    budget (budget.py). A zone without places, or a list without gaps, is read as it is without `items_read`'s call
    (the commonest values: `sum(tableau(p), vp)`, `first(hand(me))`)."""
    if type(value) is str and value not in g._slotted:
        zones: dict = g.state["zones"]  # (a dict to Cython: `get` called in C, not looked up)
        items = zones.get(value)
        if items is None:
            items = g.items_read(value)
    elif type(value) is list and None not in value:
        items = value
    else:
        items = g.items_read(value)
    work = g.work = g.work - len(items)
    if work < 0:
        out_of_work()
    return items


def _count(c, items):
    g = c.g
    if type(items) is str and items not in g._slotted:
        zones: dict = g.state["zones"]
        zone = zones.get(items)  # a zone without gaps: its length (the commonest count)
        count = len(zone) if zone is not None else len(g.items_read(items))
    elif type(items) is list and None not in items:  # a list without gaps: its length (as items_read reads it)
        count = len(items)
    else:
        count = len(g.items_read(items))
    work = g.work = g.work - count
    if work < 0:
        out_of_work()
    return count


def _empty(c, items):
    """`empty(ITEMS)`: whether it reads no items, paid for as `_items` pays, its count made as `_count` makes it (a zone
    or a list without gaps: its length, without `items_read`'s call)."""
    g = c.g
    if type(items) is str and items not in g._slotted:
        zones: dict = g.state["zones"]
        zone = zones.get(items)
        count = len(zone) if zone is not None else len(g.items_read(items))
    elif type(items) is list and None not in items:
        count = len(items)
    else:
        count = len(g.items_read(items))
    work = g.work = g.work - count
    if work < 0:
        out_of_work()
    return not count


def _sum(c, items, stat=None):
    if stat is None:
        return sum(int(x or 0) for x in _items(c.g, items))
    getter = field_getter(stat)
    return sum(int(getter(c.g, x) or 0) for x in _items(c.g, items))


def _min(c, *xs):
    """The least of numbers (`none` and no: 0)."""
    return _extreme(min, xs)


def _max(c, *xs):
    """The greatest of numbers (`none` and no: 0)."""
    return _extreme(max, xs)


def _extreme(pick, xs):
    """`pick` (min or max) of numbers, in one loop rather than over a generator (a pack asks it of two numbers, again
    and again): the same answer, and the same error when a value is no number or there are none."""
    if not xs:
        return pick(xs)  # (the error `pick` gives no numbers; no generator: Cython calls this in C, functions.pxd)
    best = int(xs[0] or 0)
    for x in xs[1:]:
        best = pick(best, int(x or 0))
    return best


def _numbers(c, low, high):
    if high - low > MAX_NUMBERS:
        raise ValueError(f"numbers({low}, {high}) would hold more than {MAX_NUMBERS} numbers")
    spend(c.g, max(0, high - low + 1))
    return list(range(low, high + 1))


def _without(c, items, item):
    items = list(_items(c.g, items))  # a copy: the list read may be a zone's own
    if item in items:
        items.remove(item)
    return items


def _last(c, items):
    items = _items(c.g, items)
    return items[-1] if items else None


def _first(c, items):
    items = _items(c.g, items)
    return items[0] if items else None


def _top(c, zone):
    g = c.g
    cards = g.state["zones"][g.zone_key(zone, c.me)]
    return cards[-1] if cards and cards[-1] is not None else None


def _everyone(c, zone):
    cards = []
    g = c.g
    zones = g.state["zones"]
    own = g._own_keys.get(zone) if type(zone) is str else None
    for player in g.players:
        key = own[player] if own is not None and player in own else f"{zone}:{player}"
        cards.extend(g.items_read(key) if key in zones else zones[key])
    spend(c.g, len(cards))
    return cards


def _owner(c, card):
    return c.g.owner_of(card)


def _has(c, card, tag):
    return tag in c.g.tags_of(card)


def _contains(c, text, word):
    word, text = str(word).lower(), str(text or "").lower()
    spend(c.g, len(word) + len(text))
    return word in text


def _tally(g, zone) -> dict:
    """The cards of `zone` (any value `items_of` reads) counted by card id, kept in `held_memo` (which every move
    empties) until a card moves: a menu asks it for every cost it checks and every card it compares."""
    memo: dict = g.held_memo
    counts: dict[str, int] | None = memo.get(("counts", zone))
    if counts is None:
        counts = {}
        memo[("counts", zone)] = counts
        instances = g.rules.instances
        for card in g.items_of(zone):
            def_id = instances[card]
            counts[def_id] = counts.get(def_id, 0) + 1
    return counts


_READ_AS_IS = frozenset({list, tuple})


def _can_pay(c, cost, zone, joker=None):
    return _can_pay_with(c, cost, _can_pay_ready(c, zone, joker))


def _can_pay_ready(c, zone, joker=None):
    """What `can_pay` reads besides the cost: the zone's cards counted by id, the joker set, whether jokers are
    used, and the joker's table of costs split (costs.split_table). A loop that checks many costs against the same
    zone and joker works it out once (PREPARED)."""
    counts = _tally(c.g, zone)
    card, n = joker_of(joker)
    return counts, card, n, bool(card and n), split_table(card)


def _can_pay_with(c, cost, ready):
    """`ready`: as `_can_pay_ready` makes it. costs.cost_payable's answer, worked out here from the joker's table
    for a cost seen before (the commonest: a menu checks the same printed costs again and again), without a call.
    The table holds tuples only, so a cost found in it is read as it is, before anything else; any other goes
    `_can_pay_unsplit`'s way. With fewer spare jokers than stand for one item, each item's own cards must cover
    it (`all`, which stops at the first short item): the shortfall, a whole number, times `n` is then no more than
    the spare jokers only when it is 0."""
    counts, joker, n, jokers_used, splits = ready
    try:
        kinds, needs, jokers_named = splits[cost]
    except (KeyError, TypeError):
        return _can_pay_unsplit(c, cost, ready)
    g = c.g
    work = g.work = g.work - len(cost)
    if work < 0:
        out_of_work()
    if not jokers_used:  # (below: `cost_payable`'s last lines, held to it by a test)
        return all(map(ge, map(counts.get, kinds, ZEROS), needs))
    spare = counts.get(joker, 0) - jokers_named
    if spare < n:
        return spare >= 0 and all(map(ge, map(counts.get, kinds, ZEROS), needs))
    return spare >= 0 and sum(map(max, map(sub, needs, map(counts.get, kinds, ZEROS)), ZEROS)) * n <= spare


def some_payable(c, cards, costs, size, getter, make_ready) -> bool:
    """Whether some card of `cards` can be paid: `count(CARDS where can_pay(item.FIELD, ZONE, JOKER)) > 0` in one call
    (codegen fuses it, exists.py asks it: a menu asks whether any technology in sight is affordable). Each card's FIELD from
    the pack's table `costs` (cards numbered below `size`), else from `getter`, read as the comprehension reads it;
    `make_ready()` works out what `_can_pay_ready` makes of ZONE and JOKER once, after the first card's FIELD, as the
    loop's kept value did; then `_can_pay_with`'s answer for each cost, stopping at the first card that can be paid,
    from the cards' costs split once (`_payable_plan`: a cached `where` gives the same cards again and again), their
    work charged at once when the budget covers it: the same answers, work and errors."""
    plan = _payable_plans.get(id(cards))
    if plan is None or plan[1] is not costs or plan[0] != cards:
        return _some_payable_each(c, cards, costs, size, getter, make_ready)
    ready = make_ready()  # (the cards of a plan are numbers of the table: reading their FIELD cannot fail first)
    counts, joker, n, jokers_used, splits = ready
    if plan[2] is not splits:  # another joker
        return _some_payable_each(c, cards, costs, size, getter, make_ready, ready)
    spent = 0
    found = False
    if not jokers_used:
        for kinds, needs, _, length in plan[3]:
            spent += length
            if all(map(ge, map(counts.get, kinds, ZEROS), needs)):
                found = True
                break
    else:
        held = counts.get(joker, 0)
        for kinds, needs, jokers_named, length in plan[3]:
            spent += length
            spare = held - jokers_named
            if spare < n:
                if spare >= 0 and all(map(ge, map(counts.get, kinds, ZEROS), needs)):
                    found = True
                    break
            elif spare >= 0 and sum(map(max, map(sub, needs, map(counts.get, kinds, ZEROS)), ZEROS)) * n <= spare:
                found = True
                break
    g = c.g
    if g.work < spent:  # the budget runs out on the way: where, and with what left, as card by card
        return _some_payable_each(c, cards, costs, size, getter, make_ready, ready)
    g.work -= spent
    return found


_PLANS_KEPT = 256  # lists of cards with their costs split (a pack has a few) before the table starts again
_payable_plans: dict[int, tuple] = {}


def _some_payable_each(c, cards, costs, size, getter, make_ready, ready=None) -> bool:
    """`some_payable` card by card, each answered by `_can_pay_with` (its work charged per card), `ready` made after the
    first card's FIELD if not given; then the costs of `cards` kept split (`_payable_plan`). The first sight of a list,
    another joker, or a budget that runs out on the way: the plan's loop is `_can_pay_with`'s lines for the rest."""
    g = c.g
    found = False
    for card in cards:
        cost = costs[card] if type(card) is int and 0 <= card < size else getter(g, card)
        if ready is None:
            ready = make_ready()
        if _can_pay_with(c, cost, ready):
            found = True
            break
    if ready is not None:
        _payable_plan(cards, costs, size, ready[4])
    return found


def _payable_plan(cards, costs, size, splits) -> None:
    """Keeps the costs of `cards` split (by `splits`, the joker's table: the items, how many of each, the joker items;
    then the cost's length) with a copy of the cards, under the list's id (a list with other cards under that id is
    told apart by the copy), when every card is a number of the table `costs` whose cost `splits` holds:
    `some_payable` then reads them without a lookup per card."""
    if type(cards) is not list or not all(type(card) is int and 0 <= card < size for card in cards):
        return
    try:
        split = tuple((*splits[costs[card]], len(costs[card])) for card in cards)
    except (KeyError, TypeError):
        return
    if len(_payable_plans) >= _PLANS_KEPT:
        _payable_plans.clear()
    _payable_plans[id(cards)] = (list(cards), costs, splits, split)


def _can_pay_unsplit(c, cost, ready):
    """`_can_pay_with` for a cost not in the joker's table: answered by costs.cost_payable, then kept there."""
    g = c.g
    items = cost if type(cost) in _READ_AS_IS else list(cost or [])  # only read: a printed cost's tuple too (codegen)
    work = g.work = g.work - len(items)
    if work < 0:
        out_of_work()
    counts, joker, n, _, splits = ready
    payable = cost_payable(items, counts, joker, n)
    if type(items) is tuple and splits is split_table(joker):  # a cost not seen with this joker: kept
        split_kept(splits, items, joker)
    return payable


def _copies(c, card, zone):
    if not isinstance(card, int):
        return 0
    g = c.g
    wanted = g.rules.instances[card]
    zones: dict = g.state["zones"]
    cards = zones.get(zone) if type(zone) is str else None
    if cards is not None:  # a zone: its tally, paid for as the cards it counts (as `_items` reads them, without calls)
        work = g.work = g.work - (
            len(cards) if zone not in g._slotted or None not in cards else len(cards) - cards.count(None)
        )
        if work < 0:
            out_of_work()
        memo: dict = g.held_memo
        counts: dict | None = memo.get(("counts", zone))
        if counts is None:
            counts = _tally(g, zone)
        return counts.get(wanted, 0)
    return sum(1 for x in _items(g, zone) if g.rules.instances[x] == wanted)


def _requires_met(c, card, zone):
    if card is None:
        return False
    g = c.g
    memo = g.held_memo
    held = memo.get(zone)
    if held is None:
        held = memo[zone] = {g.rules.instances[x] for x in _everyone(c, zone)}
    return held.issuperset(_requirements(g, card))


def _requirements(g, card) -> tuple:
    """The card ids a card (a number or an id) requires, from a table made once per pack."""
    rules = g.rules
    table = rules.__dict__.get("_requirements")
    if table is None:
        table = rules.__dict__["_requirements"] = {
            def_id: tuple(card_doc.get("requires") or ()) for def_id, card_doc in rules.cards.items()
        }
    return table[rules.instances[card] if isinstance(card, int) else card]


def _requires_held(c, card, player, zone):
    if card is None:
        return 0
    held = {c.g.rules.instances[x] for x in c.g.state["zones"][f"{zone}:{player}"] if x is not None}
    return sum(1 for need in _requirements(c.g, card) if need in held)


def _lines_between(c, counter, low, high):
    g = c.g
    lines = g.counter_lines(counter)
    a, b = g.counter(low, counter), g.counter(high, counter)
    if type(a) is int and type(b) is int:
        if a >= b:  # no line lies above a and not above b (the lower one's case)
            return 0
        ordered = _whole_lines(lines)
        if ordered is not None:  # the lines up to b less those up to a, found by halving
            return bisect_right(ordered, b) - bisect_right(ordered, a)
    return sum(1 for line in lines if a < line <= b)


def some_line_above(c, players, counter, low) -> bool:
    """Whether some player of `players` has a line of `counter` above `low`: `count(PLAYERS where lines_between(COUNTER,
    LOW, item) > 0) > 0` in one call (codegen fuses it, exists.py asks it: a menu asks it of every opponent). The lines and
    LOW's number are read once, at the first player (`_lines_between` read them first), each player's number as
    Table.counter reads it, without its call; then `_lines_between`'s answer, stopping at the first player above a
    line. No work is charged here, as none is there."""
    g = c.g
    counters = g.state["counters"]
    lines = None
    for high in players:
        if lines is None:
            lines = g.counter_lines(counter)
            a = g.counter(low, counter)
            ordered = _whole_lines(lines) if type(a) is int else None
        values = counters.get(high)
        b = values[counter] if values is not None and counter in values else counters["table"].get(counter, 0)
        if type(a) is int and type(b) is int:
            if a >= b:
                continue
            if ordered is not None:
                if bisect_right(ordered, b) > bisect_right(ordered, a):
                    return True
                continue
        if sum(1 for line in lines if a < line <= b) > 0:  # (counted as `_lines_between` counts: all compared)
            return True
    return False


_WHOLE_LINES_KEPT = 256  # lists of lines kept (a pack has a few) before the table starts again
_whole_lines_of: dict[tuple, tuple | None] = {}


def _whole_lines(lines) -> tuple | None:
    """A counter's lines in ascending order, when they are all whole numbers (lines may be written in any order), else
    None; kept under the lines themselves, so never out of date: a menu asks again and again."""
    try:
        key = tuple(lines)
        return _whole_lines_of[key]
    except KeyError:
        pass
    except TypeError:  # no list of values (or one holding lists): read as before, which says what is wrong
        return None
    if len(_whole_lines_of) >= _WHOLE_LINES_KEPT:
        _whole_lines_of.clear()
    found = _whole_lines_of[key] = tuple(sorted(key)) if all(type(line) is int for line in key) else None
    return found


def _flagged(c, flag, player=None):
    return bool(c.g.state["flags"].get(c.g.rules.flag_holder(flag, player or c.me), {}).get(flag))


def _next_player(c, player):
    order = c.g.players
    return order[(order.index(player) + 1) % len(order)]


def _zone_of(c, card):
    return c.g.state["loc"][card] if isinstance(card, int) else None


def _slot(c, card):
    if not isinstance(card, int):
        return 0
    g = c.g
    zone = g.state["loc"][card]
    found = g._zone_defs.get(zone)  # Table.zone_def without its call: the layout's table, the commonest answer
    if (found if found is not None else g.zone_def(zone)).get("type") != "row":
        return 0
    return g.state["zones"][zone].index(card) + 1


def card_in_slot(c, cards, number):
    """`first(CARDS where slot(item) = NUMBER)` of the cards `_each` paid for, in one call (codegen.py fuses it): each
    card's `_slot` without its call, then `first`'s work for the cards found (a menu asks it of every place of a
    row of cards: the card there)."""
    g = c.g
    loc, zones, zone_defs = g.state["loc"], g.state["zones"], g._zone_defs
    found = []
    for card in cards:
        if not isinstance(card, int):
            slot = 0
        else:  # (`_slot`)
            zone = loc[card]
            found_def = zone_defs.get(zone)
            if (found_def if found_def is not None else g.zone_def(zone)).get("type") != "row":
                slot = 0
            else:
                slot = zones[zone].index(card) + 1
        if slot == number:
            found.append(card)
    work = g.work = g.work - len(found)  # `first` reads them (`_items`: no gaps among cards paid for)
    if work < 0:
        out_of_work()
    return found[0] if found else None


def _room(c, zone):
    """`room(ZONE)`; `me`'s zone of an id every player has (a place on the board: the commonest, a menu asks it of
    every place) found as Table.zone_key finds it and read as places.room reads it, without their calls."""
    g = c.g
    try:
        key = g._own_keys[zone][c.me]
    except (KeyError, TypeError):  # a zone's key, another value, or `me` no player: zone_key's answer or error
        return room(g, g.zone_key(zone, c.me))
    if key not in g._slotted:
        cap = g._capacity.get(key)
        if cap is not None:  # a place: its capacity less the cards of every player's zone of its id
            zones = g.state["zones"]
            return max(0, cap - sum(map(len, map(zones.__getitem__, g.layout.place[key]))))
        if key in g._zone_defs:  # no limit: as many as the game has cards
            return len(g._card_defs)
    return room(g, key)


_NO_KEY = object()


def _amount(c, counter, player=None, key=_NO_KEY):
    if counter not in c.g.rules.counters:
        raise ValueError(f"`{counter}` is not a counter")
    if c.g.rules.counters[counter].get("owner") == "card":
        raise ValueError(f"`{counter}` is a number on each card: read it as `CARD.{counter}`")
    if key is not _NO_KEY:  # a counter with `keys`: the number at one key
        return c.g.counter_at(player or c.me, counter, key)
    return c.g.counter(player or c.me, counter)


def _own(c, zone, player):
    try:  # a zone every player has, of a player: its key, made once per pack (layout.own)
        return c.g._own_keys[zone][player]
    except (KeyError, TypeError):  # not one of them (a list or another value as zone or player: not a key)
        pass
    key = c.g.zone_key(zone, player)
    if key.split(":")[-1] != player:
        raise ValueError(f"`{zone}` is not a zone every player has")
    return key


def count_own(c, zone, player):
    """`count(own(ZONE, PLAYER))` in one call (codegen.py fuses the two where it finds them): a player's zone is
    counted as `_count` counts the key `_own` gives, without the second call (a board game asks it of every
    place and player again and again)."""
    g = c.g
    try:
        key = g._own_keys[zone][player]
        cards = g.state["zones"][key]
    except (KeyError, TypeError):  # not a zone every player has, of a player (or not in the state): as the two calls do
        return _count(c, _own(c, zone, player))
    if key in g._slotted:  # a row: its gaps are not counted
        return _count(c, key)
    count = len(cards)
    work = g.work = g.work - count
    if work < 0:
        out_of_work()
    return count


def places_held(c, places, player, held):
    """`PLACES where count(own(item, PLAYER)) > 0` (`held`) or `= 0` (not `held`) of the places `_each` paid for, in
    one call (codegen.py fuses a `where` that tests only that): count_own's answer and work for each place in turn,
    without its call (a board game asks it of every place again and again)."""
    return _holding(c, places, player, held, True)


def players_holding(c, players, zone, held):
    """`PLAYERS where count(own(ZONE, item)) > 0` (`held`) or `= 0` (not `held`): `places_held` with the player the
    item (how many players stand on a place)."""
    return _holding(c, players, zone, held, False)


def _holding(c, items, other, held, items_are_zones):
    """The items whose `count_own(item, other)` (`items_are_zones`), else `count_own(other, item)`, is above 0
    (`held`) or 0: each count worked out as count_own works it out, without its call."""
    g = c.g
    own_keys, zones, slotted = g._own_keys, g.state["zones"], g._slotted
    found = []
    for item in items:
        try:
            key = own_keys[item][other] if items_are_zones else own_keys[other][item]
            cards = zones[key]
        except (KeyError, TypeError):  # not a zone every player has, of a player: as count_own does
            count = count_own(c, item, other) if items_are_zones else count_own(c, other, item)
        else:
            if key in slotted:
                count = _count(c, key)
            else:
                count = len(cards)
                work = g.work = g.work - count
                if work < 0:
                    out_of_work()
        if (count > 0) is held:
            found.append(item)
    return found


def _compare_dice(c, first, second):
    a = sorted((int(x) for x in _items(c.g, first)), reverse=True)
    b = sorted((int(x) for x in _items(c.g, second)), reverse=True)
    return (a > b) - (a < b)  # lists compare element by element; a prefix (fewer dice) is the smaller


def _eliminated(c, player):
    """Out of the game or of the round (`eliminate`)."""
    out = c.g.state.get("out")
    return bool(out) and player in out


def _players_from(c, player):
    return c.g.players_from(player)


def _words(c, *parts):
    """Parts of a log line made one text (dsl_builtins: `words`); paid for by its length."""
    text = "".join(c.g.label(part) for part in parts)
    spend(c.g, len(text))
    return text


def _map(c, items, value):
    """`map(ITEMS, EXPR)`: the items come paid for, as a `where`'s (codegen `_per_item_call`); `value` is EXPR
    as a function of the item."""
    mapped = [value(x) for x in items]
    if list in map(type, mapped):  # lists in it: count what they hold
        check_size(mapped, g=c.g)
    return mapped


def _unique(c, items):
    kept: list = []
    seen: set = set()
    g = c.g
    for x in _items(g, items):
        try:
            if x in seen:
                continue
            seen.add(x)
        except TypeError:  # a list: looked for among those kept, paid for by the comparison
            work = g.work = g.work - len(kept)
            if work < 0:
                out_of_work()
            if x in kept:
                continue
        kept.append(x)
    return kept


def _sort(c, items, key=None):
    """Ascending and stable; by `key` (a function of the item, its items paid for by codegen) or by the items
    themselves. Values of different kinds sort nothing < numbers and yes/no < texts < lists."""
    g = c.g
    items = list(_items(g, items) if key is None else items)
    keys = [_order(key(x) if key is not None else x) for x in items]
    spend(g, len(items) * max(1, len(items).bit_length()))
    order = sorted(range(len(items)), key=keys.__getitem__)
    return [items[i] for i in order]


def _order(value):
    """A key that orders any two values of the DSL (Python would refuse to compare a number with a text)."""
    if value is None:
        return (0, 0)
    if isinstance(value, (bool, int)):
        return (1, int(value))
    if isinstance(value, str):
        return (2, value)
    if isinstance(value, list):
        return (3, tuple(_order(x) for x in value))
    return (4, repr(value))


def _index_of(c, items, item):
    for i, x in enumerate(_items(c.g, items), start=1):
        if x == item:
            return i
    return 0


BUILTINS = implemented(
    "functions",
    FUNCTIONS,
    {
        "count": _count,
        "sum": _sum,
        "min": _min,
        "max": _max,
        "between": lambda c, low, high: {"between": [int(low), int(high)]},
        "numbers": _numbers,
        "without": _without,
        "top": _top,
        "last": _last,
        "first": _first,
        "empty": _empty,
        "everyone": _everyone,
        "owner": _owner,
        "has": _has,
        "contains": _contains,
        "can_pay": _can_pay,
        "copies": _copies,
        "requires_met": _requires_met,
        "requires_held": _requires_held,
        "lines_between": _lines_between,
        "flagged": _flagged,
        "next_player": _next_player,
        "zone_of": _zone_of,
        "slot": _slot,
        "words": _words,
        "room": _room,
        "amount": _amount,
        "own": _own,
        "compare_dice": _compare_dice,
        "eliminated": _eliminated,
        "players_from": _players_from,
        "map": _map,
        "unique": _unique,
        "sort": _sort,
        "index_of": _index_of,
    },
)


# Built-in functions whose arguments from a position on may be read apart from the first ones: name -> (that position,
# the function of the context and those arguments, the function of the context, the first arguments and what the
# former made). A loop in which those arguments stay the same works out the former once (codegen `_prepared_call`).
PREPARED = {"can_pay": (1, _can_pay_ready, _can_pay_with)}


# ---------------------------------------------------------------- options in words
def option_words(g, pending, key, value, player) -> str | None:
    """How an option of a `choose` or `choose_secretly` reads for `player` (None: for everyone), when it
    reads otherwise than a plain value: its `showing` label (when the player can see every card in the
    option: a label may name them), else, for an option that is a list (`[card, 2]`), its parts joined with
    " + ". None: the view words it as any value (views.option_label)."""
    if pending["kind"] not in ("choose", "secret") or value == DONE:
        return None
    cards, shape = bool(pending.get("cards")), pending.get("shape")
    labels = pending.get("labels")
    if (
        labels is not None
        and key is not None
        and 0 <= key < len(labels)
        and labels[key] is not None
        and (not cards or all(_sees(g, card, player) for card in cards_in(g, value, shape)))
    ):
        return labels[key]
    if isinstance(value, list):
        return composite_words(g, value, shape, player, cards)
    return None


def composite_words(g, value: list, shape, player, cards: bool = True) -> str:
    """An option that is a list (`[card, 2]`) in words: its parts joined with " + "; a whole number is a
    card's name (or "a face-down card" for one the reader cannot see) unless `shape` marks its place as a
    plain number, or the options are not cards at all. Never a card's number."""
    return (
        " + ".join(_part_words(g, part, not cards or _number_at(shape, i), player) for i, part in enumerate(value))
        or "nothing"
    )


def cards_in(g, value, shape) -> list[int]:
    """The card numbers an option holds: itself, or the whole numbers of a list not marked plain numbers."""
    if type(value) is int:
        return [value]
    if not isinstance(value, list):
        return []
    found: list[int] = []
    for i, part in enumerate(value):
        if not _number_at(shape, i):
            found.extend(x for x in (part if isinstance(part, list) else [part]) if _is_card(g, x))
    return found


def _number_at(shape, i) -> bool:
    return bool(shape) and i < len(shape) and bool(shape[i])


def _is_card(g, value) -> bool:
    return type(value) is int and 0 <= value < len(g._card_defs)


def _sees(g, card, player) -> bool:
    if player is None:
        return all(g.can_see(card, p) for p in g.state["players"])
    return g.can_see(card, player)


def _part_words(g, part, number: bool, player) -> str:
    if isinstance(part, list):
        return ", ".join(_part_words(g, x, number, player) for x in part) or "nothing"
    if number or not _is_card(g, part):
        return g.label(part, player)
    return g.public_label([part], True) if player is None else g.card_label(part, player)  # "a card" if unseen


# ---------------------------------------------------------------- fields: card.X, player.X, zone.X
# `n` is an int: a card number (layout.cards_by_number: one list index). `tag` is a test inside `where` (codegen).
_CARD_BUILTIN = implemented(
    "card fields",
    CARD_FIELDS,
    elsewhere=("tag",),
    implementation={
        "id": lambda g, n: g.rules.instances[n],
        "name": lambda g, n: g._card_defs[n].get("name"),
        "type": lambda g, n: g._card_defs[n].get("type"),
        "tags": lambda g, n: list(g._card_defs[n].get("tags") or []),
        "deck": lambda g, n: g._card_defs[n].get("deck"),
        "back": lambda g, n: g._card_defs[n].get("back"),
        "cost": lambda g, n: list(g._card_defs[n].get("cost") or []),
        "requires": lambda g, n: list(g._card_defs[n].get("requires") or []),
        "orientation": lambda g, n: g.state["orient"][n],
        "owner": lambda g, n: g.owner_of(n),
    },
)

_ZONE_FIELDS = implemented(
    "zone fields",
    ZONE_FIELDS,
    {
        "id": lambda g, z: z.split(":")[0],
        "discard": lambda g, z: g.zone_def(z).get("discard"),
        "refill_from": lambda g, z: g.zone_def(z).get("refill_from"),
        "size": lambda g, z: len(g.items_read(z)),
    },
)


_STATIC_CARD_FIELDS = ("id", "name", "type", "deck", "back")  # printed: the same for a card number all game long
_STATIC_LIST_FIELDS = ("tags", "cost", "requires")  # printed lists: each read gets its own copy


def static_field_table(rules, name: str):
    """(table, copied) when the field `name` of a card number is printed data, the same all game long: `table[n]` is
    card n's value (a list to copy when `copied`), read by compiled expressions without a call (codegen.py); None
    for a field that changes in play (`orientation`, `owner`, a counter on cards). Made once per pack and field."""
    tables = rules.__dict__.setdefault("_static_field_tables", {})
    if name in tables:
        return tables[name]
    defs = cards_by_number(rules)
    if name in _STATIC_CARD_FIELDS:
        found = ([rules.instances[n] for n in range(len(defs))] if name == "id" else [d.get(name) for d in defs], False)
    elif name in _STATIC_LIST_FIELDS:
        found = ([tuple(d.get(name) or ()) for d in defs], True)
    elif name in _CARD_BUILTIN or rules.counters.get(name, {}).get("owner") == "card":
        found = None
    else:
        found = (rules.card_values(name), False)
    tables[name] = found
    return found


def field_getter(name: str):
    """A function (game, value) -> the field `name` of a card number, player, zone key or card id."""
    card_builtin = _CARD_BUILTIN.get(name)
    zone_field = _ZONE_FIELDS.get(name)
    by_number = [None, None]  # (rules, their card_values(name)): looked up once, not at every read

    def get(g, value):
        if type(value) is int:
            if value < 0:  # a list index from the end would read another card's field
                raise not_a_card(value, len(g._card_defs))
            try:
                if card_builtin is not None:
                    return card_builtin(g, value)
                if by_number[0] is not g.rules:
                    on_card = g.rules.counters.get(name, {}).get("owner") == "card"
                    by_number[1] = None if on_card else g.rules.card_values(name)  # None: a number on each card
                    by_number[0] = g.rules
                if by_number[1] is None:
                    return g.card_counter(value, name)
                return by_number[1][value]
            except IndexError:
                raise not_a_card(value, len(g._card_defs)) from None
        if value is None:
            return None
        if isinstance(value, str):
            if value in g.counters_of:
                return g.counter(value, name)
            if zone_field is not None and value in g.state["zones"]:
                return zone_field(g, value)
            if value in g.rules.cards:
                if name == "id":
                    return value
                if card_builtin is not None and name not in ("orientation", "owner"):
                    return g.rules.cards[value].get(name)
                return g.rules.def_values(name)[value]
        return None

    return get
