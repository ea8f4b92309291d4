"""Every task of a vault as Tasks-query records and columns, kept per index generation.

A `tasks_filter` query is run over all of the vault's tasks held column by column
(`service.obsidian.tasks_query.columns`); building them (tens of thousands of records on a large
vault) costs far more than a query over them, so they are built once per index generation and
status table, in the base order (status type, due date, priority, path, line), and shared by the
calls that follow; each task's heading is looked up for all of them only when a query reads
headings (otherwise for the page shown). The generation is read before the rows are: a batch
applied meanwhile only makes the next call build again. Kept per indexer (weakly: gone with it);
a vault without an indexer builds each time. With the plugin's "use filename as Scheduled date"
on, an undated task of a note named by a date is scheduled on it (`filename_dates.py`). Records
and columns are read-only to callers except for what they derive lazily (the same for everyone).
ACL filtering is the caller's, per call. Touches: index tables `tasks`, `notes`, `headings`;
`.obsidian/plugins/obsidian-tasks-plugin/data.json` (read-only).
"""

from __future__ import annotations

import bisect
import json
import sqlite3
import weakref
from typing import Any

from service import gcpause
from service.indexer.runner import VaultIndexer, indexer_of
from service.markdown import tasks as tk
from service.obsidian.task_status import StatusTable, task_format
from service.obsidian.tasks_query import Columns, Query, TaskRecord, order_sql
from service.obsidian.tasks_query.filename_dates import FilenameDates
from service.obsidian.tasks_query.links import NO_LINKS, Row, note_links
from service.tools.context import ToolContext
from service.tools.search_common import run
from service.tools.tasks.completion import status_names_of
from service.vault.settings_files import read_json

COLUMNS = (
    "n.path, t.line, t.status, t.text, t.due, t.scheduled, t.start, t.done, t.created, t.cancelled,"
    " t.priority, t.recurrence, t.tags, t.task_id, t.depends_on, t.indent, t.head"
)
_Key = tuple[int, tuple[tuple[str, str, str, str], ...]]
_CACHE: weakref.WeakKeyDictionary[VaultIndexer, tuple[_Key, Columns]] = weakref.WeakKeyDictionary()


def to_records(
    rows: list[tuple[Any, ...]],
    table: StatusTable,
    names: dict[str, str],
    dated: FilenameDates | None = None,
    global_filter: str = "",
    task_format: tk.Style | None = None,
) -> list[TaskRecord]:
    """Index rows as task records, with each status's type, name and next status (`names`: the
    plugin's status names, `status_names_of`); `dated`: the plugin's filename dates, which schedule
    a task with no scheduled, due or start date in a note whose name holds a date; `task_format`:
    the format their fields are read in (`service.obsidian.task_status.task_format`)."""
    if dated is not None and dated.enabled:
        days = {p: dated.scheduled(p) for p in {r[0] for r in rows}}
        rows = [r if r[4] or r[5] or r[6] else (*r[:5], days[r[0]], *r[6:]) for r in rows]
    kinds = {c: tk.status_type(table, c) for c in {r[2] for r in rows}}
    named = {c: names.get(c, "Unknown") for c in kinds}
    nexts = {c: table[c][1] if c in table else "x" for c in kinds}
    with gcpause.paused():  # tens of thousands of short-lived objects: no collections while they are built
        return [
            TaskRecord(
                p,
                line,
                st,
                kinds[st],
                text,
                due,
                sch,
                start,
                done,
                cre,
                can,
                pri,
                rec,
                tags,
                tid,
                dep or "[]",
                status_name=named[st],
                next_symbol=nexts[st],
                indent=ind,
                head=head,
                global_filter=global_filter,
                task_format=task_format,
            )  # fmt: skip
            for p, line, st, text, due, sch, start, done, cre, can, pri, rec, tags, tid, dep, ind, head in rows
        ]


def place_headings(records: list[TaskRecord], heads: list[tuple[str, int, str]]) -> None:
    """Each task's heading: the last heading above its line in its note (`heads` by path, line)."""
    by_path: dict[str, tuple[list[int], list[str]]] = {}
    for path, line, text in heads:
        lines, texts = by_path.setdefault(path, ([], []))
        lines.append(int(line))
        texts.append(str(text))
    for t in records:
        found = by_path.get(t.path)
        if found is not None:
            i = bisect.bisect_left(found[0], t.line)
            t.heading = found[1][i - 1] if i else None


async def index_task_format(ctx: ToolContext) -> tk.Style | None:
    """The format task fields are read in (the Tasks settings' `taskFormat`, None: both). A change
    of the setting made while the server runs (the watcher does not follow `.obsidian`) has the
    index read the vault's tasks again first (a reconcile: `service.indexer.task_format`), so an
    answer's dates and descriptions are read alike."""
    fmt = task_format(ctx.vault.paths.root)
    indexer = indexer_of(ctx.vault)
    if indexer is not None and indexer.ready and indexer.task_format != fmt:
        await indexer.reconcile()
    return fmt


def filename_dates_of(ctx: ToolContext) -> FilenameDates:
    """The Tasks plugin's "use filename as Scheduled date" settings of the vault."""
    return FilenameDates.of(read_json(ctx.vault.paths.root, tk.TASKS_PLUGIN_DATA))


def _key(ctx: ToolContext, table: StatusTable, global_filter: str) -> tuple[VaultIndexer | None, _Key | None]:
    indexer = indexer_of(ctx.vault)
    names = status_names_of(ctx)
    signature = tuple(sorted((c, str(kind), nxt, names.get(c, "")) for c, (kind, nxt) in table.items()))
    signature += tuple(sorted((c, "", "", name) for c, name in names.items() if c not in table))
    dated = filename_dates_of(ctx)
    fmt = str(task_format(ctx.vault.paths.root))
    signature += ((str(dated.enabled), dated.fmt, "\n".join(dated.folders), global_filter), (fmt, "", "", ""))
    return indexer, ((indexer.generation, signature) if indexer is not None else None)


def cached_columns(ctx: ToolContext, table: StatusTable, global_filter: str = "") -> Columns | None:
    """The vault's task columns when they are built for the index as it is now, else None."""
    indexer, key = _key(ctx, table, global_filter)
    hit = _CACHE.get(indexer) if indexer is not None else None
    return hit[1] if hit is not None and hit[0] == key else None


async def all_columns(ctx: ToolContext, table: StatusTable, global_filter: str = "") -> Columns:
    """The vault's tasks in the base order, column by column (shared: do not change them; the
    headings are placed when a query reads them, `place_all_headings`)."""
    if (found := cached_columns(ctx, table, global_filter)) is not None:
        return found
    indexer, key = _key(ctx, table, global_filter)
    order, order_params, _ = order_sql(Query(), {c: kind for c, (kind, _) in table.items()}, base=True)
    vault_id = ctx.vault.id

    def fetch(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
        return conn.execute(
            f"SELECT {COLUMNS} FROM tasks t JOIN notes n ON n.id = t.note_id WHERE t.vault_id = ? ORDER BY {order}",
            [vault_id, *order_params],
        ).fetchall()

    fmt = task_format(ctx.vault.paths.root)
    records = to_records(await run(ctx, fetch), table, status_names_of(ctx), filename_dates_of(ctx), global_filter, fmt)
    with gcpause.paused():
        columns = Columns(records)
    if indexer is not None and key is not None:
        _CACHE[indexer] = (key, columns)
    return columns


async def place_all_properties(ctx: ToolContext, columns: Columns) -> None:
    """Every task's note's properties, for a query whose expressions read them (once per set of
    columns; the index's `notes.properties`, the note's frontmatter)."""
    if columns.properties_placed:
        return
    vault_id = ctx.vault.id

    def fetch(conn: sqlite3.Connection) -> list[tuple[str, str]]:
        return conn.execute(
            "SELECT path, properties FROM notes WHERE vault_id = ? AND id IN"
            " (SELECT note_id FROM tasks WHERE vault_id = ?)",
            [vault_id, vault_id],
        ).fetchall()

    by_path: dict[str, dict[str, Any]] = {}
    for path, text in await run(ctx, fetch):
        found = json.loads(text or "{}")
        by_path[str(path)] = found if isinstance(found, dict) else {}
    for t in columns.records:
        t.properties = by_path.get(t.path, {})
    columns.properties_placed = True


async def place_all_links(ctx: ToolContext, columns: Columns) -> None:
    """Every task's note's links, for a query whose expressions read them (once per set of columns;
    the index's link rows, embeds left out as Obsidian's cache leaves them; `links.note_links`)."""
    if columns.links_placed:
        return
    vault_id = ctx.vault.id

    def fetch(conn: sqlite3.Connection) -> list[tuple[Any, ...]]:
        return conn.execute(
            "SELECT n.path, l.target_raw, l.target_path, l.subpath, l.alias, l.kind, l.line, l.property"
            " FROM links l JOIN notes n ON n.id = l.src_id WHERE l.vault_id = ? AND l.embed = 0"
            " AND l.src_id IN (SELECT note_id FROM tasks WHERE vault_id = ?) ORDER BY l.src_id, l.id",
            [vault_id, vault_id],
        ).fetchall()

    rows: dict[str, list[Row]] = {}
    for path, *row in await run(ctx, fetch):
        rows.setdefault(str(path), []).append(tuple(row))
    lines: dict[str, dict[int, str]] = {}
    for t in columns.records:
        lines.setdefault(t.path, {})[t.line] = t.original_markdown
    found = {path: note_links(path, found, lines.get(path, {})) for path, found in rows.items()}
    for t in columns.records:
        t.links = found.get(t.path, NO_LINKS)
    columns.links_placed = True


def link_targets(columns: Columns) -> set[str]:
    """The resolved targets of the links placed on `columns`' tasks (`place_all_links`)."""
    notes = {id(t.links): t.links for t in columns.records if t.links is not None}
    return {k.target_path for n in notes.values() for k in (*n.properties, *n.body) if k.target_path is not None}


async def place_all_headings(ctx: ToolContext, columns: Columns) -> None:
    """Every task's heading, for a query that reads them (once per set of columns)."""
    if columns.headings_placed:
        return
    vault_id = ctx.vault.id

    def fetch(conn: sqlite3.Connection) -> list[tuple[str, int, str]]:
        return conn.execute(
            "SELECT n.path, h.line, h.text FROM headings h JOIN notes n ON n.id = h.note_id WHERE n.vault_id = ?"
            " AND h.note_id IN (SELECT note_id FROM tasks WHERE vault_id = ?) ORDER BY n.path, h.line",
            [vault_id, vault_id],
        ).fetchall()

    place_headings(columns.records, await run(ctx, fetch))
    columns.headings_placed = True
