"""Rank fusion for hybrid search: one complete ranking from the BM25 text hits and the notes
matching tags and property filters.

- text only: BM25 scores normalised to 0..1 (the best hit is 1); the text query's two passes
  (service/retrieval/text.py) give the text hits, `match` telling which pass found each;
- tags/properties only: every matching note, newest first, score 1;
- `full_text` with metadata: the text ranking, restricted to the notes the metadata matches;
- hybrid: reciprocal rank fusion (k = 60) of both lists (their union): notes found by both rank
  first; scores normalised to 0..1.
`rank` also says whether its text ranking holds every note the query's words find in any pass
(`complete`): the hybrid modes' fusion with the vector ranking (`retrieval.hybrid.fuse`) then
gives a note outside it text score 0 rather than the ranking's lowest.
Every candidate is filtered by `can_read` before any fusion, as in the other engines. `snippets`
gives a page's excerpts: FTS5 snippets where the text query matched, else the note's lead.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Literal

from service.retrieval import properties as props
from service.retrieval import tags as tag_q
from service.retrieval import text

RRF_K = 60


def rank(
    conn: sqlite3.Connection,
    vault_id: str,
    *,
    match_expr: str | None,
    wanted: list[str],
    filters: list[props.Filter],
    folders: list[str],
    match: Literal["all", "any"],
    mode: str,
    can_read: Callable[[str], bool],
    relaxed_expr: str | None = None,
    want: int = 0,
) -> tuple[list[text.TextHit], bool]:
    """Every readable hit, best first: `match_expr` is the FTS5 expression of the text query
    (None: no text), `relaxed_expr` its relaxed form, run when the strict one finds fewer than
    `want` notes; `wanted` normalised tags; mode full_text or hybrid (see the module doc). And
    whether the hits hold every note the text query finds in any pass (`complete`)."""
    text_hits = (
        text.two_pass_all(conn, vault_id, match_expr, relaxed_expr, folders, "relevance", can_read, want)
        if match_expr is not None
        else None
    )
    meta: list[text.TextHit] | None = None
    if wanted or filters:
        ids: set[int] | None = None
        rows: dict[int, text.TextHit] = {}
        if wanted:
            for h in tag_q.search(conn, vault_id, wanted, match, folders, "mtime", can_read):
                rows[h.note_id] = text.TextHit(h.note_id, h.path, h.title, h.mtime, 1.0)
            ids = set(rows)
        if filters:
            found = props.search(conn, vault_id, filters, folders, "mtime", can_read, match)
            for r in found:
                rows.setdefault(r.note_id, text.TextHit(r.note_id, r.path, r.title, r.mtime, 1.0))
            fids = {r.note_id for r in found}
            ids = fids if ids is None else (ids & fids if match == "all" else ids | fids)
        meta = sorted((rows[i] for i in ids or set()), key=lambda h: (-h.mtime, h.path))
    if text_hits is None:
        return meta or [], True
    whole = complete(text_hits, relaxed_expr, want)
    if meta is None:
        return normalised(text_hits), whole
    if mode == "full_text":
        keep = {h.note_id for h in meta}
        return normalised([h for h in text_hits if h.note_id in keep]), whole
    return rrf(text_hits, meta), whole


def complete(hits: list[text.TextHit], relaxed_expr: str | None, want: int) -> bool:
    """Whether `hits` (`text.two_pass_all`'s) hold every note the query's words find in any
    pass: the query has no relaxed form, or the relaxed pass ran (the strict one found fewer
    than `want`). Not when the strict pass found enough: a note outside may hold some words."""
    return relaxed_expr is None or sum(h.match == "all" for h in hits) < want


def match_groups(
    conn: sqlite3.Connection, vault_id: str, groups: list[list[props.Filter]], can_read: Callable[[str], bool]
) -> list[text.TextHit]:
    """Notes matching every group (a group matches when any of its filters does), newest first."""
    ids: set[int] | None = None
    rows: dict[int, props.NoteRow] = {}
    for group in groups:
        found = props.search(conn, vault_id, group, [], "mtime", can_read, "any")
        rows.update({r.note_id: r for r in found})
        gids = {r.note_id for r in found}
        ids = gids if ids is None else ids & gids
    keep = ids or set()
    return sorted(
        (text.TextHit(i, rows[i].path, rows[i].title, rows[i].mtime, 1.0) for i in keep),
        key=lambda h: (-h.mtime, h.path),
    )


def normalised(hits: list[text.TextHit]) -> list[text.TextHit]:
    top = max((h.score for h in hits), default=0.0)
    if top <= 0:
        return [replace(h, score=1.0) for h in hits]
    return [replace(h, score=h.score / top) for h in hits]


def rrf(*lists: list[text.TextHit]) -> list[text.TextHit]:
    scores: dict[int, float] = {}
    first: dict[int, text.TextHit] = {}
    for ranking in lists:
        for position, h in enumerate(ranking):
            scores[h.note_id] = scores.get(h.note_id, 0.0) + 1.0 / (RRF_K + position + 1)
            first.setdefault(h.note_id, h)
    top = max(scores.values(), default=1.0)
    fused = [replace(first[i], score=scores[i] / top) for i in scores]
    fused.sort(key=lambda h: (-h.score, h.path))
    return fused


def snippets(conn: sqlite3.Connection, match_expr: str | None, ids: Sequence[int]) -> dict[int, str]:
    """Excerpts of the notes `ids`: the FTS5 snippet where `match_expr` matched, else the lead."""
    out: dict[int, str] = {}
    if match_expr:
        out = {k: v.text for k, v in text.snippets(conn, match_expr, ids).items()}
    rest = [i for i in ids if i not in out]
    if rest:
        marks = ",".join("?" * len(rest))
        for nid, body in conn.execute(
            f"SELECT note_id, substr(body, 1, 400) FROM note_text WHERE note_id IN ({marks})", rest
        ):
            out[int(nid)] = lead(body)
    return out


def lead(body: str) -> str:
    """The first lines of text (headings' '#' dropped), ~200 characters."""
    words = " ".join(line.lstrip("# ").strip() for line in body.split("\n") if line.strip())
    return words[:200] + ("…" if len(words) > 200 else "")
