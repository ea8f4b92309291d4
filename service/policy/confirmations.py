"""Human confirmation tokens: minted out of band, single use, bound to vault + tool + args_hash.

A call that needs a human records a request (what it would do, for `vaultgate confirm` to
show) and answers `elicit_required`. What it would do is a `ChangePreview`: a summary and, when
the call knows them, every file it will change — all of them, never the first few: a person
approving must see what they approve (an elicitation form shows the first files and the count).
A human mints a token — `vaultgate confirm ARGS_HASH PATH`
or `POST /admin/confirm` — which is 128+ bits from `secrets`, stored only as its SHA-256, and
valid `elicit_ttl_seconds`. Consuming is one transaction of the writer, so of two concurrent
calls presenting the same token exactly one proceeds.

A token approves what the human was shown, not only the arguments: it keeps the SHA-256 of the
request's preview, and a call presenting it proceeds only while the call's own preview is still
that one. The arguments alone do not say what a call will change: `undo_last_plan {}` undoes
whichever run is last when it runs, `rename_tag` rewrites every note holding the tag by then. A
changed preview leaves the token unspent (it is good again should the vault return to what was
approved) and the call asks for a new confirmation of what it would now do.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from service.storage.db import Database

FORM_FILES = 20  # files named in an elicitation form's message (the count is always given)


@dataclass(frozen=True, slots=True)
class ChangePreview:
    """What a human approves: a summary, and every file the call will change (None: the tool
    cannot tell from its arguments)."""

    summary: str
    files: tuple[str, ...] | None = None

    @classmethod
    def of(cls, summary: str, files: Iterable[str] | None = None) -> ChangePreview:
        return cls(summary, None if files is None else tuple(sorted(set(files))))

    def _listed(self, files: Sequence[str]) -> list[str]:
        assert self.files is not None
        more = len(self.files) - len(files)
        tail = [f"... and {more} more (every file: `vaultgate confirm` or the error's details.files)"] if more else []
        return [f"files changed ({len(self.files)}):", *(f"- {f}" for f in files), *tail]

    def text(self) -> str:
        """The summary and the whole list of files (what `vaultgate confirm` prints)."""
        if self.files is None:
            return self.summary
        return "\n".join([self.summary, *self._listed(self.files)])

    def brief(self, shown: int = FORM_FILES) -> str:
        """The summary, the first `shown` files and the count (an elicitation form's message)."""
        if self.files is None:
            return self.summary
        return "\n".join([self.summary, *self._listed(self.files[:shown])])


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def preview_sha(preview: str) -> str:
    return hashlib.sha256(preview.encode()).hexdigest()


# What presenting a token did: spent on this call; refused because the call's preview is no longer
# the one the token approved; refused because it is unknown, used, expired or minted for another call.
Spent = Literal["spent", "changed", "refused"]


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
                " expires_at, preview_sha) VALUES (?,?,?,?,?,?,?,?)",
                (
                    token_hash(token),
                    request.vault_id,
                    request.tool,
                    request.args_hash,
                    minted_by,
                    now,
                    expires,
                    preview_sha(request.preview),
                ),
            )
        )
        return token, expires

    async def consume(self, token: str, vault_id: str, tool: str, args_hash: str, preview: str) -> Spent:
        """Spend a token for exactly this call, whose preview is `preview` (see the module's doc)."""
        now = time.time()
        key = token_hash(token)

        def work(c: Any) -> Spent:
            row = c.execute(
                "SELECT preview_sha FROM confirmation_tokens WHERE token_hash = ? AND consumed_at IS NULL"
                " AND expires_at > ? AND vault_id = ? AND tool = ? AND args_hash = ?",
                (key, now, vault_id, tool, args_hash),
            ).fetchone()
            if row is None:
                return "refused"
            if row[0] is not None and row[0] != preview_sha(preview):
                return "changed"
            c.execute("UPDATE confirmation_tokens SET consumed_at = ? WHERE token_hash = ?", (now, key))
            c.execute("DELETE FROM confirmation_requests WHERE args_hash = ? AND vault_id = ?", (args_hash, vault_id))
            return "spent"

        spent: Spent = await self.db.run_write(work)
        return spent

    async def purge(self, now: float | None = None) -> int:
        cutoff = time.time() if now is None else now

        def work(c: Any) -> int:
            a = c.execute("DELETE FROM confirmation_tokens WHERE expires_at < ?", (cutoff,)).rowcount
            b = c.execute("DELETE FROM confirmation_requests WHERE expires_at < ?", (cutoff,)).rowcount
            return int(a or 0) + int(b or 0)

        return int(await self.db.run_write(work))
