"""index domain: index_status and reindex.

Touches: the indexer's in-memory state, index tables (counts), the `jobs` table (through
`service.indexer.jobs`). `reindex` is an admin tool that rewrites only the cache (never a note).
Health: `unavailable` when the index failed or is missing, `degraded` while it is catching up
(initial reconcile, a reindex, or the trigram prefilter still being rebuilt), else `healthy`.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import time
from typing import Any, Literal

from pydantic import BaseModel, Field

from service.errors import IndexUnavailable, ModeUnavailable
from service.indexer.jobs import IndexJobs, Job
from service.indexer.runner import VaultIndexer, indexer_of
from service.indexer.status import reported
from service.obsidian.task_status import open_sql, tasks_sql, vault_statuses
from service.security.visible import unrestricted, visible_counts
from service.tools.context import ToolContext
from service.tools.models import ToolInput, ToolOutput
from service.tools.spec import ToolSpec


def _iso(stamp: float | None) -> str | None:
    return dt.datetime.fromtimestamp(stamp, dt.UTC).isoformat(timespec="seconds") if stamp else None


class JobOut(BaseModel):
    id: str = Field(description="Job id.")
    kind: str = Field(description="full, sync or embeddings.")
    status: str = Field(description="queued, running, done or failed.")
    progress: int = Field(
        description="Notes processed so far (percent, with total 100, for a caller some path rule restricts)."
    )
    total: int | None = Field(default=None, description="Notes to process (known once the scan is done).")
    started_at: str | None = Field(default=None, description="ISO time the job started.")
    finished_at: str | None = Field(default=None, description="ISO time the job finished.")
    error: str | None = Field(default=None, description="Why it failed.")
    result: dict[str, int] | None = Field(
        default=None,
        description="Counts when done: indexed, unchanged_content, removed, scanned (omitted for a restricted caller).",
    )


def _percent(done: int, total: int | None) -> int:
    return 100 if not total else min(100, done * 100 // total)


def job_out(job: Job | None, *, restricted: bool = False) -> JobOut | None:
    """A job as a caller sees it: one whom a path rule restricts gets percentages, not file counts
    (vault-wide counts would reveal how many notes the ACL hides)."""
    if job is None:
        return None
    return JobOut(
        id=job.id,
        kind=job.kind,
        status=job.status,
        progress=_percent(job.progress, job.total) if restricted else job.progress,
        total=(100 if job.total is not None else None) if restricted else job.total,
        started_at=_iso(job.started_at),
        finished_at=_iso(job.finished_at),
        error=job.error,
        result=None if restricted else job.result,
    )


class EmbeddingStatus(BaseModel):
    model: str = Field(description="The embedding model.")
    state: str = Field(description="waiting (for the index), embedding, idle or failed.")
    chunks: int | None = Field(description="Chunks of the vault's notes (null for a caller some path rule restricts).")
    embedded: int | None = Field(description="Chunks with a vector (null for a restricted caller).")
    backlog: int = Field(
        description="Chunks and notes still to embed or chunk (for a restricted caller: 1 while any wait, else 0)."
    )
    rate: float | None = Field(default=None, description="Chunks embedded per second in the last pass.")
    error: str | None = Field(default=None, description="Why embedding stopped (e.g. the provider is down).")


async def embedding_status(ctx: ToolContext, restricted: bool) -> EmbeddingStatus | None:
    engine = ctx.services.semantic
    if engine is None or not engine.enabled:
        return None
    job = engine.jobs.get(ctx.vault.id)
    counts = await engine.counts(ctx.vault.id)
    return EmbeddingStatus(
        model=engine.embedder().name,
        state=job.state if job is not None else "waiting",
        chunks=None if restricted else counts.chunks,
        embedded=None if restricted else counts.embedded,
        backlog=min(counts.backlog, 1) if restricted else counts.backlog,
        rate=round(job.rate, 2) if job is not None and job.rate is not None else None,
        error=job.error if job is not None else None,
    )


class IndexStatusIn(ToolInput):
    pass


class LinkCounts(BaseModel):
    total: int = Field(description="Links and embeds.")
    resolved: int = Field(description="Pointing at an existing file.")
    unresolved: int = Field(description="Pointing at nothing (yet).")


class FileWarning(BaseModel):
    path: str = Field(description="Vault path (a byte that is not UTF-8 shown as \\xNN).")
    reason: str = Field(
        description="name_not_utf8, special_file, unreadable, parse_failed, store_failed (left out of the index), "
        "encoding (indexed, read with the encoding in `detail`) or capped (indexed without the tags, links or other "
        "rows past a per-note cap, named in `detail`)."
    )
    detail: str = Field(default="", description="The encoding used, the kind of file, what was cut, or the error.")


class FileWarnings(BaseModel):
    skipped: int | None = Field(
        description="Files left out of the index; the rest of the vault is indexed (null for a caller some path "
        "rule restricts)."
    )
    fallback_encoding: int | None = Field(
        description="Notes indexed from a file that is not UTF-8 (null for a restricted caller)."
    )
    by_reason: dict[str, int] | None = Field(description="Counts by reason (null for a restricted caller).")
    examples: list[FileWarning] = Field(description="A few of them (for a restricted caller, only paths it may read).")


def file_warnings(ctx: ToolContext, indexer: VaultIndexer, restricted: bool) -> FileWarnings | None:
    summary = indexer.file_issues.summary()
    if not summary["by_reason"] and not summary["skipped"]:
        return None
    examples = [FileWarning(**e) for e in summary["examples"] if not restricted or ctx.can_read(e["path"])]
    if restricted:
        return (
            FileWarnings(skipped=None, fallback_encoding=None, by_reason=None, examples=examples) if examples else None
        )
    return FileWarnings(
        skipped=summary["skipped"],
        fallback_encoding=summary["fallback_encoding"],
        by_reason=summary["by_reason"],
        examples=examples,
    )


class IndexStatusOut(ToolOutput):
    vault: str = Field(description="Vault id.")
    health: Literal["healthy", "degraded", "unavailable"] = Field(description="Overall index health.")
    ready: bool = Field(description="The initial reconcile is complete.")
    state: str = Field(description="starting, reconciling, ready or failed.")
    notes: int = Field(description="Indexed notes.")
    backlog: int = Field(
        description="Notes waiting to be (re)indexed (for a caller some path rule restricts: 1 while any wait, else 0)."
    )
    last_sync: str | None = Field(default=None, description="ISO time of the last complete reconcile.")
    last_change: str | None = Field(default=None, description="ISO time of the last incremental update.")
    generation: int = Field(description="Increases with every applied batch.")
    active_job: JobOut | None = Field(default=None, description="The running reindex, if any.")
    last_job: JobOut | None = Field(default=None, description="The most recent reindex.")
    links: LinkCounts = Field(description="Link counts.")
    tags: int = Field(
        description="Distinct tags written in notes, letter case ignored; a nested tag's parent no note writes "
        "itself (`tools` above `tools/x`) is not counted, so `list_tags`' `total`, which lists such parents as "
        "Obsidian's tag pane does, can be larger."
    )
    tasks: int = Field(
        description="Tasks: checkbox items (with the Tasks plugin's global filter, those containing it, as "
        "list_tasks and tasks_filter read them)."
    )
    open_tasks: int = Field(
        description="Tasks not yet done: status type todo, in_progress or on_hold by the vault's Tasks plugin statuses "
        "(`[ ]`, `[/]`, a character they do not name such as `[X]`), the tasks list_tasks' status `open` and "
        "tasks_filter's `not done` give."
    )
    headings: int = Field(description="Headings.")
    trigram_ready: bool = Field(description="The regex prefilter index is complete.")
    watching: bool = Field(description="External edits are being picked up by the file watcher.")
    polling: str | None = Field(
        default=None,
        description="Why the watcher finds external edits by comparing the vault with the index every "
        "`[index] watch_poll_s` instead of the OS's events: `watch_mode` (set so, for network file systems) or "
        "the OS's watch limit (tried again every 10 minutes); null: events, or no watcher.",
    )
    error: str | None = Field(default=None, description="Why the index failed.")
    file_warnings: FileWarnings | None = Field(
        default=None,
        description="Files the index left out (one bad file never stops the others) or read as not UTF-8; "
        "null when there are none.",
    )
    embeddings: EmbeddingStatus | None = Field(
        default=None, description="Chunks and vectors for semantic search (null when embeddings are off)."
    )


def _indexer(ctx: ToolContext) -> VaultIndexer:
    found = indexer_of(ctx.vault)
    if found is None:
        raise IndexUnavailable(f"vault {ctx.vault.id!r} has no index", details={"vault": ctx.vault.id})
    return found


def _jobs(ctx: ToolContext) -> IndexJobs:
    return ctx.services.index_jobs


async def _global_filter_counts(ctx: ToolContext) -> dict[str, int]:
    """`tasks` and `open_tasks` when the vault has a Tasks global filter: only the checkbox items
    holding it are tasks, as list_tasks and tasks_filter read them (the indexer keeps counts of
    every checkbox item, per status, not of a text the settings may change at any time)."""
    are_tasks, only = tasks_sql(ctx.vault)
    if not only:
        return {}
    open_clause, closed = open_sql(vault_statuses(ctx.vault.paths.root))
    sql = f"SELECT COUNT(*), COALESCE(SUM({open_clause}), 0) FROM tasks WHERE vault_id = ? AND {are_tasks}"
    row = await ctx.services.db.fetchone(sql, (*closed, ctx.vault.id, *only))
    return {"tasks": int(row[0]), "open_tasks": int(row[1])} if row else {}


async def index_status(ctx: ToolContext, args: IndexStatusIn) -> IndexStatusOut:
    indexer = _indexer(ctx)
    jobs = _jobs(ctx)
    restricted = not unrestricted(ctx)
    counts = (
        await visible_counts(ctx)
        if restricted
        else reported(await indexer.counts(), vault_statuses(ctx.vault.paths.root))
    )
    if not restricted:
        counts.update(await _global_filter_counts(ctx))
    active = jobs.active(ctx.vault.id)
    backlog = max(indexer.backlog, indexer.catch_up.missed)  # updates that failed count until re-read
    if indexer.state == "failed":
        health: Literal["healthy", "degraded", "unavailable"] = "unavailable"
    elif not indexer.ready or active is not None or backlog or not indexer.trigram_ready:
        health = "degraded"
    else:
        health = "healthy"
    return IndexStatusOut(
        vault=ctx.vault.id,
        health=health,
        ready=indexer.ready,
        state=indexer.state,
        notes=counts["notes"],
        backlog=min(backlog, 1) if restricted else backlog,
        last_sync=_iso(indexer.last_sync),
        last_change=_iso(indexer.last_change),
        generation=indexer.generation,
        active_job=job_out(active, restricted=restricted),
        last_job=job_out(await jobs.last(ctx.vault.id), restricted=restricted),
        links=LinkCounts(
            total=counts["links"],
            resolved=counts["links"] - counts["unresolved_links"],
            unresolved=counts["unresolved_links"],
        ),
        tags=counts["tags"],
        tasks=counts["tasks"],
        open_tasks=counts["open_tasks"],
        headings=counts["headings"],
        trigram_ready=indexer.trigram_ready,
        watching=indexer.watching,
        polling=indexer.polling,
        error=indexer.error or indexer.catch_up.error,
        file_warnings=file_warnings(ctx, indexer, restricted),
        embeddings=await embedding_status(ctx, restricted),
    )


class ReindexIn(ToolInput):
    mode: Literal["full", "sync", "embeddings"] = Field(
        default="sync",
        description="sync: re-read notes whose size, mtime or content changed; full: re-parse every note; "
        "embeddings: chunk and embed every note again (semantic search answers from what is done meanwhile).",
    )
    wait: bool | None = Field(
        default=None,
        description="true: wait for the job to finish (progress notifications meanwhile); false: answer at once "
        "with the job; unset: wait up to 10 s, then answer with the running job (index_status shows its progress).",
    )


class ReindexOut(ToolOutput):
    vault: str = Field(description="Vault id.")
    job: JobOut = Field(description="The job (finished when `wait` was true).")
    already_running: bool = Field(description="True when a reindex was already running: this is that job.")


async def reindex(ctx: ToolContext, args: ReindexIn) -> ReindexOut:
    indexer = _indexer(ctx)
    restricted = not unrestricted(ctx)

    sent = [0]  # the last value sent: progress only ever grows (MCP), a repeated percentage is skipped

    async def progress(done: int, total: int) -> None:
        if restricted:  # percentages only: file counts would reveal what the path ACL hides
            done, total = _percent(done, total), 100
        if done <= sent[0]:
            return
        sent[0] = done
        unit = "%" if restricted else f"/{total} notes"
        await ctx.progress(done, total, f"reindex ({args.mode}): {done}{unit}")

    if args.mode == "embeddings":
        return await reindex_embeddings(ctx, args, restricted)
    within = _within(args.wait)
    job, already, task = await _jobs(ctx).launch(indexer, args.mode, progress if within != 0 else None)
    if within != 0:
        try:
            # A cancelled call, or one that waited its bound, stops waiting; the job goes on in
            # the background (each batch is one transaction, so the index stays consistent) and
            # index_status shows it.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(task), within)
        finally:
            _jobs(ctx).detach(job.id, progress)
    return ReindexOut(vault=ctx.vault.id, job=job_out(job, restricted=restricted) or _never(), already_running=already)


async def reindex_embeddings(ctx: ToolContext, args: ReindexIn, restricted: bool) -> ReindexOut:
    engine = ctx.services.semantic
    job = engine.jobs.get(ctx.vault.id) if engine is not None and engine.enabled else None
    if engine is None or job is None:
        raise ModeUnavailable(
            "embeddings are off on this server ([embeddings] provider = 'none')",
            details={"mode": "embeddings"},
            hint="Set [embeddings] provider to embed notes.",
        )
    started, already = await engine.reindex(ctx.vault.id)

    async def progress(done: int, total: int) -> None:
        if restricted:
            done, total = _percent(done, total), 100
        await ctx.progress(done, total, f"reindex (embeddings): {done}/{total} chunks")

    within = _within(args.wait)
    if within != 0 and job.progress is None:  # a call joining one that reports progress waits silently
        job.progress = progress
    try:
        if within != 0:
            with contextlib.suppress(TimeoutError):
                await job.wait_settled(within=within if within is not None else 3600)
    finally:
        if job.progress is progress:
            job.progress = None
    counts = await engine.counts(ctx.vault.id)
    status = "failed" if job.state == "failed" else ("done" if counts.backlog == 0 else "running")
    return ReindexOut(
        vault=ctx.vault.id,
        job=JobOut(
            id=f"embeddings:{ctx.vault.id}",
            kind="embeddings",
            status=status,
            progress=_percent(counts.embedded, counts.chunks) if restricted else counts.embedded,
            total=100 if restricted else counts.chunks,
            started_at=_iso(started),
            finished_at=_iso(time.time()) if status != "running" else None,
            error=job.error,
        ),
        already_running=already,
    )


# How long a reindex call waits when the caller did not say: a call on stdio must not hold the
# line for minutes, and a small vault's reindex still answers finished.
WAIT_S = 10.0


def _within(wait: bool | None) -> float | None:
    """Seconds to wait for the job: None to its end, 0 not at all."""
    if wait is None:
        return WAIT_S
    return None if wait else 0


def _never() -> Any:  # pragma: no cover - job_out only returns None for None
    raise AssertionError("job missing")


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="index_status",
        domain="index",
        title="Index status",
        description="Health of the vault's search index: ready/state, note count, backlog, last sync, the running "
        "reindex job, and counts of links (resolved/unresolved), tags, tasks and headings.",
        input_model=IndexStatusIn,
        output_model=IndexStatusOut,
        handler=index_status,
        tags=("index",),
    ),
    ToolSpec(
        name="reindex",
        domain="index",
        title="Reindex the vault",
        description="Rebuild the search index as a job: 'sync' re-reads changed notes, 'full' re-parses every note, "
        "'embeddings' chunks and embeds every note again. "
        "Reports progress while waiting; by default waits up to 10 s and then answers with the running job "
        "(index_status shows its progress); wait=true waits to the end, wait=false answers at once, and a client "
        "with MCP tasks may run it as a task. A second call while one runs returns the "
        "running job. Changes only the cache, never a note.",
        input_model=ReindexIn,
        output_model=ReindexOut,
        handler=reindex,
        task_support=True,
        scopes=("admin",),
        scope_class="admin",
        mutating=True,
        idempotent=False,
        tags=("index", "admin"),
    ),
)
