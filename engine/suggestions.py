""" "Did you mean ...?": the closest known name to a misspelt one. The answer is always that of
`difflib.get_close_matches(word, names, n=1, cutoff)`, ties included; it comes fast from a set of
tens of thousands of names.

difflib compares the word with every name: 2,500 misspelt references in a pack of 30,000 ids took
minutes. A `NameIndex` is built once per set of names (`closest` keeps the last few) and compares
only the names that can still win, pruning with difflib's own bounds of its ratio:
`real_quick_ratio` (lengths: the names are numbered by length, so a range of lengths is a slice) and
`quick_ratio` (letters shared, counted with repeats: a name must share T letters with the word to
reach a ratio r, and one that holds none of the word's k rarest letters shares at most len(word) - k,
so only the names holding one of the `len(word) - T + 1` rarest letters are looked at; a bit mask per
name counts the shared letters at once). A typing mistake scores about 0.9, so r = 0.9 is tried
first, where T is nearly the whole word and few names qualify; then 0.8, then the cutoff.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter, OrderedDict
from collections.abc import Collection
from difflib import SequenceMatcher

CUTOFF = 0.75  # one threshold for every "did you mean" of the linter
SMALL = 200  # names; fewer are compared one by one, as difflib does
_EPSILON = 1e-9  # bounds are widened by this, so rounding can only add candidates
_CACHE_SIZE = 8  # indexes kept
_BITS = 256  # letters (with rank) that get a bit in the masks
_LEVELS = (0.9, 0.8)  # ratios tried before the cutoff: a typing mistake in an id of 6 letters or more


def _tokens(word: str):
    """Each letter with its rank among the equal letters before it: ("a", 1), ("b", 1), ("a", 2)..."""
    seen: Counter = Counter()
    for char in word:
        seen[char] += 1
        yield char, seen[char]


def _lengths(size: int, ratio: float) -> range:
    """Lengths of the names whose ratio with a word of `size` letters can reach `ratio` (difflib's
    `real_quick_ratio`: 2 * min(a, b) / (a + b))."""
    low = math.ceil(ratio * size / (2 - ratio) - _EPSILON)
    high = math.floor(size * (2 - ratio) / ratio + _EPSILON) if ratio > 0 else 1 << 30
    return range(max(low, 0), high + 1)


def _must_share(size: int, shortest: int, ratio: float) -> int:
    """Letters a name of at least `shortest` letters must share with the word to reach `ratio`
    (difflib's `quick_ratio`: 2 * shared / (a + b))."""
    return math.ceil(ratio * (size + shortest) / 2 - _EPSILON)


class NameIndex:
    """The names of one set, numbered by length, and for each letter (with its rank) the numbers of the
    names that hold it: the names of a range of lengths are a slice of each list."""

    def __init__(self, names):
        self.names = sorted({n for n in names if isinstance(n, str)}, key=lambda n: (len(n), n))
        self.frozen = frozenset(self.names)
        self.length_of = [len(name) for name in self.names]
        self.first: list[int] = []  # first[k]: the number of the first name of k letters or more
        for number, name in enumerate(self.names):
            while len(self.first) <= len(name):
                self.first.append(number)
        self.postings: dict[tuple[str, int], list[int]] = {}
        for number, name in enumerate(self.names):
            for token in _tokens(name):
                self.postings.setdefault(token, []).append(number)
        # A bit for each of the commonest letters (with rank): the letters a name may share with a word,
        # counted by one `bit_count` instead of difflib's letter-by-letter `quick_ratio`.
        common = sorted(self.postings, key=lambda token: -len(self.postings[token]))[:_BITS]
        self.bit = {token: 1 << n for n, token in enumerate(common)}
        self.masks = [0] * len(self.names)
        for token in common:
            bit = self.bit[token]
            for number in self.postings[token]:
                self.masks[number] |= bit

    def _numbers(self, lengths: range) -> tuple[int, int]:
        """The numbers of the names whose length is in `lengths`: [low, high)."""
        end = len(self.first)
        low = self.first[lengths.start] if lengths.start < end else len(self.names)
        high = self.first[lengths.stop] if lengths.stop < end else len(self.names)
        return low, high

    def closest(self, word: str, cutoff: float = CUTOFF) -> str | None:
        found = self.best(word, cutoff)
        return found[1] if found else None

    def best(self, word: str, cutoff: float = CUTOFF, without=frozenset()) -> tuple[float, str] | None:
        """(ratio, name) of the closest name that is not in `without`, or None."""
        if len(self.names) <= SMALL:
            return best_of(word, (name for name in self.names if name not in without), cutoff)
        matcher = SequenceMatcher()
        matcher.set_seq2(word)  # as difflib does: the word is the sequence it indexes
        best: tuple[float, str] | None = None
        for target in [level for level in _LEVELS if level > cutoff] + [cutoff]:  # few names reach a high one
            best = self._search(word, matcher, target, best, cutoff, without)
            if best is not None and best[0] >= target:
                break  # every name that could reach `target` was seen, and none beats the best
        return best

    def _search(self, word, matcher, target, best, cutoff, without):
        """`best` ((ratio, name) or None), or a better name among those whose ratio can reach `target`."""
        size = len(word)
        floor = best[0] if best else cutoff
        threshold = max(floor, target)  # names below it are not looked for
        lengths = _lengths(size, threshold)
        lengths = range(lengths.start, min(lengths.stop, len(self.first)))  # no name is longer
        low, high = self._numbers(lengths)
        must = _must_share(size, lengths.start, threshold)
        if must <= 1:  # too short for the letters to tell: every name of a fitting length
            candidates = range(low, high)
        else:

            def in_range(token):
                numbers = self.postings.get(token, ())
                return numbers[bisect_left(numbers, low) : bisect_left(numbers, high)]

            lists = sorted((in_range(token) for token in _tokens(word)), key=len)
            # A name that holds none of the k rarest letters of the word shares at most size - k of them.
            candidates = set().union(*lists[: size - must + 1])
        mask, unmapped = 0, 0
        for token in _tokens(word):
            bit = self.bit.get(token)
            mask, unmapped = (mask | bit, unmapped) if bit else (mask, unmapped + 1)
        need = {length: _must_share(size, length, threshold) for length in lengths}
        masks, length_of = self.masks, self.length_of
        shared = [
            (held, number)
            for number in candidates
            if (held := (mask & masks[number]).bit_count() + unmapped) >= need[length_of[number]]
        ]
        shared.sort(reverse=True)  # the most promising first: the floor rises fast
        names = self.names
        for held, number in shared:
            name = names[number]
            if name in without:
                continue
            total = size + len(name)
            # difflib's real_quick_ratio and quick_ratio (from above: `held`), bounds of the ratio
            if not total or 2.0 * min(size, len(name)) / total >= floor and 2.0 * held / total >= floor:
                matcher.set_seq1(name)
                ratio = matcher.ratio()
                if ratio >= floor and (best is None or (ratio, name) > best):
                    best, floor = (ratio, name), ratio
        return best


def best_of(word: str, names, cutoff: float) -> tuple[float, str] | None:
    """(ratio, name) of the closest name, comparing every one: what get_close_matches(n=1) does."""
    matcher = SequenceMatcher()
    matcher.set_seq2(word)
    best = None
    for name in names:
        if not isinstance(name, str):
            continue
        matcher.set_seq1(name)
        if matcher.real_quick_ratio() >= cutoff and matcher.quick_ratio() >= cutoff:
            ratio = matcher.ratio()
            if ratio >= cutoff and (best is None or (ratio, name) > best):
                best = (ratio, name)
    return best


_indexes: OrderedDict[frozenset, NameIndex] = OrderedDict()


def _remember(built: NameIndex) -> NameIndex:
    _indexes[built.frozen] = built
    if len(_indexes) > _CACHE_SIZE:
        _indexes.popitem(last=False)
    return built


def index(names) -> NameIndex:
    """The index of exactly these names, built once and kept among the last few used."""
    if isinstance(names, NameIndex):
        return names
    key = names if isinstance(names, frozenset) else frozenset(n for n in names if isinstance(n, str))
    found = _indexes.get(key)
    if found is None:
        return _remember(NameIndex(key))
    _indexes.move_to_end(key)
    return found


def _covering(names: set | frozenset) -> tuple[NameIndex, Collection, set | frozenset]:
    """An index kept for nearly the same names, the few names it lacks and the few it has too many. A
    checker asks with a new set each time (the pack's ids and the names one text binds): one index of
    the ids serves them all."""
    for cached in reversed(_indexes.values()):
        if abs(len(cached.frozen) - len(names)) <= SMALL:
            extra = cached.frozen - names
            if len(extra) <= SMALL:
                lacking = names - cached.frozen
                if len(lacking) <= SMALL:
                    _indexes.move_to_end(cached.frozen)
                    return cached, lacking, extra
    return _remember(NameIndex(names)), (), frozenset()


def closest(word: str, names, cutoff: float = CUTOFF) -> str | None:
    """The name most like `word` (difflib's ratio, at least `cutoff`; the greatest name among equals),
    or None. `names` is any collection of texts, or a `NameIndex` for a set that is asked many times."""
    if not isinstance(word, str):
        return None
    if isinstance(names, NameIndex):
        found = names.best(word, cutoff)
    else:
        if not isinstance(names, (set, frozenset)):
            names = {n for n in names if isinstance(n, str)}
        if len(names) <= SMALL:
            found = best_of(word, names, cutoff)
        else:
            covering, lacking, extra = _covering(names)
            found = max(
                filter(None, (covering.best(word, cutoff, extra), best_of(word, lacking, cutoff))), default=None
            )
    return found[1] if found else None


def suggest(word: str, names, cutoff: float = CUTOFF) -> str:
    """ "did you mean `x`?" for the closest name, or nothing."""
    found = closest(word, names, cutoff)
    return f"did you mean `{found}`?" if found is not None else ""
