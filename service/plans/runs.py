"""The plan runs of this process: the journal, the live runs, background tasks, macros.

`PlanRuns` is the one long-lived object the plan tools reach (`services.plans`). A background
run is an asyncio task tracked here so `get_plan_run` can report its progress and `cancel_plan`
can stop it after its current call; on shutdown (`stop`) every background run is cancelled the
same way (its journal closed as `cancelled`), and a tool call's journaled change still writing
stops at its next file and rolls back before the journal closes (`stopping`, `Journal.drained`).
Finished runs are read back from the journal. At
start-up, `bulk_create_notes` calls a killed process left half done are rolled back
(`service.plans.recovery`), and the journal is pruned (`service.plans.retention`; again after
every run: `prune`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Coroutine, Mapping
from typing import TYPE_CHECKING, Any

from service.errors import ServerStopping
from service.plans.journal import Journal
from service.plans.macros import Macros
from service.plans.recovery import roll_back_interrupted_bulk
from service.plans.retention import prune
from service.settings import PlanSettings
from service.storage.db import Database
from service.tasks import cancel_and_wait
from service.vault.vault import Vault

if TYPE_CHECKING:  # the runner (its checks, graph, effects) loads with the first plan run, not at start
    from service.plans.runner import RunState

log = logging.getLogger(__name__)

KEEP_FINISHED = 200  # finished live states kept in memory for get_plan_run (the journal keeps all)


# How long a stop waits for journaled changes to roll back (about as long as they had been writing);
# past it the journal closes under them and the next start rolls them back.
DRAIN_S = 60.0


class PlanRuns:
    name = "plans"

    def __init__(self, state: Database, vaults: Mapping[str, Vault], settings: PlanSettings) -> None:
        self.journal = Journal(state)
        self.settings = settings
        self.vaults = vaults
        self.macros = Macros(state)
        self.live: dict[str, RunState] = {}
        self._tasks: dict[str, asyncio.Task[Any]] = {}

    def track(self, state: RunState) -> None:
        self.live[state.run_id] = state
        finished = [rid for rid, s in self.live.items() if s.status != "running"]
        for rid in finished[: max(0, len(finished) - KEEP_FINISHED)]:
            self.live.pop(rid, None)

    def background(self, run_id: str, work: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(self._then_prune(work), name=f"plan-{run_id}")
        self._tasks[run_id] = task
        task.add_done_callback(lambda _t: self._tasks.pop(run_id, None))

    async def _then_prune(self, work: Coroutine[Any, Any, Any]) -> Any:
        try:
            return await work
        finally:
            with contextlib.suppress(Exception):
                await asyncio.shield(self.prune())

    async def prune(self) -> int:
        """Apply the journal's retention rule (`service.plans.retention`); returns the runs pruned."""
        return await prune(self.journal.db, keep_runs=self.settings.keep_runs, max_age_days=self.settings.max_age_days)

    def running_in_background(self, run_id: str) -> bool:
        return run_id in self._tasks

    async def wait(self, run_id: str) -> None:
        """Until a background run has finished (tests and shutdown)."""
        task = self._tasks.get(run_id)
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(task)

    async def start(self) -> None:
        await self.journal.recover()
        try:
            await roll_back_interrupted_bulk(self.journal, self.vaults)
        except ServerStopping:
            # The server began to stop (a signal while it starts): the rollback under way took
            # back what it had put back, and the next start rolls the interrupted runs back again.
            # Start-up ends here, so the stop goes on as from a started server (exit status 0).
            log.warning("stopping: the rollback of interrupted changes stopped; the next start takes it up again")
            return
        await self.prune()

    def stopping(self) -> None:
        """The server begins to stop (its first signal, or `stop`): journaled changes still
        writing stop at their next file and roll back, and their calls answer `server_stopping`;
        every plan run, in a request or in the background, starts no call after the one in
        flight (it ends `cancelled`), rather than writing on while uvicorn's grace period runs."""
        self.journal.request_stop()
        for state in self.live.values():
            state.stop.set()

    async def stop(self) -> None:
        self.stopping()
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        for task in tasks:
            await cancel_and_wait(task)
        # A tool call's journaled change (a move rewriting links, a bulk call, an undo) runs in
        # its request's task, shielded: it rolls back now, and needs the journal open for that.
        if not await self.journal.drained(within=DRAIN_S):
            log.warning("stopping: a journaled change still runs after %.0f s; the next start rolls it back", DRAIN_S)
        self.journal.close()
        self.journal.reopen()  # a start of the same object after this one is a start as any other
