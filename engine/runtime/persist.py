"""Game logs and saves read from files a stranger may have written, and written whole or not at all.

A log or a save is parsed safely (`engine/files/jsonload.py`: size, depth, NaN, huge numbers, duplicate
keys), checked against its own schema (`schemas/runtime/`, with booleans and `2.0` not counted as
integers), then against the pack: a save's seats, parameters, zones and cards, counters, effect frames
(code keys the pack has, step numbers inside the code) and pending decision must fit together, so that
continuing it raises only the runtime's own errors. Every problem is one `LogError`/`SaveError` (both
`GameError`s) that says what is wrong and where: a JSON pointer, or a line and column.
"""

from __future__ import annotations

import json
from functools import cache

import fastjsonschema
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import best_match

from engine.content.schema import _TYPE_WORDS
from engine.files import atomic, jsonload, resources

from .errors import ContentError, GameError
from .log_words import CHOICE, COUNT, MOVE, REVEAL, TOGETHER, cards_named
from .protocol import CHANCE, END_TURN, SIMULTANEOUS, allowed_for
from .state import FORMAT, card_counter_max, counter_keys

LOG_SCHEMA, SAVE_SCHEMA = "log.schema.json", "save.schema.json"
# the verb that asks each kind of decision, and so must be the step its frame waits at
ASKED_BY = {
    "choose": "choose",
    "ask": "ask",
    "invite": "invite",
    "bid": "bid",
    "secret": "choose_secretly",
    "roll": "roll",
    "oracle": "oracle",
    "pay": "pay_cost",
}
ANSWERED_BY_CHANCE = ("roll", "oracle")


class RecordError(GameError):
    """A log or save that cannot be used. `pointer` (a JSON pointer) or `line`/`col` say where."""

    def __init__(self, message: str, pointer: str = "", line: int = 0, col: int = 0, *, code: str = ""):
        super().__init__(message, code=code)
        self.message, self.pointer, self.line, self.col = message, pointer, line, col

    @property
    def where(self) -> str:
        if self.line:
            return f"{self.line}:{self.col}"
        return self.pointer

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


class LogError(RecordError):
    """A game log that cannot be replayed as it stands."""


class SaveError(RecordError):
    """A saved game that cannot be loaded or continued."""


# ------------------------------------------------------------------------------------------- parsing
def parse(text: bytes | str, error=RecordError):
    """JSON from a stranger, bounded and strict; problems as `error` with a line and column."""
    try:
        return jsonload.parse(text)
    except jsonload.JsonFileError as exc:
        raise error(exc.message, line=exc.line, col=exc.col, code="X401") from None


def read(path, error=RecordError):
    """The JSON of the file at `path`. OSError (a missing file, a folder) is the caller's to report."""
    try:
        return jsonload.read(path)
    except jsonload.JsonFileError as exc:
        raise error(exc.message, line=exc.line, col=exc.col, code="X401") from None


def kind_of(data) -> str | None:
    """`log` or `save` for a mapping whose `format` names one (of any version), else None."""
    fmt = data.get("format") if isinstance(data, dict) else None
    if isinstance(fmt, str):
        for prefix, kind in (("knap-log/", "log"), ("knap-state/", "save")):
            if fmt.startswith(prefix):
                return kind
    return None


# ------------------------------------------------------------------------------------------- schemas
def _strict_integer(_checker, instance) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


StrictValidator = validators.extend(
    Draft202012Validator, type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _strict_integer)
)


@cache
def validator(file_name: str):
    """Built once per schema: these files are small and local (`$ref`s stay inside the file)."""
    schema = json.loads(resources.read_text("schemas", f"runtime/{file_name}"))
    return StrictValidator(schema)


@cache
def _fast_validator(file_name: str):
    """fastjsonschema compiles the schema (as draft-07: `prefixItems` becomes `items`) to Python: a long
    game's save checks in milliseconds instead of a second. It counts `2.0` as an integer, so it only
    decides for data holding no whole-valued float (see `is_valid`)."""

    def draft7(node):
        if isinstance(node, list):
            return [draft7(item) for item in node]
        if not isinstance(node, dict):
            return node
        out = {key: draft7(value) for key, value in node.items() if key != "prefixItems"}
        if "prefixItems" in node:  # these schemas never give `items` beside `prefixItems`
            out["items"] = draft7(node["prefixItems"])
        return out

    schema = draft7(json.loads(resources.read_text("schemas", f"runtime/{file_name}")))
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    return fastjsonschema.compile(schema)


def is_valid(data, file_name: str) -> bool:
    """The fast path's verdict where it is exact, else jsonschema's (the authority)."""
    if not _has_whole_float(data):
        try:
            _fast_validator(file_name)(data)
            return True
        except fastjsonschema.JsonSchemaException:
            return False
    return validator(file_name).is_valid(data)


def _has_whole_float(data) -> bool:
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, float):
            if value.is_integer():
                return True
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False


def pointer(parts) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def check_schema(data, file_name: str, error=RecordError, code: str = "X412") -> None:
    """Raise `error` (with the error code `code`) for the most relevant way `data` breaks the schema
    (jsonschema's `best_match`), as one sentence at a JSON pointer; the schema's description of the value
    is added where it helps."""
    if is_valid(data, file_name):
        return
    found = best_match(validator(file_name).iter_errors(data))
    if found is None:
        return
    path = list(found.absolute_path)
    value, rule = found.instance, found.validator
    what = "the file" if not path else f"`{path[-1]}`" if isinstance(path[-1], str) else "this entry"
    if rule == "type":
        expected: list[str] = (
            found.validator_value if isinstance(found.validator_value, list) else [found.validator_value]
        )
        message = f"{what} must be {' or '.join(_TYPE_WORDS.get(t, t) for t in expected)}, not {jsonload.shown(value)}"
    elif rule == "required":
        missing = next(name for name in found.validator_value if name not in value)
        path.append(missing)
        message = f"`{missing}` is missing"
    elif rule == "additionalProperties":
        known = found.schema.get("properties", {})
        extra = next((k for k in value if k not in known), "?")
        path.append(extra)
        message = f"{jsonload.shown(extra)} is not a key this may have" + (
            f" (keys: {', '.join(known)})" if known and len(known) <= 12 else ""
        )
    elif rule in ("const", "enum"):
        options = [found.validator_value] if rule == "const" else found.validator_value
        message = f"{what} is {jsonload.shown(value)}; it must be " + " or ".join(jsonload.shown(o) for o in options)
    elif rule == "pattern":
        message = f"{what} is {jsonload.shown(value)}, which does not have the required form"
    elif rule in ("minItems", "maxItems", "prefixItems"):
        message = f"{what} is {jsonload.shown(value)}: " + (
            found.schema.get("description") or f"it has {len(value)} items ({rule} {found.validator_value})"
        )
    elif rule in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "maxLength", "minLength"):
        message = f"{what} is {jsonload.shown(value)}, out of range ({rule} {found.validator_value})"
    else:
        message = f"{what} is {jsonload.shown(value)}: {found.message[:200]}"
    description = found.schema.get("description") if rule not in ("minItems", "maxItems", "prefixItems") else None
    if description and rule in ("type", "const", "enum", "pattern"):
        message += f" ({description.rstrip('.')})"
    raise error(message, pointer(path), code=code)


# ------------------------------------------------------------------------------------------- logs
def check_log(log) -> None:
    """The log has the shape of `schemas/runtime/log.schema.json` (what the pack makes of its answers
    is found by replaying it)."""
    if kind_of(log) != "log":
        raise LogError(
            'this is not a Knapper game log (it has no `"format": "knap-log/1"`)',
            "/format" if isinstance(log, dict) else "",
            code="X402",
        )
    check_schema(log, LOG_SCHEMA, LogError, "X403")


def write_save(game, path) -> None:
    """Save a game to a file, whole or not at all; raises `atomic.WriteError` naming the path."""
    atomic.write_text(path, game.save() + "\n")


def write_json(path, data, *, indent=None) -> None:
    """Write `data` as JSON, atomically (see `engine/files/atomic.py`); raises `atomic.WriteError`."""
    separators = (",", ":") if indent is None else None
    atomic.write_text(path, json.dumps(data, indent=indent, separators=separators) + "\n")


# ------------------------------------------------------------------------------------------- saves
def check_loadable(rules, state, *, schema_checked: bool = False) -> None:
    """A saved state (parsed JSON) checked against its schema, the pack and itself, before `Game.from_save`
    makes a game of it (and tries it out: `try_out`); raises SaveError. `schema_checked`: the caller has
    already run `check_save_schema`."""
    if not schema_checked:
        check_save_schema(state)
    check_save(rules, state)


def check_save_schema(state) -> None:
    if kind_of(state) != "save":
        raise SaveError(
            f'this is not a saved Knapper game (it has no `"format": "{FORMAT}"`)',
            "/format" if isinstance(state, dict) else "",
            code="X411",
        )
    if state["format"] != FORMAT:  # another version of knap saved it: say so before any field its shape changed
        shown = json.dumps(state["format"])[:60]
        raise SaveError(f'`format` is {shown}; it must be "{FORMAT}"', "/format", code="X412")
    check_schema(state, SAVE_SCHEMA, SaveError, "X412")


def check_save(rules, state) -> None:
    """A state that has the schema's shape fits the pack and is consistent with itself."""
    if state["pack"] != rules.pack_id:
        raise SaveError(
            f"this game was saved with the pack `{state['pack']}`, not `{rules.pack_id}`", "/pack", code="X413"
        )
    if state["pack_version"] != rules.fingerprint:
        raise SaveError(
            "the pack has changed since this game was saved; a saved effect half-way through "
            "cannot be continued with other rules (its log can still be replayed)",
            "/pack_version",
            code="X414",
        )
    _StateCheck(rules, state, "").run()
    if state["attempt"] is not None:
        snap = state["attempt"]["snap"]
        if len(state["log"]) < state["attempt"]["log"]:
            raise SaveError("the action began at a log line the log does not have", "/attempt/log", code="X415")
        _StateCheck(rules, {**snap, "log": [], "history": [], "dead": []}, "/attempt/snap").run()
        if snap["pending"] is None or snap["pending"]["kind"] != "action":
            raise SaveError(
                "the state from before an action must wait for a choice of action", "/attempt/snap/pending", code="X415"
            )


def try_out(game) -> None:
    """Ask the loaded game what any caller may ask first (the decision, the legal answers, every
    player's view, the hash): a state the checks let through but that does not fit together fails here,
    as a SaveError, instead of later with a Python error."""
    try:
        decision = game.decision
        if decision is not None:
            for player in decision.players:
                if not game.legal(player):
                    raise SaveError(f"{player} must answer but has no legal answer", "/pending", code="X415")
        for player in game.state["players"]:
            game.view(player)
        game.state_hash()
    except (SaveError, ContentError):
        raise
    except (GameError, TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        raise SaveError(
            f"the saved state does not fit together ({type(exc).__name__}: {jsonload.shown(str(exc), 80)})", code="X415"
        ) from None


class _StateCheck:
    """What the schema cannot say: that a state fits its pack and is consistent with itself."""

    def __init__(self, rules, state, prefix: str):
        self.rules, self.state, self.prefix = rules, state, prefix

    def fail(self, message, *parts):
        raise SaveError(message, self.prefix + pointer(parts), code="X415")

    def run(self):
        self.seats()
        self.cards()
        self.counters()
        self.card_counters()
        self.turn()
        self.frames()
        self.decision()
        self.log()

    def seats(self):
        state, rules = self.state, self.rules
        players = state["players"]
        low, high = rules.players
        if not low <= len(players) <= high:
            self.fail(f"{len(players)} seats, but this pack is for {low} to {high} players", "players")
        if players != [f"P{i}" for i in range(1, len(players) + 1)]:
            self.fail(f"the seats must be P1 to P{len(players)} in order", "players")
        names, expected = set(state["params"]), set(rules.parameters(len(players)))
        if names != expected:  # values may differ: a scenario or a house rule sets its own
            extra = sorted(names - expected)
            self.fail(
                f"the pack has no parameter `{extra[0]}`"
                if extra
                else f"the parameter `{min(expected - names)}` is missing",
                "params",
                *extra[:1],
            )
        if set(state["used"]) != set(players):
            self.fail(f"must have one entry for each seat ({', '.join(players)})", "used")
        for number, (who, _option) in enumerate(state["history"]):
            if who != CHANCE and who not in players:
                self.fail(f"{who} is not a seat of this game", "history", number, 0)

    def cards(self):
        state, rules = self.state, self.rules
        players = state["players"]
        total = len(rules.instances)
        expected = {f"_drawn:{p}" for p in players} | {"_removed"}  # the zones Game.new makes
        for zone_id, zone in rules.zones.items():
            expected |= {f"{zone_id}:{p}" for p in players} if zone.get("owner") == "player" else {zone_id}
        zones = state["zones"]
        for key in zones:
            if key not in expected:
                self.fail("the pack has no such zone (for these seats)", "zones", key)
        for key in sorted(expected - set(zones)):
            self.fail(f"the zone `{key}` is missing", "zones")
        where = [None] * total
        for key, cards in zones.items():
            zone = rules.zones.get(key.split(":")[0], {})
            slotted = zone.get("type") == "row" and bool(zone.get("slots")) and not key.startswith("_")
            for i, card in enumerate(cards):
                if card is None:
                    if not slotted:
                        self.fail("an empty place (null) is only allowed in a row with slots", "zones", key, i)
                    continue
                if card >= total:
                    self.fail(f"there is no card {card}: the pack has {total} (0 to {total - 1})", "zones", key, i)
                if where[card] is not None:
                    self.fail(f"card {card} is also in `{where[card]}`: a card lies in one place", "zones", key, i)
                where[card] = key
        if None in where:
            self.fail(f"card {where.index(None)} is in no zone", "zones")
        if len(state["loc"]) != total:
            self.fail(f"{len(state['loc'])} entries, but the pack has {total} cards", "loc")
        for card, key in enumerate(state["loc"]):
            if key != where[card]:
                self.fail(f"card {card} lies in `{where[card]}`, not {jsonload.shown(key)}", "loc", card)
        if len(state["orient"]) != total:
            self.fail(f"{len(state['orient'])} entries, but the pack has {total} cards", "orient")
        for field in ("shown", "known"):  # card number (text): "all" (shown only) or seats
            for key, seats in state.get(field, {}).items():
                self.card_key(key, field, key)
                if seats != "all" and not set(seats) <= set(players):
                    self.fail("names a seat this game does not have", field, key)

    def card_key(self, key, *parts):
        """Refuse a key that is not a card number of this pack written as text ("7")."""
        if not (key.isdigit() and key == str(int(key)) and int(key) < len(self.rules.instances)):
            self.fail(f"{jsonload.shown(key)} is not a card number of this pack", *parts)

    def counters(self):
        state, rules = self.state, self.rules
        owners = [*state["players"], "table"]
        values = state["counters"]
        if set(values) != set(owners):
            self.fail(f"must have one entry for each seat and `table` ({', '.join(owners)})", "counters")
        for owner in owners:
            for counter_id, value in values[owner].items():
                spec = rules.counters.get(counter_id)
                if spec is None:
                    self.fail("the pack has no such counter", "counters", owner, counter_id)
                if (spec.get("owner") == "player") != (owner != "table"):
                    self.fail(
                        "this counter belongs " + ("to each player" if owner == "table" else "to the table"),
                        "counters",
                        owner,
                        counter_id,
                    )
                keys = counter_keys(spec)
                if (keys is None) == isinstance(value, dict) or keys is not None and set(value) != set(keys):
                    self.fail(
                        "must be one number"
                        if keys is None
                        else f"must hold a number for each key ({', '.join(keys)})",
                        "counters",
                        owner,
                        counter_id,
                    )
                low, high = spec.get("min"), spec.get("max")
                for number in value.values() if isinstance(value, dict) else [value]:
                    if (low is not None and number < low) or (high is not None and number > high):
                        self.fail(
                            f"{number} is outside the counter's range ({low} to {high})", "counters", owner, counter_id
                        )

    def card_counters(self):
        """Numbers kept on cards: counters with `owner: card`, on cards of this game, within their bounds."""
        rules = self.rules
        for counter_id, values in self.state.get("card_counters", {}).items():
            spec = rules.counters.get(counter_id)
            if spec is None or spec.get("owner") != "card":
                self.fail("is not a counter kept on cards", "card_counters", counter_id)
            low = spec.get("min")
            for key, number in values.items():
                self.card_key(key, "card_counters", counter_id, key)
                top = card_counter_max(rules, spec, int(key))
                if (low is not None and number < low) or (top is not None and number > top):
                    self.fail(
                        f"{number} is outside the counter's range ({low} to {top})", "card_counters", counter_id, key
                    )

    def turn(self):
        state = self.state
        players = state["players"]
        if state["turn"]["player"] not in players:
            self.fail("is not a seat of this game", "turn", "player")
        ending = state["ending"]
        if ending is not None:
            for i, player in enumerate(ending["queue"]):
                if player not in players:
                    self.fail("is not a seat of this game", "ending", "queue", i)
            if ending["by"] is not None and ending["by"] not in players:
                self.fail("is not a seat of this game", "ending", "by")
        for i, player in enumerate(state.get("declared") or []):
            if player not in players:
                self.fail("is not a seat of this game", "declared", i)
        over = state["stage"] == "over"
        if over != (state["result"] is not None):
            self.fail("a finished game has a result, and only a finished game", "result")
        if over and state["pending"] is not None:
            self.fail("a finished game waits for no decision", "pending")
        if not over and state["pending"] is None:
            self.fail("a game in progress is saved at a decision: it must have one pending", "pending")
        attempt = state["attempt"]
        if attempt is not None:
            if attempt["action"] not in self.rules.actions:
                self.fail("the pack has no such action", "attempt", "action")
            if not attempt["path"] or len(attempt["path"]) != len(attempt["counts"]):
                self.fail("`path` and `counts` must be as long as each other, and not empty", "attempt", "path")

    def frames(self):
        for i, frame in enumerate(self.state["stack"]):
            code = self.rules.code.get(frame["code"])
            if code is None or not hasattr(code, "steps"):
                self.fail(f"the pack has no effect {jsonload.shown(frame['code'])}", "stack", i, "code")
            if frame["pc"] > len(code.steps):
                self.fail(
                    f"step {frame['pc']} is past the end of `{code.key}` ({len(code.steps)} steps)", "stack", i, "pc"
                )

    def decision(self):
        state = self.state
        pending = state["pending"]
        if pending is None:
            return
        kind, by, options = pending["kind"], pending["by"], pending["options"]
        players = state["players"]
        for i, who in enumerate(by):
            if who != CHANCE and who not in players:
                self.fail("is not a seat of this game", "pending", "by", i)
        if (kind in ANSWERED_BY_CHANCE) != (by == [CHANCE]):
            self.fail("dice and oracles (and only they) are answered by `chance`, alone", "pending", "by")
        if kind in ANSWERED_BY_CHANCE:
            probs = pending.get("probs")
            if probs is None or len(probs) != len(options) or not sum(probs) > 0:
                self.fail("a chance decision needs one probability per option, not all 0", "pending", "probs")
        if kind == "action":
            if by != [state["turn"]["player"]] or state["stack"]:
                self.fail(
                    "the choice of action belongs to the player whose turn it is, with no effect under way",
                    "pending",
                    "by",
                )
            for i, option in enumerate(options):
                if not isinstance(option, str) or option != END_TURN and option not in self.rules.actions:
                    self.fail(f"the pack has no action {jsonload.shown(option)}", "pending", "options", i)
        else:
            if not state["stack"]:
                self.fail("a decision inside an effect needs the effect's frame on the stack", "pending", "kind")
            frame = state["stack"][-1]
            steps = self.rules.code[frame["code"]].steps
            step = steps[frame["pc"]] if frame["pc"] < len(steps) else None
            verb = step[1] if step is not None and step[0] == "verb" else None
            if getattr(verb, "name", None) != ASKED_BY[kind]:
                self.fail(
                    f"the innermost effect is not at a `{ASKED_BY[kind]}` step that would ask this",
                    "stack",
                    len(state["stack"]) - 1,
                    "pc",
                )
        if kind in SIMULTANEOUS:
            order, answers = pending.get("order"), pending.get("answers")
            if order is None or answers is None:
                self.fail("a decision made by several players at once has `order` and `answers`", "pending")
            if set(by) & set(answers) or set(order) != set(by) | set(answers) or len(set(order)) != len(order):
                self.fail(
                    "every player in `order` either answered (`answers`) or must answer (`by`), not both",
                    "pending",
                    "order",
                )
            for player, answer in answers.items():
                if answer >= len(options):
                    self.fail(f"option {answer} does not exist ({len(options)} options)", "pending", "answers", player)
        elif len(by) != 1 or "answers" in pending or "order" in pending:
            self.fail(f"a `{kind}` decision is answered by one player", "pending", "by")
        for field in ("limit", "allowed"):
            for player, value in (pending.get(field) or {}).items():
                if player not in players:
                    self.fail("is not a seat of this game", "pending", field, player)
                if field == "allowed" and any(key >= len(options) for key in value):
                    self.fail(f"names an option that does not exist ({len(options)} options)", "pending", field, player)
        if pending.get("cards"):
            total = len(self.rules.instances)
            for i, option in enumerate(options):
                if isinstance(option, int) and not isinstance(option, bool) and not 0 <= option < total:
                    self.fail(f"there is no card {option}", "pending", "options", i)
        for player in by:
            if not allowed_for(pending, player, list(range(len(options)))):
                self.fail(f"{player} must answer but has no option", "pending")

    def log(self):
        """The log's facts name this game's cards, zones, seats and counters, so wording them when read
        (log_words.py) cannot fail: a forged entry is refused here."""
        state, rules = self.state, self.rules
        players = state["players"]
        seats = 1 << len(players)
        for i, entry in enumerate(state["log"]):
            kind = entry[0]
            if len(entry) <= 2:
                continue
            if kind == MOVE:
                for field in (4, 5):
                    if entry[field] not in state["zones"]:
                        self.fail(f"the game has no such zone ({jsonload.shown(entry[field])})", "log", i, field)
                masks = self.cards_seen(i, 6)
            elif kind == COUNT:
                owner, counter = entry[2], entry[3]
                spec = rules.counters.get(counter)
                if spec is None:
                    self.fail("the pack has no such counter", "log", i, 3)
                if spec.get("owner") == "player" and owner not in players:
                    self.fail(f"{jsonload.shown(owner)} is not a seat of this game", "log", i, 2)
                if spec.get("owner") != "player" and owner != "table":
                    self.fail("this counter belongs to the table", "log", i, 2)
                masks = []
            elif kind == TOGETHER:
                for n, (seat, _label, _mask) in enumerate(entry[2]):
                    if seat not in players:
                        self.fail("is not a seat of this game", "log", i, 2, n, 0)
                masks = [((2, n, 2), pick[2]) for n, pick in enumerate(entry[2])]
            elif kind == REVEAL:
                for field, seat in [(2, entry[2])] + [(3, s) for s in entry[3] or []]:
                    if seat is not None and seat not in players:
                        self.fail(f"{jsonload.shown(seat)} is not a seat of this game", "log", i, field)
                masks = self.cards_seen(i, 4)
            elif kind == CHOICE:
                if entry[2] not in players:
                    self.fail(f"{jsonload.shown(entry[2])} is not a seat of this game", "log", i, 2)
                masks = self.cards_seen(i, 10)
                if entry[6] and not set(cards_named(entry[7], len(rules.instances))) <= set(entry[10]):
                    self.fail("names a card without who could see it then", "log", i, 7)
            else:  # the schema allows no other kind
                continue
            for at, mask in masks:
                if mask >= seats:
                    self.fail(
                        f"{mask} names seats this game does not have ({len(players)} seats: less than {seats})",
                        "log",
                        i,
                        *at,
                    )

    def cards_seen(self, i: int, field: int) -> list:
        """Check log entry `i`'s cards (at `field`) and who saw each (at `field + 1`, one mask per card, as in
        moves and reveals); (where, mask) of each mask."""
        entry, total = self.state["log"][i], len(self.rules.instances)
        cards, seen = entry[field], entry[field + 1]
        for n, card in enumerate(cards):
            if card >= total:
                self.fail(f"there is no card {card}: the pack has {total} (0 to {total - 1})", "log", i, field, n)
        if len(seen) != len(cards):
            self.fail("who saw the cards needs one for each card", "log", i, field + 1)
        return [((field + 1, n), mask) for n, mask in enumerate(seen)]
