"""own_writes: a caller's later calls see its writes in the index (read-your-writes).

Writes are acknowledged once their file is durable; their index updates are queued and applied
in group-commit rounds (`service.indexer.group`). This layer makes the caller's `Mark`
(`service.indexer.fresh`) current for the call, so the index updates the call's writes queue are
recorded against the caller, and, for a tool that reads the index (`ToolSpec.reads_index`,
the default), waits first until the vault's index holds every update the caller is owed. It
runs before `precheck`: prechecks and confirmation previews read the index too (a move plans
its link rewrites from it).

Who is "the caller": an older-era MCP session (its `Mcp-Session-Id`) of a principal; without a
session (protocol 2026-07-28, stateless HTTP, stdio) the principal alone, so unauthenticated
clients of one server share one mark and wait for each other's writes (safe, a little slower).
A nested call (facade, plan step, a task the call started) inherits the mark of its outer call.
An in-process call from outside any call (`transport` "inproc": an embedding program, a test)
is owed every update queued before it began, and its own writes are in the index when they
return, as before.
"""

from __future__ import annotations

from typing import Any

from service.dispatch.context import CallContext, Next, ToolResult
from service.indexer import fresh
from service.indexer.runner import indexer_of


def caller_key(call: CallContext) -> tuple[str, str, str] | None:
    """(principal, session, transport) for a call from a client; None for an in-process call."""
    if call.transport == "inproc":
        return None
    http_request: Any = getattr(call.request, "request", None)
    headers = getattr(http_request, "headers", None)
    session = headers.get("mcp-session-id", "") if headers is not None else ""
    return (call.principal.subject, str(session), call.transport)


class OwnWrites:
    name = "own_writes"

    def __init__(self, marks: fresh.Marks | None = None) -> None:
        self.marks = marks if marks is not None else fresh.Marks()

    async def __call__(self, call: CallContext, next: Next) -> ToolResult:
        assert call.spec is not None and call.vault is not None
        indexer = indexer_of(call.vault)
        mark = fresh.current.get()
        token = None
        if mark is None:
            key = caller_key(call)
            if key is not None:
                mark = self.marks.of(key)
            else:  # no client to tell apart: owed every update queued so far; its writes wait
                mark = fresh.Mark({call.vault.id: indexer.queued_seq} if indexer is not None else {}, queue=False)
            token = fresh.current.set(mark)
        try:
            if call.spec.reads_index and indexer is not None:
                await fresh.settle(indexer)
            return await next(call)
        finally:
            if token is not None:
                fresh.current.reset(token)
