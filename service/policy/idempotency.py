"""The idempotency store: claim-before-execute in SQLite.

`claim` runs one `INSERT ... ON CONFLICT DO NOTHING` plus a read inside the single writer's
transaction, so exactly one of any number of concurrent calls with the same (caller, vault,
key) becomes the owner; the others see the owner's row and learn whether it is still running
(`idempotency_in_flight`), finished (replay its stored result), or belongs to another tool or
other arguments (`idempotency_key_mismatch`). A claim names the server process that took it
(`owner`, `service.storage.owners`): one left `in_flight` by a process that is gone (killed: its
owner lock is no longer held) is not "still running": its outcome is `interrupted`, stored as the
key's result (`INTERRUPTED`), so this retry and every later one with the key hear it at once and
nothing runs again. The killed call may have made a change before it died (a single note's write
is not rolled back at the start; an all-or-nothing call is), and a key is a promise that its call
changes the vault at most once: run again, an append was appended twice. Any other claim (a live
server's, or one taken before claims named their owner) is taken over once older than
`reclaim_seconds`, as before. Completed keys live `ttl_seconds`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from service.storage import owners
from service.storage.db import Database

Outcome = Literal["owner", "replay", "in_flight", "mismatch", "interrupted"]
INTERRUPTED = "interrupted"  # the stored result's key of a call whose process died while it ran


@dataclass(frozen=True, slots=True)
class Claim:
    outcome: Outcome
    stored: dict[str, Any] | None = None  # the result to replay
    tool: str | None = None
    claimed_at: float | None = None


class IdempotencyStore:
    def __init__(
        self,
        db: Database,
        *,
        ttl_seconds: int,
        reclaim_seconds: int,
        clock: Callable[[], float] = time.time,
        owner: owners.Owner | None = None,
    ) -> None:
        self.db = db
        self.ttl = ttl_seconds
        self.reclaim = reclaim_seconds
        self.clock = clock  # wall-clock seconds; injectable (tests move it instead of waiting)
        self.owner = owner  # this server process (its held lock), named in each claim it takes

    def _gone(self, owner: str | None) -> bool:
        """Whether the process that took a claim is known to be dead (its owner lock is free)."""
        if self.owner is None or owner is None or self.owner.is_mine(owner):
            return False
        return not owners.alive(self.owner.folder, owner)

    async def claim(self, caller: str, vault_id: str, key: str, tool: str, args_hash: str) -> Claim:
        now = self.clock()
        mine = self.owner.id if self.owner is not None else None

        def work(conn: Any) -> Claim:
            conn.execute(
                "DELETE FROM idempotency_keys WHERE caller = ? AND vault_id = ? AND key = ? AND expires_at < ?",
                (caller, vault_id, key, now),
            )
            cur = conn.execute(
                "INSERT INTO idempotency_keys(caller, vault_id, key, tool, args_hash, status, claimed_at, expires_at,"
                " owner) VALUES (?,?,?,?,?, 'in_flight', ?, ?, ?) ON CONFLICT DO NOTHING",
                (caller, vault_id, key, tool, args_hash, now, now + self.ttl, mine),
            )
            if cur.rowcount == 1:
                return Claim("owner")
            row = conn.execute(
                "SELECT tool, args_hash, status, result, claimed_at, owner FROM idempotency_keys"
                " WHERE caller = ? AND vault_id = ? AND key = ?",
                (caller, vault_id, key),
            ).fetchone()
            if row is None:  # pragma: no cover - deleted between the two statements (same transaction)
                return Claim("owner")
            if row[0] != tool or row[1] != args_hash:
                return Claim("mismatch", tool=row[0])
            if row[2] == "done":
                stored = json.loads(row[3])
                if INTERRUPTED in stored:
                    return Claim("interrupted", claimed_at=float(stored[INTERRUPTED]))
                return Claim("replay", stored=stored)
            if self._gone(row[5]):  # its process died while it ran: that is its outcome, for good
                conn.execute(
                    "UPDATE idempotency_keys SET status = 'done', result = ?, completed_at = ?, expires_at = ?"
                    " WHERE caller = ? AND vault_id = ? AND key = ?",
                    (json.dumps({INTERRUPTED: float(row[4])}), now, now + self.ttl, caller, vault_id, key),
                )
                return Claim("interrupted", claimed_at=float(row[4]))
            if now - float(row[4]) > self.reclaim:
                conn.execute(
                    "UPDATE idempotency_keys SET claimed_at = ?, expires_at = ?, owner = ? WHERE caller = ?"
                    " AND vault_id = ? AND key = ?",
                    (now, now + self.ttl, mine, caller, vault_id, key),
                )
                return Claim("owner")
            return Claim("in_flight", claimed_at=float(row[4]))

        return await self.db.run_write(work)

    async def complete(self, caller: str, vault_id: str, key: str, result: dict[str, Any]) -> None:
        now = self.clock()
        payload = json.dumps(result, ensure_ascii=False)
        await self.db.run_write(
            lambda conn: conn.execute(
                "UPDATE idempotency_keys SET status = 'done', result = ?, completed_at = ?, expires_at = ?"
                " WHERE caller = ? AND vault_id = ? AND key = ?",
                (payload, now, now + self.ttl, caller, vault_id, key),
            )
        )

    async def release(self, caller: str, vault_id: str, key: str) -> None:
        """Forget a claim whose call failed before doing anything (so a retry can run)."""
        await self.db.run_write(
            lambda conn: conn.execute(
                "DELETE FROM idempotency_keys WHERE caller = ? AND vault_id = ? AND key = ? AND status = 'in_flight'",
                (caller, vault_id, key),
            )
        )

    async def purge(self, now: float | None = None) -> int:
        cutoff = self.clock() if now is None else now
        return await self.db.run_write(
            lambda conn: int(conn.execute("DELETE FROM idempotency_keys WHERE expires_at < ?", (cutoff,)).rowcount)
        )
