"""Full-text search over `fts_words` (porter unicode61): BM25 ranking, snippets, highlights.

A search is two cheap statements: the ordered candidate list (ids, paths, scores; no text),
filtered by `can_read` in Python, then FTS5 `snippet()` for the page's rows only. The first
statement asks for just enough rows (page end + 1) and widens only when read permission has
thrown candidates away, so a page of a common word does not materialise every match. A
relevance page over the whole vault is ranked on the word index alone and joined with its
notes afterwards (`_top_by_score`): the same page, without reading every match's note row.
Titles weigh 5x the body in BM25.

Two passes (`two_pass_page`, `two_pass_all`) for a query with a relaxed form
(service/retrieval/query.py): the strict expression first; when it finds fewer readable notes
than the page size (`limit`, whatever the offset, so every page of one query agrees), the
relaxed (OR) expression adds the notes it finds, after the strict ones and without repeating
them, each in the requested order. Hits carry `match`: "all" (strict) or "any" (relaxed).
Guarantees: unreadable notes never reach a page, a count
or a snippet; an expression FTS5 still rejects becomes `QuerySyntaxError`.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from service.errors import QuerySyntaxError
from service.retrieval import bm25_bounds
from service.retrieval.unspaced import shown
from service.retrieval.windows import LONG_NOTE, WindowSnippets, units
from service.storage.db import DbOperationalError, schema_changed

Sort = Literal["relevance", "mtime", "path"]
Match = Literal["all", "any"]
_ORDER: dict[str, str] = {
    "relevance": "score DESC, n.path",
    "mtime": "n.mtime DESC, n.path",
    "path": "n.path",
}
_BEST = (
    "SELECT rowid, -bm25(fts_words, 5.0, 1.0) AS score FROM fts_words WHERE fts_words MATCH ?"
    " ORDER BY score DESC LIMIT ?"
)
_OPEN, _CLOSE = "\x02", "\x03"
_MARKS = re.compile(f"([{_OPEN}{_CLOSE}])")
SNIPPET_TOKENS = 16
_WINDOWS = WindowSnippets(_OPEN, _CLOSE, SNIPPET_TOKENS)
# Long notes cut together (`WindowSnippets.snippets`): a page of 200 long notes would otherwise
# hold every body at once (~30 MB for 150 KB each).
_CUT_BATCH = 16


@dataclass(frozen=True, slots=True)
class TextHit:
    note_id: int
    path: str
    title: str
    mtime: float
    score: float
    match: Match = "all"  # "any": found by the relaxed pass only
    # The file's bytes as the ranking read them (None: not read); not part of what a hit is.
    size: int | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Snippet:
    text: str
    highlights: list[tuple[int, int]]


def folder_clause(folders: Sequence[str], column: str = "n.path") -> tuple[str, list[Any]]:
    """SQL restricting `column` to notes under any of `folders` ('' = whole vault).

    A half-open range on the path ('F/' <= path < 'F0', '0' being the character after '/')
    uses the (vault_id, path) index and needs no LIKE escaping."""
    if not folders or "" in folders:
        return "1", []
    parts: list[str] = []
    params: list[Any] = []
    for folder in folders:
        base = folder.rstrip("/")
        parts.append(f"({column} >= ? AND {column} < ?)")
        params += [base + "/", base + "0"]
    return "(" + " OR ".join(parts) + ")", params


def _candidates(
    conn: sqlite3.Connection, vault_id: str, match: str, folders: Sequence[str], sort: Sort, limit: int | None
) -> list[TextHit]:
    where, params = folder_clause(folders)
    if sort == "relevance" and limit is not None and not params:
        top = _top_by_score(conn, vault_id, match, limit)
        if top is not None:
            return top
    sql = (
        "SELECT n.id, n.path, n.title, n.mtime, -bm25(fts_words, 5.0, 1.0) AS score, n.size"
        " FROM fts_words JOIN notes n ON n.id = fts_words.rowid"
        f" WHERE fts_words MATCH ? AND n.vault_id = ? AND {where}"
        f" ORDER BY {_ORDER[sort]}" + (" LIMIT ?" if limit is not None else "")
    )
    args: list[Any] = [match, vault_id, *params]
    if limit is not None:
        args.append(limit)
    try:
        rows = conn.execute(sql, args).fetchall()
    except DbOperationalError as exc:
        # The translator only emits quoted strings, so this is a defence in depth.
        raise _rejected(exc) from None
    return [TextHit(r[0], r[1], r[2], r[3], r[4], size=r[5]) for r in rows]


def _rejected(exc: Exception) -> Exception:
    """What a statement FTS5 refused raises: a QuerySyntaxError, or the error itself when the
    schema changed under it (`Database.run_read` runs the read again)."""
    if schema_changed(exc):
        return exc
    return QuerySyntaxError("the search engine rejected the query", details={"reason": str(exc)})


def _top_by_score(conn: sqlite3.Connection, vault_id: str, match: str, limit: int) -> list[TextHit] | None:
    """The first `limit` hits in relevance order, ranked on the word index alone and only then
    joined with their notes (None: not decidable so, the caller runs the joined statement).

    The joined statement reads the notes row of every match before its sort; at 100k notes
    "project plan" matches 5,379 notes, and those row reads were as much as the BM25 scores.
    Asked for more rows than needed, the word index's order decides the page: a note outside
    the rows it returned scores at most the last row's score, so every row scoring above that
    is placed exactly, ties (broken by path) included. When too few of those remain (ties at
    the cut, or rows of another vault), None. An OR of quoted words scores only the notes that
    can reach the page when BM25's bounds allow (service/retrieval/bm25_bounds.py): the same
    rows and scores, at 100k notes ~4 ms of CPU instead of ~11 for most two-word queries."""
    ask = limit * 2 + 8

    def best(expr: str) -> list[tuple[int, float]]:
        return conn.execute(_BEST, (expr, ask)).fetchall()

    try:
        # An OR of words (hybrid's text half) scores only the notes that can reach the page.
        bounded = bm25_bounds.top_rows(conn, match, ask, limit, best)
    except DbOperationalError:
        bounded = None  # the statement below says why
    if bounded is not None:
        ranked, complete = bounded, False
    else:
        try:
            ranked = best(match)
        except DbOperationalError as exc:
            raise _rejected(exc) from None
        complete = len(ranked) < ask
        if not complete:  # more may match: only the rows scoring above the last are placed for certain
            cut = ranked[-1][1]
            ranked = [r for r in ranked if r[1] > cut]
    if not ranked:
        return [] if complete else None
    scores: dict[int, float] = dict(ranked)
    marks = ",".join("?" * len(scores))
    # `+vault_id`: looked up by rowid. Without statistics the planner preferred an index on
    # vault_id for two ids or more and walked every note of the vault (0.7 ms at 10k notes).
    rows = conn.execute(
        f"SELECT id, path, title, mtime, size FROM notes WHERE id IN ({marks}) AND +vault_id = ?", [*scores, vault_id]
    ).fetchall()
    hits = sorted(
        (TextHit(r[0], r[1], r[2], r[3], scores[r[0]], size=r[4]) for r in rows), key=lambda h: (-h.score, h.path)
    )
    if len(hits) < limit and not complete:
        return None
    return hits[:limit]


def all_hits(
    conn: sqlite3.Connection,
    vault_id: str,
    match: str,
    folders: Sequence[str],
    sort: Sort,
    can_read: Callable[[str], bool],
) -> list[TextHit]:
    """Every readable match, ordered (for totals and fusion)."""
    return [h for h in _candidates(conn, vault_id, match, folders, sort, None) if can_read(h.path)]


def page(
    conn: sqlite3.Connection,
    vault_id: str,
    match: str,
    folders: Sequence[str],
    sort: Sort,
    can_read: Callable[[str], bool],
    offset: int,
    limit: int,
) -> tuple[list[TextHit], bool]:
    """Readable hits [offset, offset+limit) and whether more exist."""
    want = offset + limit + 1
    fetch = want
    while True:
        rows = _candidates(conn, vault_id, match, folders, sort, fetch)
        readable = [h for h in rows if can_read(h.path)]
        if len(readable) >= want or len(rows) < fetch:
            return readable[offset : offset + limit], len(readable) > offset + limit
        fetch *= 4


def _extra(strict: list[TextHit], relaxed: list[TextHit]) -> list[TextHit]:
    seen = {h.note_id for h in strict}
    return strict + [replace(h, match="any") for h in relaxed if h.note_id not in seen]


def two_pass_page(
    conn: sqlite3.Connection,
    vault_id: str,
    strict: str,
    relaxed: str | None,
    folders: Sequence[str],
    sort: Sort,
    can_read: Callable[[str], bool],
    offset: int,
    limit: int,
) -> tuple[list[TextHit], bool, Match]:
    """Like `page`, with the relaxed pass when the strict one fills less than a page; also
    returns which pass answered ("any" when the relaxed one added to the list)."""
    if relaxed is not None:
        first, more = page(conn, vault_id, strict, folders, sort, can_read, 0, limit)
        if not more and len(first) < limit:
            # The relaxed expression matches every strict hit too: asking it for offset+limit+1
            # readable notes leaves enough once the strict ones are taken out.
            rest, _ = page(conn, vault_id, relaxed, folders, sort, can_read, 0, offset + limit + 1)
            combined = _extra(first, rest)
            answered: Match = "any" if len(combined) > len(first) else "all"
            return combined[offset : offset + limit], len(combined) > offset + limit, answered
        if offset == 0:  # the strict page, just asked for: not asked again
            return first, more, "all"
    hits, more = page(conn, vault_id, strict, folders, sort, can_read, offset, limit)
    return hits, more, "all"


def two_pass_all(
    conn: sqlite3.Connection,
    vault_id: str,
    strict: str,
    relaxed: str | None,
    folders: Sequence[str],
    sort: Sort,
    can_read: Callable[[str], bool],
    limit: int,
) -> list[TextHit]:
    """Like `all_hits`, with the relaxed pass when the strict one finds fewer than `limit`."""
    hits = all_hits(conn, vault_id, strict, folders, sort, can_read)
    if relaxed is None or len(hits) >= limit:
        return hits
    return _extra(hits, all_hits(conn, vault_id, relaxed, folders, sort, can_read))


def snippets(
    conn: sqlite3.Connection,
    match: str,
    ids: Sequence[int],
    *,
    matching: bool = False,
    sizes: Mapping[int, int | None] | None = None,
) -> dict[int, Snippet]:
    """FTS5 snippets (best column, ~16 tokens) with highlight spans for the given rows that
    match; long notes are quoted from a window of their text (service/retrieval/windows.py).
    `matching`: the caller found every id with `match` itself (a page of its hits), so the long
    notes are read without asking the word index again which of them match. `sizes`: the notes'
    sizes as the caller read them (`TextHit.size`), so which notes are long is not asked again."""
    if not ids:
        return {}
    if any(u.endswith("*") for u in units(match)):
        return {nid: split_marks(raw) for nid, raw in _copied(conn, match, ids, matching).items()}
    out = {nid: split_marks(raw) for nid, raw in _windowed(conn, match, ids, matching, sizes).items()}
    rest = [i for i in ids if i not in out]
    if not rest:
        return out
    marks = ",".join("?" * len(rest))
    sql = (
        f"SELECT rowid, snippet(fts_words, -1, '{_OPEN}', '{_CLOSE}', '…', {SNIPPET_TOKENS})"
        f" FROM fts_words WHERE fts_words MATCH ? AND rowid IN ({marks})"
    )
    for rowid, raw in conn.execute(sql, [match, *rest]):
        out[int(rowid)] = split_marks(raw or "")
    return out


def _windowed(
    conn: sqlite3.Connection,
    match: str,
    ids: Sequence[int],
    matching: bool = False,
    sizes: Mapping[int, int | None] | None = None,
) -> dict[int, str]:
    """Marked snippets of the matching notes over `LONG_NOTE` bytes that a window could quote
    (the file's size bounds the body's, so short notes are never read). Two statements: most
    pages hold no long note, and the size lookup alone skips the match; one joined statement
    made a page's snippets cost 1.5x at p50 (`bench_snippets`). With `matching` (every id known
    to match) the long notes' text is read by id: the match's lookup of each id in the word
    index cost a third of reading ten long notes. With every id's size in `sizes` (read with
    the page), no size lookup: a page without a long note asks nothing here."""
    if sizes is not None and all(i in sizes for i in ids):
        long_ids = [i for i in ids if (sizes[i] or 0) > LONG_NOTE]  # a NULL size is not long, as in SQL
    else:
        marks = ",".join("?" * len(ids))
        long_ids = [
            r[0] for r in conn.execute(f"SELECT id FROM notes WHERE id IN ({marks}) AND size > ?", [*ids, LONG_NOTE])
        ]
    if not long_ids:
        return {}
    marks = ",".join("?" * len(long_ids))
    if matching:
        sql = f"SELECT note_id, title, CAST(body AS BLOB) FROM note_words WHERE note_id IN ({marks})"
        args: list[Any] = long_ids
    else:
        sql = (
            "SELECT t.note_id, t.title, CAST(t.body AS BLOB) FROM fts_words"
            " JOIN note_words t ON t.note_id = fts_words.rowid"
            f" WHERE fts_words MATCH ? AND fts_words.rowid IN ({marks})"
        )
        args = [match, *long_ids]
    out: dict[int, str] = {}
    notes: list[tuple[int, str, bytes]] = []
    for nid, title, body in conn.execute(sql, args):
        if len(body) > LONG_NOTE:
            notes.append((int(nid), title, body))
        if len(notes) == _CUT_BATCH:
            out.update(_WINDOWS.snippets(match, notes))
            notes = []
    if notes:
        out.update(_WINDOWS.snippets(match, notes))
    return out


def _copied(conn: sqlite3.Connection, match: str, ids: Sequence[int], matching: bool) -> dict[int, str]:
    """Marked snippets for an expression with a prefix word, cut from copies of the notes
    (`WindowSnippets.whole`; long notes from a window as `_windowed` cuts them, `_CUT_BATCH` at a
    time): the index's `snippet()` expands "a*" to every word it holds starting so, once for each
    row asked (6-26 s for a page at 100k notes where ranking the page took 1-6 s), a copy of ten
    notes only to their own words."""
    marks = ",".join("?" * len(ids))
    out: dict[int, str] = {}
    whole: list[tuple[int, str, str]] = []  # cut from the whole note
    batch: list[tuple[int, str, str, bytes]] = []  # long notes, cut from a window
    sql = f"SELECT note_id, title, body FROM note_words WHERE note_id IN ({marks})"  # as indexed (`unspaced`)
    for nid, title, body in conn.execute(sql, ids):
        data = body.encode()
        if len(data) <= LONG_NOTE:
            whole.append((int(nid), title, body))
            continue
        batch.append((int(nid), title, body, data))
        if len(batch) == _CUT_BATCH:
            whole += _cut_long(match, batch, matching, out)
            batch = []
    whole += _cut_long(match, batch, matching, out)
    out.update(_WINDOWS.whole(match, whole))
    return out


def _cut_long(
    match: str, notes: list[tuple[int, str, str, bytes]], matching: bool, out: dict[int, str]
) -> list[tuple[int, str, str]]:
    """The window snippets of long notes that match, into `out`; the matching notes where no
    window was found (to be cut whole). Without `matching`, which of them match is asked of
    their whole text once (unquoted)."""
    if not notes:
        return []
    if not matching:
        found = _WINDOWS.whole(match, [(k, t, body) for k, t, body, _ in notes], quote=False)
        notes = [n for n in notes if n[0] in found]
    cut = _WINDOWS.snippets(match, [(k, t, data) for k, t, _, data in notes])
    out.update(cut)
    return [(k, t, body) for k, t, body, _ in notes if k not in cut]


def split_marks(raw: str) -> Snippet:
    """Strip the highlight markers, keeping their positions as [start, end) spans (an opening
    marker sets the start, a closing one ends a span there); tabs and line breaks become spaces,
    the word joiners around the characters of unspaced scripts go (`unspaced.shown`).
    Split at the markers rather than walked a character at a time: the ten snippets of a page
    took ~0.17 ms one character at a time, a tenth of a rare-word query's server time."""
    raw = shown(raw)  # the text as the index holds it: its word joiners out (`unspaced`)
    if _OPEN not in raw and _CLOSE not in raw:
        return Snippet(_blanked(raw), [])
    text: list[str] = []
    spans: list[tuple[int, int]] = []
    start = 0
    length = 0
    for i, part in enumerate(_MARKS.split(raw)):
        if i % 2 == 0:  # text between markers (split keeps the markers at odd places)
            text.append(part)
            length += len(part)
        elif part == _OPEN:
            start = length
        else:
            spans.append((start, length))
    return Snippet(_blanked("".join(text)), spans)


def _blanked(s: str) -> str:
    """Tabs and line breaks as spaces, one character for one (the spans hold); `str.replace` is
    C, `str.translate` with a table looks every character up in a dict (5 µs a snippet)."""
    return s.replace("\r", " ").replace("\n", " ").replace("\t", " ")
