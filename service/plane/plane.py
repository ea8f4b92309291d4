"""The consolidation plane's scheduler and runner: one app component for every vault.

- **When**: per vault, a run starts `[plane] interval_minutes` after the last one ended, or sooner
  once `after_changes` notes changed since (the index's mtimes, looked at every minute); the
  first start of a vault counts from then. A run due starts only once the server has been up
  `after_start_minutes` (`uptime`): a stdio server lives as long as its client's session, some
  clients spawn one per task, and a run started there was cancelled at the stop, recorded nothing
  and was due again at the next start, every start paying for it. It waits for a pause in the
  calls (`service.activity`), and each job gives way to calls between its pieces of work.
- **One run per vault at a time**: a second `run` while one runs waits for it to end. A run a
  caller starts (`launch`: run_consolidation and its MCP task) runs in the background, keeps its
  id from the start, and can be cancelled; a second launch while it runs joins it.
- **State** (last run, its summary, the cursor that makes "new since the last run") lives in the
  state database (`plane_state`) and survives a restart; findings too (`service.plane.findings`).
  Each job has its own cursor (`cursors` in the summary): a full run moves it to its start for the
  jobs that ran; a job skipped or failed keeps it, so its retry covers the changes it missed.
- **Each job recorded as it ends**: a run only reads; each job's findings, report, cursor and own
  memory are recorded in one transaction as the job ends, and the run's end (last run, the
  schedule's anchor) in one more. A stop, a cancel or a kill keeps the jobs a run finished and
  none half: the run stays `unfinished` (`service.plane.state`), and the schedule's next run goes
  on with its jobs left while it began less than an interval ago (a whole run after that).
- **Needs**: a job whose needs are not met is skipped with the reason ("index": the vault's index
  is ready; "memory": always; "vectors": embeddings are on; "llm": the inference gateway is
  configured, `[inference]`); one that fails is reported with its error and run again at the next
  run, and one whose gateway gave no usable answer is skipped with the reason.
- **auto_apply**: findings of the kinds `[plane] auto_apply` lists are applied once the run is
  recorded (`service.plane.auto_apply`): their plan goes through `execute_plan` on the whole
  dispatch chain (validated, journaled, undoable, audited as `vaultgate-plane`); a cancel stops
  it between two plans, and the recorded run names those it applied.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import sqlite3
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict
from typing import Any

from service.activity import Activity
from service.indexer.runner import indexer_of
from service.memory.experiences import ExperienceStore
from service.memory.recall import MemoryRecall, Recall
from service.plane.auto_apply import auto_apply
from service.plane.findings import Finding, FindingStore, Recorded
from service.plane.gateway import Gateway, GatewayFailed
from service.plane.job import FIRST_WINDOW_S, Job, JobContext
from service.plane.runs import JobReport, Launched, RunResult, hand_back, settled
from service.plane.state import (
    counted_of,
    cursors_of,
    full_run_end,
    goes_on,
    job_since,
    kept_of,
    saved_in,
    state_after,
    unfinished_of,
    upsert,
    with_job,
)
from service.settings import Settings
from service.storage.db import Database
from service.storage.owners import Owner
from service.tasks import cancel_and_wait
from service.types import NestedCall
from service.vault.vault import Vault

log = logging.getLogger(__name__)
CHECK_S = 60.0  # how often the schedule looks at the vault's changes
# the clock and the wait of the server's uptime (`after_start_minutes`): a seam for tests (a clock they
# move, a wait that returns when they move it: nothing waits for minutes)
uptime: Callable[[], float] = time.monotonic
nap: Callable[[float], Awaitable[None]] = asyncio.sleep
wall: Callable[[], float] = time.time  # the schedule's clock (when a run is due, and goes on): a seam for tests
Progress = Callable[[int, int, str], Awaitable[None]]
KEPT_LAUNCHED = 200  # launched runs remembered (their tasks); the oldest is forgotten first


class Plane:
    name = "plane"

    def __init__(
        self,
        vaults: Mapping[str, Vault],
        db: Database,
        state: Database,
        settings: Settings,
        recall: MemoryRecall,
        experiences: ExperienceStore | None = None,
        activity: Activity | None = None,
        dispatch: NestedCall | None = None,
        *,
        jobs: tuple[Job, ...] | None = None,
        owner: Owner | None = None,
    ) -> None:
        """`dispatch` runs the plans of auto-applied findings through the whole chain; `jobs`: the
        standard ones (`service.plane.jobs.JOBS`) unless given, imported at their first run;
        `owner`: this server's owner of plan runs (`Journal.owner`), which claims findings too
        (one of its own over the same lock folder when not given)."""
        self.vaults = vaults
        self.db = db
        self.state = state
        self.settings = settings.plane
        self.memory = settings.memory
        self.recall = recall
        self.experiences = experiences
        self.activity = activity
        self.embeddings_on = settings.embeddings.provider != "none"
        self.all_settings = settings
        self.gateway = Gateway(settings.inference)
        self.dispatch = dispatch
        self._jobs = jobs
        self.findings = FindingStore(state, owner or Owner(state.path.parent / "plan-owners"))
        self.running: dict[str, dict[str, Any]] = {}  # vault id -> {run_id, job, done, total}
        self._locks: dict[str, asyncio.Lock] = {}
        self._loops: dict[str, asyncio.Task[None]] = {}
        self.launched: dict[str, Launched] = {}  # run id -> a launched run (the last KEPT_LAUNCHED)
        self._launched_in: dict[str, Launched] = {}  # vault id -> its last launched run
        self.started_at: float | None = None  # `uptime` at the server's start

    # -- lifecycle ------------------------------------------------------------------------------

    @property
    def jobs(self) -> tuple[Job, ...]:
        """The jobs a run chooses from (the standard ones import their summaries, topics and graph
        analytics: at the first run, not at the server's start)."""
        if self._jobs is None:
            from service.plane.jobs import JOBS

            self._jobs = JOBS
        return self._jobs

    @jobs.setter
    def jobs(self, jobs: tuple[Job, ...]) -> None:
        self._jobs = jobs

    async def start(self) -> None:
        self.started_at = uptime()
        for fid in await self.findings.release_dead_claims():  # the plans' journal has recovered
            log.warning("finding %s was being applied when the server stopped: open again", fid)
        if self.settings.enabled:
            for vault in self.vaults.values():
                self._loops[vault.id] = asyncio.create_task(self._loop(vault), name=f"plane:{vault.id}")

    async def stop(self) -> None:
        for task in self._loops.values():
            await cancel_and_wait(task)
        self._loops.clear()
        for launched in self._launched_in.values():
            await cancel_and_wait(launched.task)

    # -- runs started on demand -----------------------------------------------------------------

    def launch(
        self, vault_id: str, *, only: list[str] | None = None, progress: Progress | None = None
    ) -> tuple[Launched, bool]:
        """Start a run of `vault_id` in the background, or join the one a caller started (no cancel of it
        under way) when it runs every job asked for: the run and whether it was already running. A run
        of other jobs starts after the one running (and after a run the schedule started) ends."""
        live = self._launched_in.get(vault_id)
        asked = {j.name for j in self.jobs} if only is None else set(only)
        if live is not None and not (live.task.done() or live.task.cancelling()) and asked <= set(live.only or asked):
            return live, True
        run_id = "run-" + secrets.token_hex(6)
        task = asyncio.create_task(self.run(vault_id, only=only, progress=progress, run_id=run_id), name=run_id)
        launched = self._launched_in[vault_id] = self.launched[run_id] = Launched(
            run_id, vault_id, task, time.time(), only
        )
        task.add_done_callback(lambda _: setattr(launched, "ended_at", time.time()))
        while len(self.launched) > KEPT_LAUNCHED:
            del self.launched[next(iter(self.launched))]
        return launched, False

    async def cancel(self, vault_id: str) -> Launched | None:
        """Stop the launched run of `vault_id`: it (its `result`: the jobs it recorded), or None when
        none runs. The job in progress records nothing; once the run is recorded, its auto_apply
        stops after the plan in progress."""
        live = self._launched_in.get(vault_id)
        if live is None or live.task.done():
            return None
        await cancel_and_wait(live.task)
        return live

    def progress_of(self, launched: Launched) -> str:
        """Where a launched run is, in words: queued, its job and count, or how it ended."""
        task = launched.task
        if task.done():
            if task.cancelled():
                return "cancelled"
            if task.exception() is not None:
                return f"failed: {type(task.exception()).__name__}"
            return "done"
        now = self.running.get(launched.vault_id)
        if now is None or now.get("run_id") != launched.run_id:
            return "queued"
        return f"running {now.get('job') or '-'} ({now.get('done', 0)}/{now.get('total', 0)} jobs)"

    async def _loop(self, vault: Vault) -> None:
        while True:
            row = await self.saved(vault.id)
            # Never run: an interval from the vault's first start, kept in `cursor` (not from each
            # restart: a server restarted more often than the interval never ran).
            ended = full_run_end(row)
            last = ended if ended is not None else row["cursor"]
            if last is None:  # a vault's first start: its first run is an interval away
                last = wall()
                await self._save(vault.id, last_run=None, cursor=last, summary=row["summary"])
            trigger = await self._due(vault, last)
            while (left := self.up_in()) > 0:  # a short session's start does not pay for a run
                await nap(min(CHECK_S, left))
            if self.activity is not None:
                await self.activity.quiet()
            try:
                await self.run(vault.id, trigger=trigger)
            except Exception:  # the next interval tries again
                log.exception("consolidation run of %s failed", vault.id)

    async def _due(self, vault: Vault, last: float) -> str:
        due = last + self.settings.interval_minutes * 60
        while True:
            now = wall()
            if now < last:  # the clock went back past the anchor: an interval from now, not once it caught up
                last, due = now, now + self.settings.interval_minutes * 60
            if now >= due:
                return "interval"
            if await self.changed_since(vault.id, last) >= self.settings.after_changes:
                return "changes"
            await asyncio.sleep(min(CHECK_S, due - now))

    def up_in(self) -> float:
        """Seconds until the server has been up `after_start_minutes` (0: it has)."""
        if self.started_at is None:
            return 0.0
        return max(0.0, self.started_at + self.settings.after_start_minutes * 60 - uptime())

    async def changed_since(self, vault_id: str, since: float) -> int:
        row = await self.db.fetchone("SELECT COUNT(*) FROM notes WHERE vault_id = ? AND mtime > ?", (vault_id, since))
        return int(row[0]) if row else 0

    # -- a run ----------------------------------------------------------------------------------

    def missing(self, job: Job, vault: Vault) -> str | None:
        """Why `job` cannot run on `vault` now, or None."""
        for need in job.needs:
            if need == "index":
                indexer = indexer_of(vault)
                if indexer is None or not indexer.ready:
                    return "the vault's index is not ready"
            elif need == "vectors" and not self.embeddings_on:
                return "embeddings are off ([embeddings] provider = 'none')"
            elif need == "llm" and self.gateway.unavailable() is not None:
                return self.gateway.unavailable()
        return None

    async def run(
        self,
        vault_id: str,
        *,
        only: list[str] | None = None,
        progress: Progress | None = None,
        trigger: str = "manual",
        run_id: str | None = None,
    ) -> RunResult:
        """A run of the jobs (`only` those), each recorded as it ends (`_record_job`), then the run's
        end (`_record_end`). A run of every job the schedule starts goes on with an unfinished one
        (`state.goes_on`): its id and start, the jobs it recorded not run again."""
        vault = self.vaults[vault_id]
        lock = self._locks.setdefault(vault_id, asyncio.Lock())
        async with lock:
            saved = await self.saved(vault_id)
            began = wall()
            result = RunResult(run_id or "run-" + secrets.token_hex(6), vault_id, began, trigger=trigger)
            left = goes_on(saved, began, self.settings.interval_minutes * 60)
            before: set[str] = set()
            if left is not None and only is None and trigger != "manual":  # run_consolidation: a whole run
                result.run_id, result.started_at = str(left["run_id"]), float(left["started_at"])
                before = {str(name) for name in left["done"]}
                result.earlier, result.went_on_at = counted_of(left), began  # its counts are the whole run's
                earlier = [r for r in saved["summary"].get("jobs", []) if r.get("run_id") == result.run_id]
                result.jobs = [JobReport(**r) for r in earlier if r.get("job") in before]
            if result.run_id in self.launched:
                self.launched[result.run_id].result = result
            asked = [j for j in self.jobs if only is None or j.name in only]
            partial = {j.name for j in asked} != {j.name for j in self.jobs}
            chosen = [j for j in asked if j.name not in before]
            self.running[vault_id] = {"run_id": result.run_id, "job": None, "done": 0, "total": len(chosen)}
            try:
                recall = self.recall.of(vault)
                await recall.refresh()
                result.kept = kept_of(saved)  # a job that does not run keeps what it kept
                result.cursors = cursors_of(saved)  # and its cursor
                for done, job in enumerate(chosen):
                    self.running[vault_id].update(job=job.name, done=done)
                    if progress is not None:
                        await progress(done, len(chosen), f"consolidation: {job.name}")
                    ctx = self._context(vault, recall, began, job_since(saved, job.name), result.kept.get(job.name))
                    mine: list[Finding] = []
                    report = await self._one(job, ctx, mine)
                    report.run_id = result.run_id
                    window = ctx.since if ctx.since is not None else began - FIRST_WINDOW_S
                    result.cursors[job.name] = began if report.status == "ran" else window
                    await self._record_job(vault_id, result, report, mine, ctx, partial=partial)
                    del ctx, mine  # what the job held (the audit's 100k titles in its `spare`) goes before the next
                await self._record_end(vault_id, result, partial=partial)
                found = list(result.recorded.found)
                if self.dispatch is not None and self.settings.auto_apply and before:  # the part before a stop
                    found[:0] = [f async for f in self.findings.scan(vault_id, status="open", run_id=result.run_id)]
                try:
                    if self.dispatch is not None:
                        kinds = self.settings.auto_apply
                        await auto_apply(self.findings, self.dispatch, vault, found, kinds, result.auto_applied)
                finally:  # also when cancelled: the recorded run names what it applied
                    if result.auto_applied:
                        await asyncio.shield(self._save_applied(vault_id, result))
                if progress is not None:
                    await progress(len(chosen), len(chosen), "consolidation: done")
                log.info(
                    "consolidation of %s: %s (%s) in %.1f s%s",  # counts: the whole run's
                    vault_id,
                    ", ".join(f"{r.job} {r.status} {r.findings}" for r in result.jobs),
                    ", ".join(f"{k} {v}" for k, v in result.counts.items()),
                    result.ended_at - began,
                    f" (the jobs left of {result.run_id})" if before else "",
                )
                return result
            finally:
                self.running.pop(vault_id, None)
                await asyncio.shield(hand_back(result, self.db, self.state))  # whatever its end: its memory back

    def _context(
        self, vault: Vault, recall: Recall, now: float, since: float | None, kept: dict[str, Any] | None
    ) -> JobContext:
        """One job's context (`since`: its own cursor; `kept`: its own memory), dropped at its end."""
        return JobContext(
            vault=vault,
            db=self.db,
            state=self.state,
            recall=recall,
            experiences=self.experiences,
            settings=self.settings,
            memory=self.memory,
            since=since,  # the job's own cursor (`job_since`)
            now=now,
            activity=self.activity,
            gateway=self.gateway,
            all_settings=self.all_settings,
            kept=dict(kept or {}),
        )

    async def _one(self, job: Job, ctx: JobContext, found: list[Finding]) -> JobReport:
        """Run `job`: its report; its findings added to `found`."""
        reason = self.missing(job, ctx.vault)
        if reason is not None:
            return JobReport(job.name, "skipped", reason)
        began = time.perf_counter()
        try:
            mine = await job.run(ctx)
        except asyncio.CancelledError:
            raise
        except GatewayFailed as exc:  # down, slow, garbage or out of budget: skipped, tried next run
            return JobReport(job.name, "skipped", f"inference gateway: {exc}"[:300], 0, time.perf_counter() - began)
        except Exception as exc:  # noqa: BLE001 - reported; the job runs again next time
            log.exception("consolidation job %s failed", job.name)
            return JobReport(job.name, "failed", f"{type(exc).__name__}: {exc}"[:300], 0, time.perf_counter() - began)
        found += mine
        capped = len(mine) >= ctx.settings.max_findings
        why = f"stopped at max_findings ({len(mine)}): the rest once these are applied or dismissed" if capped else None
        return JobReport(job.name, "ran", why, len(mine), round(time.perf_counter() - began, 3), capped=capped)

    # -- state ----------------------------------------------------------------------------------

    async def saved(self, vault_id: str) -> dict[str, Any]:
        return await self.state.run_read(lambda c: saved_in(c, vault_id))

    async def _record_job(
        self,
        vault_id: str,
        result: RunResult,
        report: JobReport,
        mine: list[Finding],
        ctx: JobContext,
        *,
        partial: bool,
    ) -> None:
        """Record one job's findings, report, cursor and own memory in one transaction: a cancel, a
        stop or a kill leaves all of it or none. Its open findings not found again are `gone` when
        it ran whole (not skipped, failed or stopped at `max_findings`), but those it did not look
        at again (`JobContext.spare`). A run of every job is `unfinished` until its end."""
        ran = [report.job] if report.status == "ran" and not report.capped else []
        kept = ctx.kept if report.status == "ran" else None
        for f in mine:
            f.run_id = result.run_id
        order = [j.name for j in self.jobs]

        def own(conn: sqlite3.Connection, recorded: Recorded) -> None:
            saved = saved_in(conn, vault_id)
            left = None
            if not partial:  # what a run that goes on with it counts from (`RunResult.whole`)
                was = unfinished_of(saved)
                done = list(was["done"]) if was is not None and was["run_id"] == result.run_id else []
                left = {"run_id": result.run_id, "started_at": result.started_at, "done": [*done, report.job]}
                left["counts"] = result.whole(recorded)
            cursor = None if partial else result.cursors[report.job]
            upsert(conn, vault_id, *with_job(saved, asdict(report), order, cursor=cursor, kept=kept, unfinished=left))

        recorded = await settled(self.findings.record(vault_id, result.run_id, ran, mine, also=own, spare=ctx.spare))
        result.recorded.add(recorded)
        result.jobs.append(report)
        if kept is not None:
            result.kept[report.job] = kept

    async def _record_end(self, vault_id: str, result: RunResult, *, partial: bool) -> None:
        """Record the run's end in one transaction: the last run, and for a run of every job the
        schedule's anchor and cursor (no longer `unfinished`)."""
        order = [j.name for j in self.jobs]

        def own(conn: sqlite3.Connection) -> None:
            result.counts = result.whole()
            result.ended_at = wall()
            upsert(conn, vault_id, *state_after(saved_in(conn, vault_id), result.summary(), order, partial=partial))

        await settled(self.state.run_write(own))

    async def _save(
        self, vault_id: str, *, last_run: float | None, cursor: float | None, summary: dict[str, Any]
    ) -> None:
        await self.state.run_write(lambda c: upsert(c, vault_id, last_run, cursor, summary))

    async def _save_applied(self, vault_id: str, result: RunResult) -> None:
        """The recorded run's summary names the findings it applied (after it was recorded)."""
        await self.state.run_write(
            lambda c: c.execute(
                "UPDATE plane_state SET summary = json_set(summary, '$.auto_applied', json(?))"
                " WHERE vault_id = ? AND last_run_id = ?",
                (json.dumps(result.auto_applied), vault_id, result.run_id),
            )
        )

    def next_run(self, saved: dict[str, Any]) -> float | None:
        anchor = full_run_end(saved)
        anchor = anchor if anchor is not None else saved["cursor"]
        if not self.settings.enabled or anchor is None:
            return None
        now = wall()  # an anchor ahead of it (the clock went back): from now, as `_due` counts
        return max(min(float(anchor), now) + self.settings.interval_minutes * 60, now + self.up_in())
