"""sessions domain: start_session and end_session (workspace sessions with a JSONL trace).

Touches: the `agent_sessions` table and one trace file per session in the vault's trace folder
(`sessions.trace_folder`, default `Agent Sessions/`), created here through the path ACL for
writing. A session belongs to (caller, vault): while it is open, every call that caller makes
in that vault is mirrored into the trace by the observe layer (`service.obs.sessions`). One
open session per caller and vault; starting a second one is a `conflict`. Both read it from
`agent_sessions` (`SessionTraces.current`), so with several servers on one data folder a session
opened or ended through one is the same through the others.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import re
import time
import uuid

from pydantic import Field

from service.errors import Conflict, ToolNotFound
from service.obs.sessions import Session, SessionTraces, caller_hash
from service.tools.context import ToolContext
from service.tools.models import ToolInput, ToolOutput
from service.tools.spec import ToolSpec

_UNSAFE = re.compile(r"[^\w\- ]+")


def _traces(ctx: ToolContext) -> SessionTraces:
    return ctx.services.sessions


class StartSessionIn(ToolInput):
    name: str = Field(min_length=1, max_length=120, description="What this session is about (used in the file name).")


class StartSessionOut(ToolOutput):
    session_id: str = Field(description="The workspace session id (echoed in the audit log of every call).")
    path: str = Field(description="Vault-relative path of the session's JSONL trace.")
    title: str = Field(description="Title of the trace file.")
    obsidian_url: str = Field(description="obsidian://open URL of the trace file.")
    started_at: str = Field(description="ISO time the session started.")


class EndSessionIn(ToolInput):
    session_id: str | None = Field(default=None, description="Session to end; default: your open one in this vault.")


class EndSessionOut(ToolOutput):
    session_id: str = Field(description="The ended session.")
    path: str = Field(description="Vault-relative path of the trace.")
    title: str = Field(description="Title of the trace file.")
    obsidian_url: str = Field(description="obsidian://open URL of the trace file.")
    calls: int = Field(description="Calls traced in the session (end_session included).")
    duration_seconds: float = Field(description="Seconds from start to end.")


async def start_session(ctx: ToolContext, args: StartSessionIn) -> StartSessionOut:
    traces = _traces(ctx)
    caller = caller_hash(ctx.principal.subject)
    current = await traces.current(caller, ctx.vault.id)  # another server's opened or ended one included
    if current is not None:
        raise _open_already(current)
    now = time.time()
    sid = uuid.uuid4().hex
    day = dt.datetime.fromtimestamp(now, dt.UTC).strftime("%Y-%m-%d")
    slug = _UNSAFE.sub("", args.name).strip()[:60] or "session"
    folder = ctx.services.settings.sessions.trace_folder.strip("/")
    vp = ctx.resolve(f"{folder}/{day} {slug} {sid[:8]}.jsonl", "write")
    session = Session(sid, ctx.vault.id, caller, args.name, vp.rel, vp.abs, now)
    if not await traces.claim(session):  # another start won between the check and here
        winner = await traces.current(caller, ctx.vault.id)
        if winner is None:  # it failed or ended meanwhile: no session to name
            raise Conflict("another start_session of yours was running", hint="Call start_session again.")
        raise _open_already(winner)
    header = {"type": "session.started", "session_id": sid, "name": args.name, "at": now, "vault": ctx.vault.id}
    try:
        await ctx.vault.files.write(vp, json.dumps(header, ensure_ascii=False) + "\n", create_only=True)
    except BaseException:
        await asyncio.shield(traces.unclaim(session))
        raise
    traces.register(session)
    return StartSessionOut(
        session_id=sid,
        path=vp.rel,
        title=vp.abs.stem,
        obsidian_url=ctx.vault.url(vp.rel),
        started_at=dt.datetime.fromtimestamp(now, dt.UTC).isoformat(timespec="seconds"),
    )


def _open_already(session: Session) -> Conflict:
    return Conflict(
        "you already have an open session in this vault",
        details={"session_id": session.id, "path": session.trace_rel},
        hint="Call end_session first.",
    )


async def end_session(ctx: ToolContext, args: EndSessionIn) -> EndSessionOut:
    traces = _traces(ctx)
    session = await traces.current(caller_hash(ctx.principal.subject), ctx.vault.id)
    if session is None or (args.session_id is not None and args.session_id != session.id):
        raise ToolNotFound(
            "no such open session of yours in this vault",
            details={"session_id": args.session_id, "vault": ctx.vault.id},
            hint="Start one with start_session.",
        )
    ended = await traces.close(session)
    # This call itself is still traced: the observe layer mirrors it into the handed-over session.
    ctx.notes["session"] = session
    return EndSessionOut(
        session_id=session.id,
        path=session.trace_rel,
        title=session.trace_file.stem,
        obsidian_url=ctx.vault.url(session.trace_rel),
        calls=session.calls + 1,
        duration_seconds=round(ended - session.started_at, 3),
    )


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="start_session",
        domain="sessions",
        title="Start a workspace session",
        description="Open a workspace session in this vault: until end_session, each of your calls here (success or "
        "failure) is traced as one JSON line in a file under the vault's trace folder.",
        input_model=StartSessionIn,
        output_model=StartSessionOut,
        handler=start_session,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        idempotent=False,
        tags=("sessions",),
    ),
    ToolSpec(
        name="end_session",
        domain="sessions",
        title="End the workspace session",
        description="Close your open workspace session in this vault and report its trace file and call count.",
        input_model=EndSessionIn,
        output_model=EndSessionOut,
        handler=end_session,
        scopes=("write:vault",),
        scope_class="write",
        mutating=True,
        idempotent=False,
        tags=("sessions",),
    ),
)
