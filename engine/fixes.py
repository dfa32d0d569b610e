"""A finding's one sure fix, as the checks make it: plain data on the diagnostic (the document, the path in it,
the old and the new value), so it survives the lint cache. The schema check and the pack checks make fixes;
lint/fix.py plans and writes them."""

from __future__ import annotations

from jsonschema import Draft202012Validator

from engine import suggestions

RENAME_KEY, REPLACE, TO_LIST = "rename-key", "replace", "to-list"
ACTIONS = (RENAME_KEY, REPLACE, TO_LIST)


def sole_match(word: object, names) -> str | None:
    """The one name close to `word` (suggestions.CUTOFF), or None when there is none or two are equally
    close: a fix is made only when the choice is sure."""
    if not isinstance(word, str):
        return None
    if isinstance(names, suggestions.NameIndex):
        first = names.best(word)
        second = names.best(word, without=frozenset([first[1]])) if first else None
    else:
        names = {n for n in names if isinstance(n, str)}
        first = suggestions.best_of(word, names, suggestions.CUTOFF)
        second = suggestions.best_of(word, names - {first[1]}, suggestions.CUTOFF) if first else None
    if first is None or (second is not None and second[0] == first[0]) or first[1] == word:
        return None
    return first[1]


def _fix(action, doc, path, old, new, message) -> dict:
    return {"action": action, "doc": doc, "path": list(path), "old": old, "new": new, "message": message}


def key_fix(doc: int, path: tuple, names, mapping=None) -> dict | None:
    """Rename the key at the end of `path` to the one close name among `names`, unless the mapping already
    has that key."""
    old = path[-1] if path else None
    new = sole_match(old, names)
    if new is None or (isinstance(mapping, dict) and new in mapping):
        return None
    return _fix(RENAME_KEY, doc, path, old, new, f"rename `{old}` to `{new}`")


def value_fix(doc: int, path: tuple, old, names) -> dict | None:
    """Replace the text at `path` with the one close name among `names`."""
    new = sole_match(old, names)
    return None if new is None else _fix(REPLACE, doc, path, old, new, f"replace `{old}` with `{new}`")


def list_fix(doc: int, path: tuple, value, schema: dict) -> dict | None:
    """A text where a list was meant (`tags: wood`, `cost: wood, grass`): the list of its comma-separated
    parts, when every part is a valid item and the list is valid where the text was not, and a text with
    commas is not itself a valid item (then the split would be a guess)."""
    if not isinstance(value, str) or not isinstance(schema, dict) or "\n" in value:
        return None
    items = schema.get("items", {}) if isinstance(schema.get("items", {}), dict) else None
    if items is None:
        return None
    item_ok = Draft202012Validator(items).is_valid
    parts = [part.strip() for part in value.split(",")]
    if not all(parts) or not all(item_ok(p) for p in parts) or ("," in value and item_ok(value)):
        return None
    if not Draft202012Validator(schema).is_valid(parts):
        return None
    return _fix(TO_LIST, doc, path, value, parts, f"write `{value}` as the list [{', '.join(parts)}]")


def valid_fix(fix) -> bool:
    """Whether `fix` has the shape the checks make (a cache entry or a bug must not make us write junk)."""
    if not isinstance(fix, dict) or fix.get("action") not in ACTIONS or type(fix.get("doc")) is not int:
        return False
    path, old, new = fix.get("path"), fix.get("old"), fix.get("new")
    if not isinstance(path, list) or not path or not all(type(p) in (str, int) for p in path):
        return False
    if not isinstance(old, str):
        return False
    if fix["action"] == TO_LIST:
        return isinstance(new, list) and bool(new) and all(isinstance(n, str) and n for n in new)
    return isinstance(new, str) and bool(new) and new != old
