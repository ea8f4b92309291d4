"""The text of a note's embedded images, in the note's full-text row, so search finds the note by
what its images say.

A note that embeds an image or PDF whose text has been read (`ocr_files` + `ocr_cache`) has that
text after its own in `note_text.body`, behind `MARK`: a line holding only the record-separator
control character, which no note contains. `fts_words` and `fts_trigram` follow `note_text`
through its triggers, so search_text (and search_hybrid's text half) match those words and show
them in snippets. Everything that needs the note's own text only (search_regex's lines, the
semantic chunks) cuts the body at `MARK` with `own_text`.

The text joins when the note is indexed (`service.indexer.rows.upsert_note` asks `texts_for` for
a note that embeds such files)
and when a file's text is read or changes (`refresh_embedders`, for every note embedding it).
Plain SQL on a connection: runs inside the index writer's transaction. Touches: `note_text`
(write), `links`, `ocr_files`, `ocr_cache` (read).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from service.obsidian.attachments import kind_of
from service.retrieval.unspaced import words_text

MARK = "\n\x1e\n"
KINDS = ("image", "pdf")


def _read_by_ocr(path: str) -> bool:
    return kind_of(path) in KINDS and not path.lower().endswith(".svg")  # an SVG is text, not pixels


def own_text(body: str) -> str:
    """A note's own text: its indexed body without the text of its images."""
    return body.partition(MARK)[0]


def with_texts(body: str, texts: Sequence[str]) -> str:
    own = own_text(body)
    found = [t for t in texts if t.strip()]
    return own + MARK + "\n\n".join(found) if found else own


def embedded_targets(links: Iterable[tuple[Any, ...]]) -> list[str]:
    """The images and PDFs a note's link rows embed (`rows.Prepared.links`: target_path 2nd,
    embed 5th)."""
    return sorted({str(ln[1]) for ln in links if ln[4] and ln[1] and _read_by_ocr(str(ln[1]))})


def texts_for(conn: sqlite3.Connection, vault_id: str, targets: Sequence[str]) -> list[str]:
    """The read text of each of `targets` that has one, in path order."""
    if not targets:
        return []
    marks = ",".join("?" * len(targets))
    rows = conn.execute(
        "SELECT c.text FROM ocr_files f JOIN ocr_cache c ON c.digest = f.digest AND c.engine = f.engine"
        f" WHERE f.vault_id = ? AND f.error IS NULL AND f.path IN ({marks}) ORDER BY f.path",
        (vault_id, *targets),
    ).fetchall()
    return [str(r[0]) for r in rows]


def refresh_embedders(conn: sqlite3.Connection, vault_id: str, paths: Sequence[str]) -> int:
    """Give every note that embeds one of `paths` the current text of all its embedded files;
    returns how many notes changed."""
    if not paths:
        return 0
    changed = 0
    marks = ",".join("?" * len(paths))
    notes = conn.execute(
        f"SELECT DISTINCT src_id FROM links WHERE vault_id = ? AND embed = 1 AND target_path IN ({marks})",
        (vault_id, *paths),
    ).fetchall()
    for (note_id,) in notes:
        targets = [
            str(r[0])
            for r in conn.execute(
                "SELECT DISTINCT target_path FROM links WHERE src_id = ? AND embed = 1 AND target_path IS NOT NULL",
                (note_id,),
            )
            if _read_by_ocr(str(r[0]))
        ]
        row = conn.execute("SELECT body FROM note_text WHERE note_id = ?", (note_id,)).fetchone()
        if row is None:
            continue
        body = with_texts(str(row[0]), texts_for(conn, vault_id, targets))
        if body != row[0]:
            conn.execute(
                "UPDATE note_text SET body = ?, body_words = ? WHERE note_id = ?", (body, words_text(body), note_id)
            )
            changed += 1
    return changed
