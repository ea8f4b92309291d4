"""From a note's text to index rows, and the synchronous SQL that stores or removes them.

Everything here runs inside one writer transaction (`Database.run_write`) in the writer's
thread: `upsert_note` replaces every fact of one note (cascades clear the old ones, triggers
keep FTS in sync), `delete_note` removes it, `resolve_links` recomputes `links.target_path`
against the current set of vault files with Obsidian's rules (`service.graph.linkpath`).

One file never fails a batch: reading (`reading.py`), parsing (`prepare_each`) and storing
(`upsert_each`, each note under its own savepoint) turn one file's failure into a `FileIssue`
and go on with the others.
"""

from __future__ import annotations

import functools
import json
import sqlite3
import time
import traceback
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from service.dataview.fields import extract as dataview_facts
from service.graph.linkpath import PathSet, base_name, strip_md
from service.indexer.canvas_facts import canvas_facts, is_canvas
from service.indexer.caps import MAX_TAGS, kept_text, within_caps
from service.indexer.issues import FileIssue, issue
from service.indexer.reading import NoteInput as NoteInput
from service.indexer.reading import read_note_checked
from service.indexer.unresolved import UnresolvedTargets
from service.indexer.values import property_rows
from service.markdown.parse import frontmatter_tags, note_title, parse_note
from service.markdown.tasks import Style
from service.obsidian.excalidraw import PLUGIN_KEY, without_scene
from service.ocr import attached
from service.retrieval.unspaced import words_text
from service.vault.decoding import UTF8

# `json.dumps(v, ensure_ascii=False)` builds a new encoder per call (non-default options):
# ~1 µs each, 130k times for the 10k-note workload. One encoder, the same output.
_json = json.JSONEncoder(ensure_ascii=False).encode


class Prepared(NamedTuple):
    """Every row one note stores, computed outside the writer: plain tuples, so a batch pickles
    cheaply when it is prepared in a worker process (`service.indexer.parsepool`; a dataclass
    unpickles through Python-level `__setstate__`, holding the GIL the writer needs). Only the
    note id is missing; `upsert_note` adds it."""

    path: str
    mtime: float
    size: int
    etag: str
    note: tuple[Any, ...]  # the notes columns after vault_id and path
    title: str  # the full-text title (`search_title`); the notes row holds the note's title
    body: str
    tags: list[tuple[str, str, str]]  # (tag, tag_lower, source)
    properties: list[tuple[Any, ...]]  # (key, list_index, type, text, lower, num, json)
    links: list[tuple[Any, ...]]  # (target_raw, target_path, subpath, alias, embed, kind, line, property)
    headings: list[tuple[int, str, int]]  # (level, text, line)
    blocks: list[tuple[str, int]]  # (block_id, line)
    # (line, status, text, due, scheduled, start, done, priority, tags, created, cancelled, recurrence,
    # task_id, depends_on, indent, head)
    tasks: list[tuple[Any, ...]]
    dataview: str  # inline fields and list items as JSON ('' when the note has neither)
    capped: str = ""  # what the index left out of a note over the caps (`caps.within_caps`), '' for none


def prepare(item: NoteInput, paths: PathSet | None, task_format: Style | None = None) -> Prepared:
    """Parse a note and build its rows, resolving links against `paths` (CPU work; safe in any
    thread or process); task fields are read in `task_format` (the Tasks plugin settings', None:
    both; `service.obsidian.task_status.task_format`). A canvas gets its words and links only
    (`service.indexer.canvas_facts`); an Excalidraw drawing note its text without the scene block
    (`service.obsidian.excalidraw`)."""
    if is_canvas(item.path):
        return _prepare_canvas(item, paths)
    text = kept_text(item.text)  # past [limits] max_indexed_note_chars: not indexed
    p = parse_note(item.path, text, task_format)
    properties = [row for key, value in p.properties.items() for row in property_rows(key, value, _json)]
    properties, capped = within_caps(p, properties, (item.whole_chars, len(text)))
    body = text[p.body_start :]
    if PLUGIN_KEY in p.properties:  # an Excalidraw drawing: its words, not its scene
        body = without_scene(body)
    tag_rows: dict[tuple[str, str], tuple[str, str, str]] = {}
    for source, tags in (("frontmatter", frontmatter_tags(p.properties)[:MAX_TAGS]), ("inline", p.inline_tags)):
        for tag in tags:
            lower = tag.lower()
            tag_rows.setdefault((lower, source), (tag, lower, source))
    return Prepared(
        path=item.path,
        mtime=item.mtime,
        size=item.size,
        etag=item.etag,
        note=(
            _folder(item.path),
            _name(item.path),
            p.title,
            _json(p.aliases),
            _json(p.properties),
            _json(p.tags),
            p.frontmatter_error,
            item.mtime,
            item.ctime,
            item.size,
            item.etag,
            p.word_count,
            time.time(),
        ),
        title=p.search_title,
        body=body,
        tags=list(tag_rows.values()),
        properties=properties,
        links=[(link.target, _resolve(paths, link.target, item.path), *_link(link, link.property)) for link in p.links],
        headings=[(h.level, h.text, h.line) for h in p.headings],
        blocks=list(p.block_ids.items()),
        tasks=[
            (
                t.line,
                t.status,
                t.text,
                t.due,
                t.scheduled,
                t.start,
                t.done,
                t.priority,
                _json(list(t.tags)),
                t.created,
                t.cancelled,
                t.recurrence,
                t.task_id,
                _json(list(t.depends_on)),
                t.indent,
                t.head,
            )
            for t in p.tasks
        ],
        dataview=dataview_facts(text, p.body_start, p.items),
        capped=capped,
    )


def _prepare_canvas(item: NoteInput, paths: PathSet | None) -> Prepared:
    facts = canvas_facts(item.path, item.text)
    return Prepared(
        path=item.path,
        mtime=item.mtime,
        size=item.size,
        etag=item.etag,
        note=(_folder(item.path), _name(item.path), note_title(item.path), "[]", "{}", "[]", None)
        + (item.mtime, item.ctime, item.size, item.etag, len(facts.body.split()), time.time()),
        title=facts.title,
        body=facts.body,
        tags=[],
        properties=[],
        links=[(ln.target, _resolve(paths, ln.target, item.path), *_link(ln, None)) for ln in facts.links],
        headings=[],
        blocks=[],
        tasks=[],
        dataview="",
    )


def _link(ln: Any, prop: str | None) -> tuple[Any, ...]:
    """A link row's columns after target_raw and target_path; `prop`: the property it is in (a note's)."""
    return (ln.subpath, ln.alias, int(ln.embed), ln.kind, ln.line, prop)


def prepare_each(
    items: Iterable[NoteInput], paths: PathSet | None, task_format: Style | None = None
) -> tuple[list[Prepared], list[FileIssue]]:
    """`prepare` each note; one that fails is left out as a `FileIssue` (the others go on)."""
    prepared: list[Prepared] = []
    issues: list[FileIssue] = []
    for item in items:
        try:
            prepared.append(prep := prepare(item, paths, task_format))
        except Exception as exc:  # noqa: BLE001 - any parser bug: one note is skipped, not the batch
            issues.append(issue(item.path, "parse_failed", _why(exc)))
            continue
        if prep.capped:
            issues.append(issue(item.path, "capped", prep.capped))
    return prepared, issues


def _why(exc: BaseException) -> str:
    return "".join(traceback.format_exception_only(exc)).strip()


def read_batch(
    root: Path, batch: Sequence[str], known: dict[str, str], paths: PathSet | None, task_format: Style | None = None
) -> tuple[list[Prepared], list[tuple[str, float, int]], list[FileIssue]]:
    """Read and prepare a batch of notes. A note whose content hash equals `known[path]` is only
    "touched" (its new mtime and size are recorded without re-parsing it). Files that could not be
    read or parsed come back as `FileIssue`s, and so do notes read with a fallback encoding."""
    items: list[NoteInput] = []
    touch: list[tuple[str, float, int]] = []
    issues: list[FileIssue] = []
    for rel in batch:
        item = read_note_checked(root, rel)
        if item is None:
            continue
        if isinstance(item, FileIssue):
            issues.append(item)
            continue
        if item.encoding != UTF8:
            issues.append(issue(rel, "encoding", item.encoding))
        if known.get(rel) == item.etag:
            touch.append((rel, item.mtime, item.size))
        else:
            items.append(item)
    prepared, failed = prepare_each(items, paths, task_format)
    return prepared, touch, issues + failed


def _folder(path: str) -> str:
    return path.rpartition("/")[0]


def _name(path: str) -> str:
    base = path.rsplit("/", 1)[-1]
    return (base[:-3] if base.lower().endswith(".md") else base).lower()


# Rows derived from a note's text, replaced on every re-index (the note_text delete trigger
# also removes its full-text entries).
_DERIVED = (
    ("note_text", "note_id"),
    ("note_tags", "note_id"),
    ("note_properties", "note_id"),
    ("links", "src_id"),
    ("headings", "note_id"),
    ("blocks", "note_id"),
    ("tasks", "note_id"),
    ("dataview_facts", "note_id"),
)


def upsert_note(conn: sqlite3.Connection, vault_id: str, prep: Prepared) -> int:
    """Store one note's rows; a note that embeds images or PDFs whose text was read gets that text
    after its own in its full-text row (`service.ocr.attached`; one lookup, only for such notes)."""
    note_id = _note_row(conn, vault_id, prep)
    for sql, values in zip(_INSERTS, _derived_rows(conn, vault_id, note_id, prep), strict=True):
        if values:
            conn.executemany(sql, values)
    return note_id


def _note_row(conn: sqlite3.Connection, vault_id: str, prep: Prepared, *, new: bool = False) -> int:
    """The note's `notes` row, inserted or updated, with its derived rows cleared; its id. `new`:
    the path is known not to be in the index (inserted without looking: the UNIQUE constraint
    refuses it otherwise)."""
    # An edit keeps the note's id (chunks and vectors will key on it): update the row in place
    # and replace its derived rows; only a new path inserts.
    row = (
        None
        if new
        else conn.execute("SELECT id FROM notes WHERE vault_id = ? AND path = ?", (vault_id, prep.path)).fetchone()
    )
    if row is not None:
        note_id = int(row[0])
        conn.execute(
            "UPDATE notes SET folder = ?, name = ?, title = ?, aliases = ?, properties = ?, tags = ?,"
            " frontmatter_error = ?, mtime = ?, ctime = ?, size = ?, etag = ?, word_count = ?, indexed_at = ?"
            " WHERE id = ?",
            (*prep.note, note_id),
        )
        for table, column in _DERIVED:
            conn.execute(f"DELETE FROM {table} WHERE {column} = ?", (note_id,))
    else:
        cur = conn.execute(
            "INSERT INTO notes(vault_id, path, folder, name, title, aliases, properties, tags, frontmatter_error,"
            " mtime, ctime, size, etag, word_count, indexed_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (vault_id, prep.path, *prep.note),
        )
        note_id = int(cur.lastrowid or 0)
    return note_id


# The derived rows' inserts, in the order `_derived_rows` returns their values.
_INSERTS = (
    "INSERT INTO note_text(note_id, title, body, title_words, body_words) VALUES (?,?,?,?,?)",
    "INSERT INTO note_tags(note_id, vault_id, tag, tag_lower, source) VALUES (?,?,?,?,?)",
    "INSERT INTO note_properties(note_id, vault_id, key, list_index, value_type, value_text, value_lower,"
    " value_num, value_json) VALUES (?,?,?,?,?,?,?,?,?)",
    "INSERT INTO links(vault_id, src_id, target_raw, target_path, subpath, alias, embed, kind, line, property)"
    " VALUES (?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO headings(note_id, level, text, line) VALUES (?,?,?,?)",
    "INSERT INTO blocks(note_id, block_id, line) VALUES (?,?,?)",
    "INSERT INTO tasks(note_id, vault_id, line, status, text, due, scheduled, start, done, priority, tags,"
    " created, cancelled, recurrence, task_id, depends_on, indent, head) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO dataview_facts(note_id, facts) VALUES (?,?)",
)


def _derived_rows(conn: sqlite3.Connection, vault_id: str, note_id: int, prep: Prepared) -> list[list[tuple[Any, ...]]]:
    """The values of each of `_INSERTS` for one note."""
    body = prep.body
    if targets := attached.embedded_targets(prep.links):
        body = attached.with_texts(body, attached.texts_for(conn, vault_id, targets))
    return [
        [(note_id, prep.title, body, words_text(prep.title), words_text(body))],  # (retrieval.unspaced)
        [(note_id, vault_id, *t) for t in prep.tags],
        [(note_id, vault_id, *r) for r in prep.properties],
        [(vault_id, note_id, *r) for r in prep.links],
        [(note_id, *h) for h in prep.headings],
        [(note_id, *b) for b in prep.blocks],
        [(note_id, vault_id, *t) for t in prep.tasks],
        [(note_id, prep.dataview)] if prep.dataview else [],
    ]


# Failures that belong to one note's data (a value SQLite cannot take): that note is rolled back
# alone. Anything else (a full disk, a locked or corrupt database) fails the batch as before.
@functools.cache
def _note_errors() -> tuple[type[Exception], ...]:
    """The classes of those failures: the stdlib's and the SQLite driver's in use (sqlean's do not
    subclass the stdlib's, so its UNIQUE violation went uncaught before). Imported here, not at
    the top: parse workers import this module and never store."""
    from service.storage.db import driver

    names = ("IntegrityError", "InterfaceError", "DataError")
    return (ValueError, OverflowError, *{getattr(module, n) for module in (sqlite3, driver()) for n in names})


def upsert_each(conn: sqlite3.Connection, vault_id: str, prepared: Iterable[Prepared]) -> list[FileIssue]:
    """`upsert_note` each note under its own savepoint: one whose rows SQLite refuses is rolled
    back alone and returned as a `FileIssue`; the others are stored."""
    issues: list[FileIssue] = []
    for prep in prepared:
        conn.execute("SAVEPOINT note")
        try:
            upsert_note(conn, vault_id, prep)
        except _note_errors() as exc:
            conn.execute("ROLLBACK TO note")
            issues.append(issue(prep.path, "store_failed", _why(exc)))
        conn.execute("RELEASE note")
    return issues


def upsert_batch(
    conn: sqlite3.Connection, vault_id: str, prepared: Sequence[Prepared], *, new: bool = False
) -> list[FileIssue]:
    """What `upsert_each` stores, with each derived table's rows of the whole batch in one
    `executemany` (a bulk load's writer spent a third of its time on the per-note statements:
    0.167 -> 0.111 CPU-ms a note at 10k). Each table gets its rows in the same order as note by
    note. A batch in which SQLite refuses a row is rolled back and stored by `upsert_each`, which
    leaves out the refused note alone. `new`: no note of the batch is in the index (a cold load),
    so none is looked up first (~10 % of the writer); a hint only: a note that is there after all
    fails the batch's insert, and the batch is stored note by note."""
    conn.execute("SAVEPOINT batch")
    try:
        tables: list[list[tuple[Any, ...]]] = [[] for _ in _INSERTS]
        for prep in prepared:
            note_id = _note_row(conn, vault_id, prep, new=new)
            for rows_of_table, values in zip(tables, _derived_rows(conn, vault_id, note_id, prep), strict=True):
                rows_of_table += values
        for sql, values in zip(_INSERTS, tables, strict=True):
            if values:
                conn.executemany(sql, values)
    except _note_errors():
        conn.execute("ROLLBACK TO batch")
        conn.execute("RELEASE batch")
        return upsert_each(conn, vault_id, prepared)
    conn.execute("RELEASE batch")
    return []


def with_links_resolved(prepared: list[Prepared], paths: PathSet) -> list[Prepared]:
    """`prepared` as `prepare(item, paths)` would have built it, from rows built with no `paths`
    (whose links are all unresolved): only the links' target paths differ between the two."""
    return [
        prep._replace(links=[(ln[0], paths.resolve(ln[0], prep.path), *ln[2:]) for ln in prep.links])
        if prep.links
        else prep
        for prep in prepared
    ]


def _resolve(paths: PathSet | None, raw: str, source: str) -> str | None:
    if paths is None:
        return None
    return paths.resolve(raw, source)


def delete_note(conn: sqlite3.Connection, vault_id: str, path: str) -> None:
    conn.execute("DELETE FROM notes WHERE vault_id = ? AND path = ?", (vault_id, path))


# Above this many candidate targets, re-resolving every link beats a long IN list.
MAX_STALE = 5000


def resolve_links(
    conn: sqlite3.Connection,
    vault_id: str,
    paths: PathSet,
    *,
    only_unresolved: bool = False,
    stale: Iterable[str] = (),
    added: Iterable[str] = (),
    unresolved: UnresolvedTargets | None = None,
) -> int:
    """Recompute target_path for the vault's links (all, or unresolved + those pointing at `stale`
    + those an `added` file may take over).

    A new file can be a closer match for a link that already resolves, e.g. one beside the
    linking note. Every resolution rule requires the file's name to match the link's, so only
    links pointing at a file with the same name as an added one can change (found through the
    target index, not a scan of every link); unresolved ones by their targets' names, from
    `unresolved` (read afresh when not given), which gets the targets left unresolved."""
    sql = (
        "SELECT l.id, l.target_raw, n.path, l.target_path FROM links l JOIN notes n ON n.id = l.src_id"
        " WHERE l.vault_id = ?"
    )
    added = set(added)
    rivals = {p for a in added for p in paths.by_name(strip_md(base_name(a))) if p not in added}
    stale = sorted(set(stale) | rivals)
    # An unresolved link can only start resolving to an added file, and only to one with its
    # name (the same rule as `PathSet.by_name`): the others are not resolved again (thousands
    # of broken links in a big vault, once per new note, were most of a create's index update).
    narrow = only_unresolved and len(stale) <= MAX_STALE
    added_keys = {base_name(a).lower() for a in added}
    found: list[tuple[Any, ...]] = []
    if not narrow:
        found = conn.execute(sql, (vault_id,)).fetchall()
    else:
        # Two lookups, each on its index: one query OR-ing the two made SQLite walk every link
        # of the vault (65k on the 10k workload: 50-150 ms per round that added a note).
        if added_keys:
            unresolved = unresolved or UnresolvedTargets(vault_id)
            found += unresolved.links(conn, f"{sql} AND l.target_path IS NULL", added_keys)
        if stale:
            known = f"{sql} AND l.target_path IN ({','.join('?' * len(stale))})"
            found += conn.execute(known, (vault_id, *stale)).fetchall()
        if not found:
            return 0  # nothing added, nothing stale: no link can change
    updates = []
    for link_id, raw, src, current in found:
        if narrow and current is None:
            key = base_name(raw.strip()).lower()
            if key not in added_keys and key + ".md" not in added_keys:
                continue
        target = paths.resolve(raw, src)
        if target != current:
            updates.append((target, link_id))
            if target is None and unresolved is not None:
                unresolved.add((raw,))
    conn.executemany("UPDATE links SET target_path = ? WHERE id = ?", updates)
    return len(updates)
