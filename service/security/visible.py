"""Index counts as one caller may see them: totals over the notes it may read.

`index_status` reports vault-wide row counts (notes, links, tags, tasks, headings). For a
caller no rule restricts, those are the truth; for anyone else they would reveal how much the
ACL hides (two notes more than list_notes shows, a tag nobody visible carries). `visible_counts`
recomputes the same figures over readable notes only: one grouped query per table, the read
decision asked once per note. A link to a note the caller may not read counts as unresolved,
as the graph tools show it. Cost is linear in the vault (~tens of ms at 10k notes) and is
paid only by restricted callers.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Protocol

from service.obsidian.canvas import is_canvas_path
from service.obsidian.task_status import open_sql, tasks_sql, vault_statuses
from service.security.scopes import narrowing
from service.types import OpenGuard, PathGuard, Principal

if TYPE_CHECKING:
    from service.storage.db import Database
    from service.vault.vault import Vault


class _Services(Protocol):
    @property
    def guard(self) -> PathGuard: ...

    @property
    def db(self) -> Database: ...


class Caller(Protocol):
    """What these counts need of a tool call (`service.tools.context.ToolContext` is one)."""

    @property
    def principal(self) -> Principal: ...

    @property
    def vault(self) -> Vault: ...

    @property
    def services(self) -> _Services: ...

    def can_read(self, rel: str) -> bool: ...


def unrestricted(ctx: Caller) -> bool:
    """No path rule or read-narrowed scope can deny this caller a visible note in this vault."""
    acl_of = getattr(ctx.services.guard, "acl_of", None)
    if acl_of is None:
        return isinstance(ctx.services.guard, OpenGuard)  # the open guard denies nothing; any other may
    return not acl_of(ctx.vault.id).restricted and narrowing(ctx.principal.scopes, "read:vault") is None


async def visible_counts(ctx: Caller) -> dict[str, int]:
    """The keys of `VaultIndexer.counts()`, counted over the notes `ctx.can_read` admits."""
    rows = await ctx.services.db.fetchall("SELECT id, path FROM notes WHERE vault_id = ?", (ctx.vault.id,))
    readable = {int(note_id) for note_id, path in rows if ctx.can_read(str(path))}
    canvases = {int(note_id) for note_id, path in rows if is_canvas_path(str(path))}  # their links and words count
    vault_id = ctx.vault.id
    seen: dict[str, bool] = {}
    open_clause, closed = open_sql(vault_statuses(ctx.vault.paths.root))  # open as list_tasks reads it
    are_tasks, only = tasks_sql(ctx.vault)  # the global filter's items, when it has one

    def target_readable(path: str) -> bool:
        found = seen.get(path)
        if found is None:
            found = seen[path] = ctx.can_read(path)
        return found

    def count(conn: sqlite3.Connection) -> dict[str, int]:
        def grouped(sql: str, *params: str) -> list[tuple[int, ...]]:
            return [tuple(r) for r in conn.execute(sql, (*params, vault_id)).fetchall() if int(r[0]) in readable]

        # A link to a note the caller may not read counts as unresolved, as every graph tool shows it.
        link_total = link_unresolved = 0
        sql = "SELECT src_id, target_path, COUNT(*) FROM links WHERE vault_id = ? GROUP BY src_id, target_path"
        for src_id, target, n in conn.execute(sql, (vault_id,)):
            if int(src_id) not in readable:
                continue
            link_total += int(n)
            if target is None or not target_readable(str(target)):
                link_unresolved += int(n)
        tasks = grouped(
            f"SELECT note_id, COUNT(*), SUM({open_clause}) FROM tasks WHERE {are_tasks} AND vault_id = ?"
            " GROUP BY note_id",
            *closed,
            *only,
        )
        headings = grouped(
            "SELECT h.note_id, COUNT(*) FROM headings h JOIN notes n ON n.id = h.note_id"
            " WHERE n.vault_id = ? GROUP BY h.note_id"
        )
        tags = {str(r[1]) for r in grouped("SELECT note_id, tag_lower FROM note_tags WHERE vault_id = ?")}
        return {
            "notes": len(readable - canvases),
            "links": link_total,
            "unresolved_links": link_unresolved,
            "tags": len(tags),
            "tasks": _total(tasks, 1),
            "open_tasks": _total(tasks, 2),
            "headings": _total(headings, 1),
        }

    return await ctx.services.db.run_read(count)


def _total(rows: list[tuple[int, ...]], column: int) -> int:
    return sum(int(r[column] or 0) for r in rows)
