"""Snippets of long notes, cut by FTS5 from a window of the text around the query's words.

FTS5's `snippet()` tokenises the whole column it quotes from to map its chosen tokens back to
characters: 5.4 ms for a 249 KB note, 1.9 ms for 82 KB, against 0.1–0.2 ms for a typical 2–4 KB
one. For a note whose body is over `LONG_NOTE` bytes, `WindowSnippets` instead works on the
body's UTF-8 bytes as SQLite stores them (no decoding of the whole text):
1. stems the expression's words with the index's own tokenizer (an FTS5 table of its own);
2. finds where those stems start words (byte substring search, ASCII in any case, other
   letters in lower case, capitalised or in capitals; a stem is searched without its last
   letter, so "happi" finds "happy" and "hope" finds "hoping");
3. takes the place where the most distinct words occur closest together, earliest first (how
   FTS5 scores its windows), and the text `BEFORE` / `AFTER` bytes around it, cut at white space
   (two words whose first starts are apart: the later one's starts, and the other word only near
   them, since a window holds both only where they meet);
4. runs `snippet()` on that window with the same tokenizer, over the expression's words joined by
   OR (the window holds a part of the note, so a conjunction need not match it whole), the
   windows of a page's long notes in one statement.
The ellipses FTS5 adds at the ends of a column are restored where the window cut the note.
A note where this finds no window (a word found only under another spelling, such as one with
diacritics, or a tokenizer that lower-cases differently) returns None: the caller falls back to
the full `snippet()`. Each thread keeps its own in-memory database for the windows.
"""

from __future__ import annotations

import functools
import re
import sqlite3
import threading
from collections.abc import Sequence

from service.storage.db import driver

LONG_NOTE = 16_000  # bytes of body from which a window is cheaper than the whole note
BEFORE = 400  # bytes of text kept before the best place
AFTER = 1_200  # and after it
SPAN = 160  # bytes over which distinct words count together (~16 tokens)
MAX_PLACES = 64  # occurrences looked at per word
RETRIES = 4  # windows tried at a phrase's places when the best place's window holds no match
ELLIPSIS = "…"
TOKENIZER = "porter unicode61 remove_diacritics 2"  # as `fts_words` (migrations/0002_index.sql)

_UNIT = re.compile(r'(title : )?"((?:[^"]|"")*)"(\*?)')
_SPACE = re.compile(rb"[ \t\r\n]")
_WORD = re.compile(r"[^\W_]+")  # the runs of letters and digits unicode61 makes tokens of
# After a phrase's word: the rest of that word, then what separates it from the next (in the
# lowered UTF-8 text; bytes over 0x7f count as letters, as `_starts` counts them).
_GAP = rb"[a-z0-9\x80-\xff]*[^a-z0-9\x80-\xff]+"


def units(expr: str) -> list[str]:
    """The quoted words and phrases of an FTS5 expression made by `service.retrieval.query`,
    with their column filter and prefix mark."""
    return [m.group(0) for m in _UNIT.finditer(expr)]


class WindowSnippets:
    """`snippet()` over a window of a long note (see the module text)."""

    def __init__(self, open_mark: str, close_mark: str, tokens: int) -> None:
        self._marks = (open_mark, close_mark)
        self._tokens = tokens
        self._local = threading.local()

    def _db(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            # The index's SQLite and tokenizer; transactions explicit (`_cut` rolls its row back).
            conn = driver().connect(":memory:", check_same_thread=True, isolation_level=None)
            conn.execute(f"CREATE VIRTUAL TABLE w USING fts5(title, body, tokenize='{TOKENIZER}')")
            conn.execute("CREATE VIRTUAL TABLE v USING fts5vocab(w, 'instance')")
            self._local.conn = conn
            self._local.stems = {}
        return conn

    def probes(self, expr: str) -> list[tuple[str, ...]]:
        """What to look for in the text, one entry per distinct stem of the expression: the stem
        less its last letter when it is longer than three, and, for a word with letters the
        tokenizer folds ("zürich" is stemmed "zurich"), the word as written, lower-cased, less
        its last letter too (remembered per thread by expression)."""
        return self._analysed(expr)[0]

    def phrases(self, expr: str) -> list[tuple[str, ...]]:
        """The expression's phrases of two words or more, each as its words' stems less their last
        letter (as `probes`), in order; phrases with letters the tokenizer folds are left out."""
        return self._analysed(expr)[1]

    def _analysed(self, expr: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
        conn = self._db()
        memo: dict[str, tuple[list[tuple[str, ...]], list[tuple[str, ...]]]] = self._local.stems
        found = memo.get(expr)
        if found is None:
            per_unit = [[w.lower() for w in _WORD.findall(m.group(2))] for m in _UNIT.finditer(expr)]
            words = [w for unit in per_unit for w in unit]
            forms: dict[str, set[str]] = {}
            stems: dict[int, str] = {}
            with conn:
                conn.executemany("INSERT INTO w(rowid, title, body) VALUES (?, '', ?)", list(enumerate(words, start=1)))
                for doc, stem in conn.execute("SELECT doc, term FROM v ORDER BY doc, offset"):
                    word = words[doc - 1]
                    stems.setdefault(doc, stem)
                    forms.setdefault(stem, set()).update(
                        _shorter(f) for f in ((stem, word) if not word.isascii() else (stem,))
                    )
                conn.execute("DELETE FROM w")
            phrases: list[tuple[str, ...]] = []
            doc = 1
            for unit in per_unit:
                docs = range(doc, doc + len(unit))
                doc += len(unit)
                if len(unit) > 1 and all(d in stems and unit[d - docs[0]].isascii() for d in docs):
                    phrases.append(tuple(_shorter(stems[d]) for d in docs))
            found = ([tuple(sorted(forms[stem])) for stem in sorted(forms)], phrases)
            if len(memo) >= 256:
                memo.clear()
            memo[expr] = found
        return found

    def snippet(self, expr: str, title: str, body: bytes) -> str | None:
        """The marked snippet of the note (`body` in UTF-8) for `expr`, or None (use the full one)."""
        return self.snippets(expr, [(0, title, body)]).get(0)

    def snippets(self, expr: str, notes: Sequence[tuple[int, str, bytes]]) -> dict[int, str]:
        """The marked snippets of the notes (key, title, body in UTF-8) for `expr`, by key; a note
        left out gets the full `snippet()`.

        The best places' windows are cut together: one transaction, one insert statement and one
        `snippet()` statement for the page's long notes, not four statements a note (the
        statements' own cost was a third of a cut). A row's snippet depends on its own text and
        matches only, so each note's quote is the one a cut of its window alone gives.

        A phrase's words can meet first elsewhere than in the phrase ("risk" and "session" near
        each other, "risks session" further on): the best place's window then holds no match. The
        first places where the phrase's words follow each other are tried next (`RETRIES` windows
        at most) before giving up: the full `snippet()` of a 150-250 KB note costs 3-7 ms."""
        probes = self.probes(expr)
        if not probes:
            return {}
        placed: list[tuple[int, str, bytes, tuple[int, int]]] = []
        for key, title, body in notes:
            best = best_place(body, probes)
            if best is not None:
                placed.append((key, title, body, window(body, best)))
        cut = self._cut(expr, [(title, body, span) for _, title, body, span in placed])
        out: dict[int, str] = {}
        for (key, title, body, span), raw in zip(placed, cut, strict=True):
            if raw is None:
                raw = self._retried(expr, title, body, span)
            if raw is not None:
                out[key] = raw
        return out

    def whole(self, expr: str, notes: Sequence[tuple[int, str, str]], *, quote: bool = True) -> dict[int, str]:
        """`snippet()` of whole notes (key, title, body) that match `expr`, cut from a copy of
        them here rather than from the index: what the index's `snippet()` gives for those rows
        (same tokenizer, same text, the same expression), for an expression whose prefix words
        the index would expand to every word it holds once a row (`snippets` of "a*" over ten
        rows: 6 s at 100k notes). `quote=False`: only which of them match (values empty)."""
        if not notes:
            return {}
        conn = self._db()
        o, c = self._marks
        shown = f"snippet(w, -1, ?, ?, ?, {self._tokens})" if quote else "''"
        args = (o, c, ELLIPSIS, expr) if quote else (expr,)
        conn.execute("BEGIN")
        try:
            conn.executemany("INSERT INTO w(rowid, title, body) VALUES (?, ?, ?)", notes)
            return {
                int(r[0]): str(r[1] or "") for r in conn.execute(f"SELECT rowid, {shown} FROM w WHERE w MATCH ?", args)
            }
        finally:
            conn.execute("ROLLBACK")

    def _retried(self, expr: str, title: str, body: bytes, tried: tuple[int, int]) -> str | None:
        """The snippet from a window at one of the phrases' own places (see `snippets`)."""
        low = body.lower()
        retries = RETRIES
        for phrase in self.phrases(expr):
            for at in phrase_places(low, phrase, retries):
                span = window(body, at)
                if span == tried:
                    continue
                retries -= 1
                if (raw := self._cut(expr, [(title, body, span)])[0]) is not None:
                    return raw
                tried = span
            if retries <= 0:
                break
        return None

    def _cut(self, expr: str, spans: Sequence[tuple[str, bytes, tuple[int, int]]]) -> list[str | None]:
        """`snippet()` of each (title, body, window): its marked text, None where the window holds
        no match."""
        if not spans:
            return []
        conn = self._db()
        either = " OR ".join(units(expr))
        o, c = self._marks
        sql = (
            f"SELECT rowid, snippet(w, -1, ?, ?, ?, {self._tokens}), snippet(w, 0, ?, ?, ?, {self._tokens})"
            " FROM w WHERE w MATCH ?"
        )
        rows = [
            (i, title, body[start:end].decode("utf-8", errors="ignore"))
            for i, (title, body, (start, end)) in enumerate(spans, 1)
        ]
        # Rolled back rather than deleted: FTS5 tokenises a row again to delete it, and the
        # rollback only drops the pages written (a long note's cut ~0.20 -> ~0.10 ms in process).
        conn.execute("BEGIN")
        try:
            conn.executemany("INSERT INTO w(rowid, title, body) VALUES (?, ?, ?)", rows)
            found = {
                r[0]: (str(r[1] or ""), str(r[2] or ""))
                for r in conn.execute(sql, (o, c, ELLIPSIS, o, c, ELLIPSIS, either))
            }
        finally:
            conn.execute("ROLLBACK")
        out: list[str | None] = []
        for i, (_, body, (start, end)) in enumerate(spans, 1):
            if i not in found:
                out.append(None)
                continue
            text, in_title = found[i]
            if text != in_title:  # quoted from the body: restore the ends the window cut
                if start > 0 and not text.startswith(ELLIPSIS):
                    text = ELLIPSIS + text
                if end < len(body) and not text.endswith(ELLIPSIS):
                    text += ELLIPSIS
            out.append(text)
        return out


def _shorter(form: str) -> str:
    return form[:-1] if len(form) > 3 else form


def _starts(
    low: bytes, text: bytes, probe: tuple[str, ...], limit: int, start: int = 0, end: int | None = None
) -> list[int]:
    """Up to `limit` byte offsets from `start` (and before `end`), in order, where one of the
    forms of `probe` starts a word: an ASCII form in any case (`low` is `text` with ASCII letters
    lowered), another written in lower case, capitalised or in capitals. Each form's search stops
    at its `limit`-th start (a long note is not read to its end for one more)."""
    pairs: list[tuple[bytes, bytes]] = []
    for form in probe:
        if form.isascii():
            pairs.append((low, form.encode()))
        else:
            cases = dict.fromkeys((form, form[:1].upper() + form[1:], form.upper()))
            pairs += [(text, case.encode()) for case in cases]
    found: list[int] = []
    for hay, needle in pairs:
        stop = len(hay) if end is None else end - 1 + len(needle)  # a start before `end`
        at = hay.find(needle, start, stop)
        seen = 0
        while at >= 0:
            if at == 0 or not (hay[at - 1] >= 0x80 or chr(hay[at - 1]).isalnum()):
                found.append(at)
                seen += 1
                if seen == limit:
                    break
            at = hay.find(needle, at + 1, stop)
    found.sort()
    return found[:limit]


def best_place(text: bytes, probes: Sequence[tuple[str, ...]], low: bytes | None = None) -> int | None:
    """The earliest byte offset from which the most distinct probes start words within SPAN
    (`low`: `text.lower()`, when the caller has it already)."""
    if low is None:
        low = text.lower()
    firsts = [_starts(low, text, p, 1) for p in probes]
    present = [f[0] for f in firsts if f]
    if not present:
        return None
    if len(present) == 1 or (len(present) == len(probes) and max(present) - min(present) < SPAN):
        return min(present)  # nothing can do better than the first place holding every word found
    # A probe's starts are searched from its first one: nothing before it needs reading again.
    starts: dict[int, list[int]] = {}
    if len(probes) == 2 and len(present) == 2:
        # Two words (the common case) whose first starts are apart: a window holds both only
        # where they meet, so the later word's starts are read to the end and the other word is
        # looked for only within SPAN of each of them. Where it is never there, no window holds
        # more than one word and the earlier first start wins, without reading the note again
        # for that word's later starts (its starts beyond the 64 places below are looked at
        # too, so none found means none among those places either).
        late = 0 if firsts[0][0] > firsts[1][0] else 1
        early = 1 - late
        starts[late] = _starts(low, text, probes[late], MAX_PLACES, firsts[late][0])
        near = (_starts(low, text, probes[early], 1, max(0, at - SPAN + 1), at + SPAN) for at in starts[late])
        if not any(near):
            return firsts[early][0]
    for k, p in enumerate(probes):
        if firsts[k] and k not in starts:
            starts[k] = _starts(low, text, p, MAX_PLACES, firsts[k][0])
    places = sorted((at, k) for k, found in starts.items() for at in found)
    best, best_count = places[0][0], 0
    j = 0
    counts: dict[int, int] = {}
    for at, k in places:  # a window opening at each place
        while j < len(places) and places[j][0] < at + SPAN:
            counts[places[j][1]] = counts.get(places[j][1], 0) + 1
            j += 1
        if len(counts) > best_count:
            best, best_count = at, len(counts)
        counts[k] -= 1
        if not counts[k]:
            del counts[k]
    return best


def window(text: bytes, at: int) -> tuple[int, int]:
    """[start, end) in bytes around `at`, cut at white space (never inside a character or a word)."""
    start = max(0, at - BEFORE)
    if start > 0:
        m = _SPACE.search(text, start, at)
        start = m.end() if m else at
    end = min(len(text), at + AFTER)
    if end < len(text):
        cut = max(text.rfind(b" ", at, end), text.rfind(b"\n", at, end))
        end = cut if cut > at else end
    return start, end


def phrase_places(low: bytes, phrase: tuple[str, ...], limit: int) -> list[int]:
    """Up to `limit` byte offsets in `low` (ASCII letters lowered) where the forms of `phrase`
    start consecutive words, in order."""
    first = phrase[0].encode()
    rest = _phrase_rest(phrase[1:])
    out: list[int] = []
    at = low.find(first)
    while at >= 0 and len(out) < limit:
        if (at == 0 or not (low[at - 1] >= 0x80 or chr(low[at - 1]).isalnum())) and rest.match(low, at + len(first)):
            out.append(at)
        at = low.find(first, at + 1)
    return out


@functools.lru_cache(maxsize=256)
def _phrase_rest(forms: tuple[str, ...]) -> re.Pattern[bytes]:
    return re.compile(b"".join(_GAP + re.escape(f.encode()) for f in forms))
