"""Human confirmation tokens: minted out of band, single use, bound to vault + tool + args_hash.

A call that needs a human records a request (what it would do, for `vaultgate confirm` to
show) and answers `elicit_required`. A human mints a token — `vaultgate confirm ARGS_HASH PATH`
or `POST /admin/confirm` — which is 128+ bits from `secrets`, stored only as its SHA-256, and
valid `elicit_ttl_seconds`. Consuming is one conditional UPDATE in the writer's transaction, so
of two concurrent calls presenting the same token exactly one proceeds.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass
from typing import Any

from service.storage.db import Database


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Request:
    args_hash: str
    vault_id: str
    tool: str
    preview: str
    caller: str
    expires_at: float


class Confirmations:
    def __init__(self, db: Database, ttl_seconds: int) -> None:
        self.db = db
        self.ttl = ttl_seconds

    async def record_request(self, args_hash: str, vault_id: str, tool: str, preview: str, caller: str) -> float:
        now = time.time()
        expires = now + self.ttl
        await self.db.run_write(
            lambda c: c.execute(
                "INSERT INTO confirmation_requests(args_hash, vault_id, tool, preview, caller, created_at, expires_at)"
                " VALUES (?,?,?,?,?,?,?) ON CONFLICT(args_hash, vault_id) DO UPDATE SET tool = excluded.tool,"
                " preview = excluded.preview, caller = excluded.caller, created_at = excluded.created_at,"
                " expires_at = excluded.expires_at",
                (args_hash, vault_id, tool, preview, caller, now, expires),
            )
        )
        return expires

    async def pending(self, args_hash: str, vault_id: str | None = None) -> list[Request]:
        sql = (
            "SELECT args_hash, vault_id, tool, preview, caller, expires_at FROM confirmation_requests"
            " WHERE args_hash = ? AND expires_at > ?"
        )
        params: list[Any] = [args_hash, time.time()]
        if vault_id is not None:
            sql += " AND vault_id = ?"
            params.append(vault_id)
        rows = await self.db.fetchall(sql, params)
        return [Request(*r) for r in rows]

    async def mint(self, request: Request, minted_by: str) -> tuple[str, float]:
        token = secrets.token_urlsafe(24)  # 192 bits
        now = time.time()
        expires = now + self.ttl
        await self.db.run_write(
            lambda c: c.execute(
                "INSERT INTO confirmation_tokens(token_hash, vault_id, tool, args_hash, minted_by, created_at,"
                " expires_at) VALUES (?,?,?,?,?,?,?)",
                (token_hash(token), request.vault_id, request.tool, request.args_hash, minted_by, now, expires),
            )
        )
        return token, expires

    async def consume(self, token: str, vault_id: str, tool: str, args_hash: str) -> bool:
        """Spend a token for exactly this call; False when unknown, expired, used or bound elsewhere."""
        now = time.time()

        def work(c: Any) -> bool:
            cur = c.execute(
                "UPDATE confirmation_tokens SET consumed_at = ? WHERE token_hash = ? AND consumed_at IS NULL"
                " AND expires_at > ? AND vault_id = ? AND tool = ? AND args_hash = ?",
                (now, token_hash(token), now, vault_id, tool, args_hash),
            )
            if cur.rowcount == 1:
                c.execute(
                    "DELETE FROM confirmation_requests WHERE args_hash = ? AND vault_id = ?", (args_hash, vault_id)
                )
                return True
            return False

        return bool(await self.db.run_write(work))

    async def purge(self, now: float | None = None) -> int:
        cutoff = time.time() if now is None else now

        def work(c: Any) -> int:
            a = c.execute("DELETE FROM confirmation_tokens WHERE expires_at < ?", (cutoff,)).rowcount
            b = c.execute("DELETE FROM confirmation_requests WHERE expires_at < ?", (cutoff,)).rowcount
            return int(a or 0) + int(b or 0)

        return int(await self.db.run_write(work))
