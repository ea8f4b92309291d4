"""idempotency: a call with `idempotency_key` runs at most once per (caller, vault, key).

The claim is taken before the handler runs (`service.policy.idempotency`): the owner runs the
call and stores its result; a repeat of a finished call replays that result without running
anything (`notes["replayed"]`); a repeat while it still runs is `idempotency_in_flight`
(retryable); a repeat after the process running it died is `idempotency_interrupted` (it may have
made its change: never run twice); the same key with another tool or other arguments is `idempotency_key_mismatch`.
A call that fails releases its claim: writes are atomic, so a failure changed nothing and a
retry with the same key may run.

The key space is the caller's subject *and* what it may see: its sorted scopes and its vault
binding (`key_space`). A stored result is only ever replayed to a principal holding exactly the
scopes of the one it was computed for; a narrowed, read-only or differently bound token of the
same subject gets a fresh run through every layer (the path ACL included, which a replay never
reaches: it is applied when the handler resolves a path), so a replay is never less restricted
than the same call without the key.
"""

from __future__ import annotations

import hashlib

import anyio

from service.dispatch.context import CallContext, Next, ToolResult
from service.errors import IdempotencyInFlight, IdempotencyInterrupted, IdempotencyKeyMismatch
from service.policy.idempotency import IdempotencyStore
from service.types import Principal


def key_space(principal: Principal) -> str:
    """The caller column of a key: the subject plus a digest of its sorted scopes and vault binding."""
    grant = "\n".join([principal.vault or "", *sorted(principal.scopes)])
    return f"{principal.subject}#{hashlib.sha256(grant.encode()).hexdigest()[:16]}"


class Idempotency:
    name = "idempotency"

    def __init__(self, store: IdempotencyStore) -> None:
        self.store = store

    async def __call__(self, call: CallContext, next: Next) -> ToolResult:
        assert call.args is not None and call.vault is not None
        key = call.args.idempotency_key
        if not key:
            return await next(call)
        caller, vault_id = key_space(call.principal), call.vault.id
        claim = await self.store.claim(caller, vault_id, key, call.tool, call.args_hash)
        if claim.outcome == "replay":
            assert claim.stored is not None
            call.notes["replayed"] = True
            stored = claim.stored
            return ToolResult(structured=stored["structured"], text=stored["text"], applied=bool(stored.get("applied")))
        if claim.outcome == "in_flight":
            raise IdempotencyInFlight(
                "a call with this idempotency_key is still running",
                details={"idempotency_key": key, "retry_after_seconds": 1},
                hint="Retry the same call shortly; it will replay the result once the first call finishes.",
            )
        if claim.outcome == "interrupted":
            raise IdempotencyInterrupted(
                "the server stopped while the first call with this idempotency_key ran: it may have made its change",
                details={"idempotency_key": key, "may_have_run": True, "claimed_at": claim.claimed_at},
                hint="Check the vault before sending it again (read_note; an all-or-nothing call, such as "
                "bulk_create_notes, move_note, rename_note or a plan's step, was rolled back at the restart), "
                "then call again with a new idempotency_key if the change is still needed.",
            )
        if claim.outcome == "mismatch":
            raise IdempotencyKeyMismatch(
                "this idempotency_key was used for a different call",
                details={"idempotency_key": key, "tool": claim.tool},
                hint="Use a fresh key for a different tool or different arguments.",
            )
        try:
            result = await next(call)
        except BaseException:
            with anyio.CancelScope(shield=True):  # a cancelled call must not leave its key in flight
                await self.store.release(caller, vault_id, key)
            raise
        if result.is_error or result.input_required is not None:
            await self.store.release(caller, vault_id, key)  # nothing ran; the retry may
            return result
        stored = {"structured": result.structured, "text": result.text, "applied": result.applied}
        await self.store.complete(caller, vault_id, key, stored)
        return result
