"""The experiential tier: agents' low-trust notes in `experiential.db`, never in the vault.

An agent records what worked, what failed or a preference it saw, with the tool and context it
was about and its confidence. These rows live in their own database file in the data folder
(`<data>/experiential.db`) on a migration chain of their own (`migrations/experiential/`,
applied when the store starts), so they can be inspected, trimmed or deleted without touching
the vault or the other records. An experience reaches the vault only by `promote_experience`,
which a human always confirms; the row then records the entity, note and block it became.

`ExperienceStore` is a component of the app. Its database (two connections, two threads, ~1 MB
of page caches and ~1 MB of heap) is opened and migrated by the first use, not at start: most
sessions record no experience, and a settled 10k-note server's memory is held to ~100 MB (issue
39). Concurrent first uses open it once; stop closes it if it was opened, and a use after stop
is `server_stopping`.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from service.errors import IoError, ServerStopping
from service.storage.db import Database, DbError, DbOperationalError
from service.storage.migrate import migrate, migrations_dir

Kind = Literal["worked", "failed", "preference", "note"]
FILE_NAME = "experiential.db"
_COLUMNS = (
    "id, kind, text, tool, context, confidence, tags, caller, created_at,"
    " promoted_at, promoted_to, promoted_path, promoted_block"
)


def experiential_migrations() -> Path:
    """The experiential chain: a folder of its own beside the main chain (and in the wheel)."""
    return migrations_dir() / "experiential"


@dataclass(frozen=True, slots=True)
class Experience:
    id: str
    kind: Kind
    text: str
    tool: str | None
    context: str | None
    confidence: float
    tags: tuple[str, ...]
    caller: str
    created_at: float
    promoted_at: float | None = None
    promoted_to: str | None = None
    promoted_path: str | None = None
    promoted_block: str | None = None


def _row(row: Sequence[Any]) -> Experience:
    return Experience(
        id=row[0],
        kind=row[1],
        text=row[2],
        tool=row[3],
        context=row[4],
        confidence=row[5],
        tags=tuple(json.loads(row[6])),
        caller=row[7],
        created_at=row[8],
        promoted_at=row[9],
        promoted_to=row[10],
        promoted_path=row[11],
        promoted_block=row[12],
    )


class ExperienceStore:
    """`experiential.db` in the data folder: one writer, one reader."""

    name = "experiences"

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / FILE_NAME
        self.db = Database(self.path, readers=1, writer_cache_kib=1000, reader_cache_kib=1000)
        self._open = False
        self._stopped = False
        self._opening = asyncio.Lock()

    async def start(self) -> None:
        self._stopped = False  # opened by the first use (above)

    async def stop(self) -> None:
        async with self._opening:  # an open under way finishes first, then is closed
            self._stopped = True
            if self._open:
                await self.db.close()
                self._open = False

    async def opened(self) -> Database:
        """The database, opened and migrated by the first caller; the others wait for it. A call
        the stop overtook is `server_stopping`; a file that is no SQLite database (or a link to one
        elsewhere, whose writes would land outside the data folder) is `io_error`, left as it is."""
        if not self._open:
            async with self._opening:
                if self._stopped:
                    raise ServerStopping("the server is stopping: the experiences store is closed")
                if not self._open:
                    await self._open_file()
                    self._open = True
        return self.db

    async def _open_file(self) -> None:
        if self.path.is_symlink():
            raise IoError(
                f"the data folder's {FILE_NAME} is a symbolic link: the server writes its experiences only in the "
                "data folder itself",
                details={"errno": "ELOOP", "where": "server storage"},
                hint=f"Replace the link by the file it points to (or remove it: {FILE_NAME} is made again, empty).",
            )
        try:
            await self.db.open()
            await migrate(self.db, experiential_migrations())
        except BaseException as exc:
            await self.db.close()
            if isinstance(exc, DbError) and not isinstance(exc, DbOperationalError):  # not a database, malformed
                raise IoError(
                    f"the data folder's {FILE_NAME} is not a database the server can use: {exc}",
                    details={"errno": "EIO", "where": "server storage"},
                    hint=f"Move {FILE_NAME} out of the data folder; the next memory call makes it again, empty.",
                ) from exc
            raise

    async def record(
        self,
        vault_id: str,
        kind: Kind,
        text: str,
        *,
        tool: str | None,
        context: str | None,
        confidence: float,
        tags: Sequence[str],
        caller: str,
    ) -> Experience:
        exp_id = "exp-" + secrets.token_hex(6)
        exp = Experience(exp_id, kind, text, tool, context, confidence, tuple(tags), caller, time.time())

        def insert(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT INTO experiences(id, vault_id, kind, text, tool, context, confidence, tags, caller, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    exp.id,
                    vault_id,
                    kind,
                    text,
                    tool,
                    context,
                    confidence,
                    json.dumps(list(tags)),
                    caller,
                    exp.created_at,
                ),
            )

        db = await self.opened()
        await db.run_write(insert)
        return exp

    async def get(self, vault_id: str, exp_id: str) -> Experience | None:
        db = await self.opened()
        row = await db.fetchone(f"SELECT {_COLUMNS} FROM experiences WHERE vault_id = ? AND id = ?", (vault_id, exp_id))
        return _row(row) if row is not None else None

    async def page(
        self,
        vault_id: str,
        *,
        kind: Kind | None,
        tool: str | None,
        promoted: bool | None,
        min_confidence: float,
        offset: int,
        limit: int,
    ) -> tuple[list[Experience], int]:
        where = ["vault_id = ?", "confidence >= ?"]
        params: list[Any] = [vault_id, min_confidence]
        if kind is not None:
            where.append("kind = ?")
            params.append(kind)
        if tool is not None:
            where.append("tool = ?")
            params.append(tool)
        if promoted is not None:
            where.append("promoted_at IS NOT NULL" if promoted else "promoted_at IS NULL")
        clause = " AND ".join(where)

        def read(conn: sqlite3.Connection) -> tuple[list[Experience], int]:
            total = conn.execute(f"SELECT count(*) FROM experiences WHERE {clause}", params).fetchone()[0]
            rows = conn.execute(
                f"SELECT {_COLUMNS} FROM experiences WHERE {clause} ORDER BY n DESC LIMIT ? OFFSET ?",
                (*params, limit, offset),
            ).fetchall()
            return [_row(r) for r in rows], int(total)

        db = await self.opened()
        return await db.run_read(read)

    async def promotions(self, vault_id: str) -> list[Experience]:
        """The promoted experiences of a vault."""
        db = await self.opened()
        rows = await db.fetchall(
            f"SELECT {_COLUMNS} FROM experiences WHERE vault_id = ? AND promoted_at IS NOT NULL", (vault_id,)
        )
        return [_row(r) for r in rows]

    async def unpromoted(self, vault_id: str, exp_id: str, promoted_at: float) -> None:
        """Forget a promotion whose observation is no longer in the vault (an undone plan, a
        deleted line): the experience may be promoted again."""
        db = await self.opened()
        await db.run_write(
            lambda conn: conn.execute(
                "UPDATE experiences SET promoted_at = NULL, promoted_by = NULL, promoted_to = NULL,"
                " promoted_path = NULL, promoted_block = NULL WHERE vault_id = ? AND id = ? AND promoted_at = ?",
                (vault_id, exp_id, promoted_at),
            )
        )

    async def promoted(self, vault_id: str, exp_id: str, *, by: str, entity: str, path: str, block: str | None) -> bool:
        """Record a confirmed promotion; False when the experience was promoted already."""

        def update(conn: sqlite3.Connection) -> bool:
            cur = conn.execute(
                "UPDATE experiences SET promoted_at = ?, promoted_by = ?, promoted_to = ?, promoted_path = ?,"
                " promoted_block = ? WHERE vault_id = ? AND id = ? AND promoted_at IS NULL",
                (time.time(), by, entity, path, block, vault_id, exp_id),
            )
            return cur.rowcount == 1

        db = await self.opened()
        return await db.run_write(update)
