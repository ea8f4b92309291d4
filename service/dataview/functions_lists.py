"""Dataview's object, array and string functions (contains and friends, sort, map, filter,
join, flat, slice, regex, split, pad, substring, truncate ...), registered into
`functions.FUNCTIONS` by `register`.

Budgets: a caller's regular expression (regextest, regexmatch, regexreplace, split) runs on the
`regex` package with the query's time left (`service.budget`), never on `re`, which cannot be
interrupted; a string or list a function builds (padleft, join, replace, flat ...) is checked
against `[limits]` before it is built; unique() is linear for plain values.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from service import budget as limits
from service import js_replace
from service.dataview.ops import to_string
from service.dataview.rows import Row
from service.dataview.values import Lambda, Link, SortKey, equal, truthy, type_of

if TYPE_CHECKING:
    import regex

MAX_PATTERN = 1000


def _n(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _contains(hay: Any, needle: Any, fold: bool, exact: bool) -> bool:
    if isinstance(hay, str):
        if not isinstance(needle, str):
            return False
        return needle.lower() in hay.lower() if fold else needle in hay
    if isinstance(hay, list):
        limits.current().spend(len(hay))  # contains over long lists, once per row: counted, timed
        if exact:
            return any(equal(item, needle) for item in hay)
        return any(_contains(item, needle, fold, exact) for item in hay)
    if isinstance(hay, Mapping):
        return isinstance(needle, str) and needle in hay
    if isinstance(hay, Link):
        return isinstance(needle, Link) and equal(hay, needle)
    return equal(hay, needle)


def _call(f: Any, *args: Any) -> Any:
    return f.call(list(args)) if isinstance(f, Lambda) else None


def _flat(values: list[Any], depth: int) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if isinstance(v, list) and depth > 0:
            inner = _flat(v, depth - 1)
            limits.check_items(len(out) + len(inner))
            out.extend(inner)
        else:
            out.append(v)
    return out


def _truncate(v: str, length: Any, suffix: Any = "...") -> Any:
    if not _n(length):
        return None
    suffix = suffix if isinstance(suffix, str) else "..."
    n = int(length)  # functions.ts: cut when longer than length - suffix ("hello", 5 is "he...")
    return v if len(v) <= n - len(suffix) else v[: max(n - len(suffix), 0)] + suffix


def _split(v: str, sep: Any, limit: Any = None) -> Any:
    if not isinstance(sep, str):
        return None
    rx = _compile(sep)
    if rx is None:
        return None
    parts = _js_split(rx, v)
    return parts[: max(int(limit), 0)] if _n(limit) else parts


def _js_split(rx: Any, v: str) -> list[str]:
    """String.prototype.split by a RegExp (Dataview's splitImpl): an empty match where the last
    piece ended, or at the very end, cuts nothing ('abc' by '' is a, b, c); groups are kept, an
    unmatched one as ''."""
    if not v:
        return [] if limits.regex_call(rx, "match", v) is not None else [""]
    found = limits.current().timed(lambda timeout: list(rx.finditer(v, timeout=timeout)))
    out: list[str] = []
    last = 0
    for m in found:
        if m.end() == last or m.start() >= len(v):
            continue
        out.append(v[last : m.start()])
        out.extend(g if g is not None else "" for g in m.groups())
        last = m.end()
    out.append(v[last:])
    return out


def _quantifier(values: Any, f: Any, rest: list[Any], mode: str) -> bool:
    items = values if isinstance(values, list) else [values, *rest]
    if isinstance(f, Lambda):
        tests = [truthy(f.call([v])) for v in items]
    else:
        tests = [truthy(v) for v in (items if f is None else [*items, f])]
    if mode == "all":
        return all(tests)
    if mode == "any":
        return any(tests)
    return not any(tests)


# functions.ts `.vectorize(n, positions)` of the functions registered here: called with n
# arguments, a list in one of those positions maps the call over it (`functions.spread`)
Over = dict[int, tuple[int, ...]]
NEEDLE: Over = {2: (1,)}
PAIR: Over = {2: (0, 1)}
PAIR_OR_TRIPLE: Over = {2: (0, 1), 3: (0, 1, 2)}
TRIPLE: Over = {3: (0, 1, 2)}
TEXT: Over = {1: (0,)}


def register(
    fn: Callable[..., Any],
    vectorised: Callable[..., Any],
    arity_of: Callable[..., Any],
    spread: Callable[..., Any],
) -> None:
    def one(name: str, f: Callable[[list[Any]], Any], over: Over | None = None) -> None:
        call = lambda ctx, a: f(a)  # noqa: E731
        fn(name)(spread(over)(call) if over else call)

    def text(name: str, f: Callable[..., Any], over: Over) -> None:
        vectorised(name, arity=arity_of(f, 0), over=over)(
            lambda ctx, v, *rest: f(v, *rest) if isinstance(v, str) else None
        )

    one("contains", lambda a: len(a) == 2 and _contains(a[0], a[1], False, False), NEEDLE)
    one("icontains", lambda a: len(a) == 2 and _contains(a[0], a[1], True, False), NEEDLE)
    one("econtains", lambda a: len(a) == 2 and _contains(a[0], a[1], False, True), NEEDLE)
    one("containsword", lambda a: len(a) == 2 and _word(a[0], a[1]), PAIR)
    one("extract", lambda a: {k: a[0].get(k) for k in a[1:]} if a and isinstance(a[0], Mapping) else None)
    one("sort", lambda a: _sort(a))
    one("reverse", lambda a: (a[0][::-1] if isinstance(a[0], (list, str)) else a[0]) if a else None)
    one("length", lambda a: len(a[0]) if a and isinstance(a[0], (list, dict, str, Row)) else 0)
    one("nonnull", lambda a: [v for v in (a[0] if len(a) == 1 and isinstance(a[0], list) else a) if v is not None])
    one(
        "firstvalue", lambda a: next((v for v in a[0] if v is not None), None) if a and isinstance(a[0], list) else None
    )
    one("all", lambda a: _quantifier(a[0], a[1] if len(a) > 1 else None, a[2:], "all") if a else True)
    one("any", lambda a: _quantifier(a[0], a[1] if len(a) > 1 else None, a[2:], "any") if a else False)
    one("none", lambda a: _quantifier(a[0], a[1] if len(a) > 1 else None, a[2:], "none") if a else True)
    one("join", lambda a: _join(a))
    one(
        "filter",
        lambda a: [v for v in a[0] if truthy(_call(a[1], v))] if len(a) == 2 and isinstance(a[0], list) else None,
    )
    one("map", lambda a: [_call(a[1], v) for v in a[0]] if len(a) == 2 and isinstance(a[0], list) else None)
    one("unique", lambda a: _unique(a[0]) if a and isinstance(a[0], list) else None)
    one(
        "flat",
        lambda a: _flat(a[0], int(a[1]) if len(a) > 1 and _n(a[1]) else 1) if a and isinstance(a[0], list) else None,
    )
    one("slice", lambda a: _slice(a))
    one("regextest", lambda a: _pairwise(a, lambda p, v: _search(p, v) is not None), PAIR)
    one("regexmatch", lambda a: _pairwise(a, _full), PAIR)
    text("regexreplace", lambda s, p, r: _sub(p, r, s), TRIPLE)
    text("replace", _replace, TRIPLE)
    text("lower", lambda s: s.lower(), TEXT)
    text("upper", lambda s: s.upper(), TEXT)
    text("split", _split, {})  # not vectorised in Dataview: split of a list is no text (null here)
    text("startswith", lambda s, p: s.startswith(p) if isinstance(p, str) else None, PAIR)  # null: no such call
    text("endswith", lambda s, p: s.endswith(p) if isinstance(p, str) else None, PAIR)
    text("padleft", lambda s, n, pad=" ": _pad(s, n, pad, left=True), PAIR_OR_TRIPLE)
    text("padright", lambda s, n, pad=" ": _pad(s, n, pad, left=False), PAIR_OR_TRIPLE)
    text("substring", _substring, PAIR_OR_TRIPLE)
    text("truncate", _truncate, PAIR_OR_TRIPLE)


def _substring(s: str, start: Any, end: Any = None) -> Any:
    """String.prototype.substring: each end clamped to 0..length, swapped when start > end."""
    if not _n(start):
        return None
    a = min(max(int(start), 0), len(s))
    b = min(max(int(end), 0), len(s)) if _n(end) else len(s)
    return s[min(a, b) : max(a, b)]


def _word(hay: Any, word: Any) -> bool | None:
    """functions.ts containsword: `/.*\\b<word>\\b.*/i` — JavaScript's \\b knows ASCII word characters
    only ('caf' is a word of 'café'; '#tag' needs a word character before it). A null (or another
    type, which has no implementation there) is null."""
    if not isinstance(hay, str) or not isinstance(word, str):
        return None
    return re.search(r"\b" + re.escape(word.lower()) + r"\b", hay.lower(), re.ASCII) is not None


def _sort(a: list[Any]) -> Any:
    if len(a) == 1 and not isinstance(a[0], list):
        return a[0]  # functions.ts sort `.add1("*", e => e)`, as reverse
    if not a or not isinstance(a[0], list):
        return None
    if len(a) > 1 and isinstance(a[1], Lambda):
        f = a[1]
        return sorted(a[0], key=lambda v: SortKey(f.call([v])))
    return sorted(a[0], key=SortKey)


def _join(a: list[Any]) -> Any:
    if not a:
        return None
    sep = a[1] if len(a) > 1 and isinstance(a[1], str) else ", "
    values = a[0] if isinstance(a[0], list) else [a[0]]
    budget = limits.current()
    parts: list[str] = []
    size = 0
    for v in values:
        text = to_string(v)
        size += len(text) + len(sep)
        budget.check_chars(size)
        parts.append(text)
    return sep.join(parts)


def _pad(s: str, n: Any, pad: Any, *, left: bool) -> Any:
    if not _n(n):
        return None
    limits.check_chars(int(n))
    fill = pad if isinstance(pad, str) else " "  # String.padStart / padEnd: the padding repeated, cut
    missing = int(n) - len(s)
    if missing <= 0 or not fill:
        return s
    filler = (fill * (missing // len(fill) + 1))[:missing]
    return filler + s if left else s + filler


def _replace(s: str, old: Any, new: Any) -> Any:
    if not isinstance(old, str) or not isinstance(new, str):
        return None
    count = s.count(old) if old else max(len(s) - 1, 0)
    limits.check_chars(len(s) + count * (len(new) - len(old)))
    return s.replace(old, new) if old else new.join(s)  # split("").join(new): between characters


_PLAIN = frozenset({"string", "number", "boolean", "null", "date"})


def _unique(values: list[Any]) -> list[Any]:
    """Values in first-seen order without repeats (Dataview's equality): plain values by a hash
    key, the others (links, lists, objects, durations) compared with the kept ones of their kind."""
    budget = limits.current()
    out: list[Any] = []
    seen: set[tuple[str, Any]] = set()
    others: list[Any] = []
    for v in values:
        budget.spend()
        kind = type_of(v)
        if kind in _PLAIN:
            key = (kind, v)
            if key in seen:
                continue
            seen.add(key)
        elif any(equal(v, kept) for kept in others):
            continue
        else:
            others.append(v)
        out.append(v)
    return out


def _slice(a: list[Any]) -> Any:
    if not a or not isinstance(a[0], list):
        return None
    start = int(a[1]) if len(a) > 1 and _n(a[1]) else None
    end = int(a[2]) if len(a) > 2 and _n(a[2]) else None
    return a[0][start:end]


@functools.lru_cache(maxsize=256)
def _compile(pattern: str) -> regex.Pattern[str] | None:
    """A caller's pattern on the interruptible engine (None when invalid or too long)."""
    if len(pattern) > MAX_PATTERN:
        return None
    import regex  # loaded by the first query that uses a regular expression

    try:
        return limits.compile_regex(pattern, regex.V0)
    except (regex.error, ValueError, OverflowError, RecursionError):
        return None


def _search(pattern: str, s: str) -> Any:
    rx = _compile(pattern)
    return limits.regex_call(rx, "search", s) if rx else None


def _full(pattern: str, s: str) -> bool:
    """functions.ts regexmatch: a pattern that neither starts with '^' nor ends with '$' is wrapped
    in '^' and '$' (the text's end); one that does is searched for as written ('^a' matches 'abc')."""
    wrapped = pattern if pattern.startswith("^") or pattern.endswith("$") else f"^{pattern}\\Z"
    return _search(wrapped, s) is not None  # as written: '^a|b' + '$' is (^a)|(b$), as in JavaScript


def _pairwise(a: list[Any], test: Callable[[str, str], bool]) -> Any:
    """regextest / regexmatch (pattern, text), false for a null or another type (lists are
    mapped over by `spread`, as functions.ts `.vectorize(2, [0, 1])`)."""
    return len(a) == 2 and isinstance(a[0], str) and isinstance(a[1], str) and test(a[0], a[1])


def _sub(pattern: Any, repl: Any, s: str) -> Any:
    if not isinstance(pattern, str) or not isinstance(repl, str):
        return None
    rx = _compile(pattern)
    if rx is None:
        return None
    budget = limits.current()

    def attempt(timeout: float) -> Any:  # afresh each time `timed` runs it (the size counted again)
        size = len(s)

        def one(m: Any) -> str:
            nonlocal size
            piece = js_replace.expand(m, repl, s)
            size += len(piece) - (m.end() - m.start())
            budget.check_chars(size)
            return piece

        return rx.sub(one, s, timeout=timeout)

    import regex

    try:
        return budget.timed(attempt)
    except (IndexError, regex.error):  # a replacement naming a group the pattern lacks
        return None
