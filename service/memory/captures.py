"""Quick captures: the durable queue (`capture_queue` in the state database) and the inbox note.

A capture is committed to the queue first — the state database lives in the data folder, in WAL
mode, so a row that was committed survives a restart and a kill -9 — and then listed in the
vault's inbox note (`[memory] inbox`) as one list item, on one line whatever the text holds (its
text escaped: `inert`, `escape`), whose block id is the capture's id:

    - Call the plumber about the boiler #home [captured:: 2026-11-28 06:40] ^cap-3fa9c01b2e

`in_inbox` records that the note lists it; a capture whose listing was cut short by a crash is
listed by the next capture in that vault (the listing checks the note for the block id, so an
item is never listed twice: a line ending with it). Processing marks the item with Dataview inline fields and leaves
the text where a person wrote or read it:

    - Call the plumber … [status:: filed] [filed_to:: [[Home#^cap-3fa9c01b2e]]] ^cap-3fa9c01b2e

Pure functions render and mark items; `CaptureQueue` holds the rows.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import secrets
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from service.memory.model import escape, one_line
from service.storage.db import Database

Status = Literal["pending", "filed", "discarded"]
_COLUMNS = (
    "id, text, tags, source, caller, created_at, inbox, in_inbox, status, processed_at, filed_as, filed_to, filed_block"
)
_BLOCK_AT_END = re.compile(r"\s\^[A-Za-z0-9-]+\s*$")
_OPENS_BLOCK = re.compile(
    r"#{1,6}(?:\s|$)|[>|]|[-*+](?:\s|$)|\[(?!\[)|`{3}|~{3}|[-=_*](?:\s*[-=_*])*\s*$"
)  # heading, quote, table row, list item, task box, fence, thematic break or setext underline
_ORDERED = re.compile(r"\d{1,9}(?=[.)](?:\s|$))")  # an ordered list item's number


@dataclass(frozen=True, slots=True)
class Capture:
    id: str
    text: str
    tags: tuple[str, ...]
    source: str | None
    caller: str
    created_at: float
    inbox: str
    in_inbox: bool
    status: Status
    processed_at: float | None = None
    filed_as: str | None = None
    filed_to: str | None = None
    filed_block: str | None = None


def new_id() -> str:
    return "cap-" + secrets.token_hex(5)


def _row(row: Sequence[Any]) -> Capture:
    return Capture(
        id=row[0],
        text=row[1],
        tags=tuple(json.loads(row[2])),
        source=row[3],
        caller=row[4],
        created_at=row[5],
        inbox=row[6],
        in_inbox=bool(row[7]),
        status=row[8],
        processed_at=row[9],
        filed_as=row[10],
        filed_to=row[11],
        filed_block=row[12],
    )


def stamp(at: float) -> str:
    return dt.datetime.fromtimestamp(at, dt.UTC).strftime("%Y-%m-%d %H:%M")


def inert(line: str) -> str:
    """`line` (its leading and trailing spaces dropped) as text that opens no block of its own —
    a heading, a list item or task box, a quote, a table row, a code fence, a thematic break or a
    setext underline: a backslash before the mark that would (Markdown shows the mark as written)."""
    text = line.strip()
    ordered = _ORDERED.match(text)
    if ordered is not None:
        return text[: ordered.end()] + "\\" + text[ordered.end() :]
    return "\\" + text if _OPENS_BLOCK.match(text) else text


def item_lines(capture: Capture) -> str:
    """The inbox list item of one capture, on one line: its text (line breaks become spaces, `::`
    and a leading block mark are escaped, so it is one item whose fields and block id are its
    own), its tags, where it came from, when, and its block id."""
    extra = [f"#{tag}" for tag in capture.tags]
    if capture.source:
        extra.append(f"[source:: {capture.source}]")
    extra.append(f"[captured:: {stamp(capture.created_at)}]")
    return "- " + " ".join([inert(escape(one_line(capture.text))), *extra, f"^{capture.id}"])


def paragraph(text: str) -> str:
    """`text` as one paragraph (the block a block id at its end names): its lines, blank ones
    dropped, each made `inert`."""
    return "\n".join(inert(line) for line in text.split("\n") if line.strip())


def list_in(content: str, captures: Sequence[Capture]) -> str:
    """`content` with an item for each capture it does not list yet (appended at the end)."""
    missing = [c for c in captures if f"^{c.id}" not in content or not _listed(content, c.id)]
    if not missing:
        return content
    body = content.rstrip("\n")
    # The items form one list: a blank line only where the text above is not already a list item.
    last = body.rsplit("\n", 1)[-1] if body else ""
    in_list = last.startswith(("- ", "* ", "  ", "\t"))  # an item, or a further line of one
    gap = "\n" if in_list else "\n\n"
    return (body + gap if body else "") + "\n".join(item_lines(c) for c in missing) + "\n"


def _listed(content: str, capture_id: str) -> bool:
    """Whether `content` holds the item of `capture_id`: a line ending with its block id (the id
    within another item's text is not it)."""
    return re.search(rf"\s\^{re.escape(capture_id)}[ \t]*$", content, re.MULTILINE) is not None


def mark_item(content: str, capture_id: str, fields: str) -> tuple[str, bool]:
    """The item of `capture_id` with `fields` (inline fields) set before its block id; False when
    the note no longer holds the item (a person removed it): nothing to mark."""
    lines = content.split("\n")
    suffix = f"^{capture_id}"
    for i, line in enumerate(lines):
        stripped = line.rstrip()
        if stripped.endswith(" " + suffix) and _BLOCK_AT_END.search(stripped):
            if "[status:: " in stripped:
                return content, True  # marked already (a retry after a crash)
            lines[i] = f"{stripped[: -len(suffix)].rstrip()} {fields} {suffix}"
            return "\n".join(lines), True
    return content, False


def unmarked(content: str) -> list[str]:
    """The ids of the inbox items that carry no `[status:: …]` (not processed, as the note reads)."""
    out: list[str] = []
    for line in content.split("\n"):
        stripped = line.rstrip()
        found = _BLOCK_AT_END.search(stripped)
        if found and found.group().strip().startswith("^cap-") and "[status:: " not in stripped:
            out.append(found.group().strip()[1:])
    return out


class CaptureQueue:
    """The `capture_queue` rows of every vault (state database)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def add(
        self, vault_id: str, text: str, tags: Sequence[str], source: str | None, caller: str, inbox: str
    ) -> Capture:
        capture = Capture(new_id(), text, tuple(tags), source, caller, time.time(), inbox, False, "pending")

        def insert(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO capture_queue(id, vault_id, text, tags, source, caller, created_at, inbox)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (capture.id, vault_id, text, json.dumps(list(tags)), source, caller, capture.created_at, inbox),
            )

        await self.db.run_write(insert)
        return capture

    async def unlisted(self, vault_id: str, inbox: str) -> list[Capture]:
        rows = await self.db.fetchall(
            f"SELECT {_COLUMNS} FROM capture_queue WHERE vault_id = ? AND in_inbox = 0 AND inbox = ? ORDER BY n",
            (vault_id, inbox),
        )
        return [_row(r) for r in rows]

    async def listed(self, vault_id: str, ids: Sequence[str]) -> None:
        def update(conn: sqlite3.Connection) -> None:
            conn.executemany(
                "UPDATE capture_queue SET in_inbox = 1 WHERE vault_id = ? AND id = ?", [(vault_id, i) for i in ids]
            )

        if ids:
            await self.db.run_write(update)

    async def get(self, vault_id: str, capture_id: str) -> Capture | None:
        row = await self.db.fetchone(
            f"SELECT {_COLUMNS} FROM capture_queue WHERE vault_id = ? AND id = ?", (vault_id, capture_id)
        )
        return _row(row) if row is not None else None

    async def processed_of(self, vault_id: str, ids: Sequence[str]) -> list[Capture]:
        """The captures among `ids` that are not pending."""
        marks = ",".join("?" * len(ids))
        rows = await self.db.fetchall(
            f"SELECT {_COLUMNS} FROM capture_queue WHERE vault_id = ? AND status != 'pending' AND id IN ({marks})",
            (vault_id, *ids),
        )
        return [_row(r) for r in rows]

    async def reopen(self, vault_id: str, capture_id: str, processed_at: float | None) -> None:
        """A processed capture pending again (its processing was undone)."""
        await self.db.run_write(
            lambda conn: conn.execute(
                "UPDATE capture_queue SET status = 'pending', processed_at = NULL, processed_by = NULL,"
                " filed_as = NULL, filed_to = NULL, filed_block = NULL"
                " WHERE vault_id = ? AND id = ? AND processed_at IS ?",
                (vault_id, capture_id, processed_at),
            )
        )

    async def page(self, vault_id: str, status: Status | None, offset: int, limit: int) -> tuple[list[Capture], int]:
        where = "vault_id = ?" + (" AND status = ?" if status else "")
        params: tuple[Any, ...] = (vault_id, status) if status else (vault_id,)

        def read(conn: sqlite3.Connection) -> tuple[list[Capture], int]:
            total = conn.execute(f"SELECT count(*) FROM capture_queue WHERE {where}", params).fetchone()[0]
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM capture_queue WHERE {where} ORDER BY n LIMIT ? OFFSET ?",
                (*params, limit, offset),
            ).fetchall()
            return [_row(r) for r in rows], int(total)

        return await self.db.run_read(read)

    async def finish(
        self,
        vault_id: str,
        capture_id: str,
        status: Status,
        by: str,
        filed_as: str | None = None,
        filed_to: str | None = None,
        filed_block: str | None = None,
    ) -> bool:
        """Mark a pending capture processed; False when it was not pending any more."""

        def update(conn: sqlite3.Connection) -> bool:
            cur = conn.execute(
                "UPDATE capture_queue SET status = ?, processed_at = ?, processed_by = ?, filed_as = ?,"
                " filed_to = ?, filed_block = ? WHERE vault_id = ? AND id = ? AND status = 'pending'",
                (status, time.time(), by, filed_as, filed_to, filed_block, vault_id, capture_id),
            )
            return cur.rowcount == 1

        return await self.db.run_write(update)
