"""Running a checked plan: each call through the dispatch chain, journaled, with progress.

Steps start in the checked order (dependencies first) as soon as the steps they must follow have
finished (`Checked.after`, `service.plans.schedule`: dependencies, and any earlier step they could
interfere with), up to `concurrency` at a time (`[plans] max_concurrency`; file writes are also
bounded by the vault's `writes.max_concurrent`, and every call meets the throttle); the calls of
one `foreach` step run one after the other. With `concurrency` 1, or a `Checked` without
`after`, the steps run strictly one at a time, in the run's own task (`_in_order`). Each call goes through the
`Caller` — the tool layer's adapter over `services.dispatch`, the same chain as a direct call
(ACL, throttle, idempotency, confirmation, audit) — with the journal's recorder set in the
context (`service.vault.journal.RECORDER`), so every file the call changes is journaled first.

- Progress: after every call, `report(done, total, message)`; `total` is the estimate after
  `foreach` expansion, revised when a run-time list becomes known (values only grow).
- Cancellation: a call is never cut short (it runs shielded); `stop` (cancel_plan) is checked
  before each call and before each step starts, and a cancellation of the surrounding task (the
  MCP cancel of execute_plan) is taken at the checkpoint after each call in flight. Either way
  the run ends `cancelled` with every finished call journaled (the journal's sequence is the
  order the changes happened), so `undo_last_plan` can reverse exactly what ran.
- Throttling: a `throttled` call waits for the token bucket and runs again (the plan is paced
  by the caller's rate limit like any other caller; it does not count as a retry).
- Failures: `retry` repeats a call whose error is retryable; then the step's `onError` decides:
  `stop` ends the run (`failed`: no step starts any more; steps already running alongside it
  finish and are reported), `skip` skips the steps depending on it, `continue` goes on.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import anyio
import anyio.lowlevel

from service.plans.check import Checked
from service.plans.journal import Journal, Recorder, StepRecorder
from service.plans.model import Step
from service.plans.refs import RefError, Scope, Unresolved, not_a_list, resolve
from service.types import ProgressFn
from service.vault.journal import RECORDER

StepStatus = Literal["ok", "failed", "skipped", "cancelled", "not_run"]
MAX_ERRORS_KEPT = 5
MAX_RESULT_CHARS = 20_000
MAX_THROTTLE_WAITS = 100  # per call; then `throttled` is the call's error
MAX_THROTTLE_WAIT = 30.0  # seconds per wait
CHECKPOINT_S = 0.5  # a running run stores its calls and outcomes at most this often (`_progress`)


@dataclass(frozen=True, slots=True)
class CallError:
    code: str
    message: str
    retryable: bool = False
    retry_after: float | None = None  # `throttled`: seconds until the bucket has a token again
    details: dict[str, Any] | None = None  # the error's, as the call answers it (a plan's check tells them)
    hint: str | None = None


class Caller(Protocol):
    async def __call__(self, tool: str, args: dict[str, Any], /) -> tuple[dict[str, Any] | None, CallError | None]:
        """Run one tool call through the dispatch chain as the plan's caller, in the plan's vault."""


@dataclass
class StepOutcome:
    id: str
    tool: str
    status: StepStatus = "not_run"
    calls: int = 0
    failed_calls: int = 0
    errors: list[dict[str, str]] = field(default_factory=list)
    result: Any = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tool": self.tool,
            "status": self.status,
            "calls": self.calls,
            "failed_calls": self.failed_calls,
            "errors": self.errors,
            "result": self.result,
        }


@dataclass
class RunState:
    run_id: str
    outcomes: list[StepOutcome]
    done: int = 0
    total: int = 0
    status: str = "running"
    stop: anyio.Event = field(default_factory=anyio.Event)
    estimates: dict[str, int] = field(default_factory=dict)  # calls per step counted in `total`


class Runner:
    def __init__(
        self, journal: Journal, caller: Caller, report: ProgressFn | None = None, *, concurrency: int = 1
    ) -> None:
        self.journal = journal
        self.caller = caller
        self.report = report
        self.concurrency = max(1, concurrency)
        self._reporting = anyio.Lock()
        self._stored_at = time.monotonic()  # the last checkpoint (`_progress`)

    async def run(self, checked: Checked, state: RunState) -> RunState:
        recorder = self.journal.recorder(state.run_id)
        scope = Scope(params=dict(checked.params))
        state.total = checked.effects.estimated_steps
        state.estimates = dict(checked.estimates)
        try:
            if checked.after is not None and self.concurrency > 1:
                await self._schedule(checked, state, scope, recorder, checked.after)
            else:
                await self._in_order(checked, state, scope, recorder)
            state.status = _final(state)
        except BaseException as exc:  # closed whatever ended it: an open run holds a stopping server
            state.status = "cancelled" if isinstance(exc, anyio.get_cancelled_exc_class()) else "failed"
            with anyio.CancelScope(shield=True):
                await self._close(state)
            raise
        await self._close(state)
        return state

    async def _in_order(self, checked: Checked, state: RunState, scope: Scope, recorder: Recorder) -> None:
        """One step at a time, in run order, in this task: `_schedule` with every step after all
        the earlier ones, without a task and a stream message per step."""
        by_id = {o.id: o for o in state.outcomes}
        failed: set[str] = set()  # steps whose dependents are skipped
        for step in checked.order:
            outcome = by_id[step.id]
            if state.stop.is_set():
                return
            if checked.deps.get(step.id, set()) & failed:
                outcome.status = "skipped"
                failed.add(step.id)
                continue
            stopped = await self._step(step, outcome, scope, recorder, state)
            if outcome.status == "failed" and step.on_error != "continue":
                failed.add(step.id)
            if stopped or (outcome.status == "failed" and step.on_error == "stop"):
                return

    async def _schedule(
        self, checked: Checked, state: RunState, scope: Scope, recorder: Recorder, after: dict[str, set[str]]
    ) -> None:
        """Start each step, in run order, once the steps of its `after` set have finished, at most
        `concurrency` at a time; after a stop (onError stop, cancel_plan) none starts, and those
        in flight finish."""
        by_id = {o.id: o for o in state.outcomes}
        pending = list(checked.order)
        failed: set[str] = set()  # steps whose dependents are skipped
        running: set[str] = set()
        halted = False
        send, receive = anyio.create_memory_object_stream[str](len(pending) + 1)

        async def one(step: Step) -> None:
            stopped = await self._step(step, by_id[step.id], scope, recorder, state)
            await send.send(step.id if not stopped else f"!{step.id}")

        steps = {s.id: s for s in checked.order}
        waiting = {sid: len(needs) for sid, needs in after.items()}  # unfinished steps each waits for
        followers: dict[str, list[str]] = {}
        for sid, needs in after.items():
            for need in needs:
                followers.setdefault(need, []).append(sid)

        def finish(sid: str) -> None:
            for follower in followers.get(sid, ()):
                waiting[follower] -= 1

        async with send, receive, anyio.create_task_group() as tg:
            while True:
                progressed = True
                while progressed and not halted and not state.stop.is_set():
                    progressed = False
                    for step in list(pending):
                        if len(running) >= self.concurrency:
                            break
                        if waiting.get(step.id, 0) > 0:
                            continue
                        pending.remove(step)
                        progressed = True
                        if checked.deps.get(step.id, set()) & failed:
                            by_id[step.id].status = "skipped"
                            failed.add(step.id)
                            finish(step.id)
                            break  # more steps may be ready now: scan again from the first
                        running.add(step.id)
                        tg.start_soon(one, step)
                if not running:
                    return
                done = await receive.receive()
                step_id = done.lstrip("!")
                running.discard(step_id)
                finish(step_id)
                outcome, step = by_id[step_id], steps[step_id]
                if outcome.status == "failed" and step.on_error != "continue":
                    failed.add(step_id)
                if done.startswith("!") or (outcome.status == "failed" and step.on_error == "stop"):
                    halted = True

    async def _close(self, state: RunState) -> None:
        for outcome in state.outcomes:
            if state.status == "cancelled" and outcome.status == "not_run":
                outcome.status = "cancelled"
        await self.journal.close_run(state.run_id, state.status, [o.as_dict() for o in state.outcomes], state.done)

    async def _step(self, step: Step, outcome: StepOutcome, scope: Scope, recorder: Recorder, state: RunState) -> bool:
        """Run one step's calls; returns True when the run must stop (cancelled)."""
        try:
            items: list[Any] = [None]
            if step.foreach is not None:
                found = resolve(step.foreach, scope, f"{step.id}.foreach")
                if not isinstance(found, list):
                    raise RefError(not_a_list(found))
                items = found
                state.total += len(items) - state.estimates.get(step.id, 1)  # the list is known now
        except (RefError, Unresolved) as exc:
            _fail(outcome, CallError("bad_reference", str(exc)))
            return False
        results: list[Any] = []
        for index, item in enumerate(items):
            if state.stop.is_set():
                outcome.status = "cancelled"  # cut short: `calls` tells how far it got
                return True
            call_scope = Scope(scope.params, scope.steps, (step.item_name, item) if step.foreach is not None else None)
            try:
                args = resolve(step.args, call_scope, f"{step.id}.args")
            except (RefError, Unresolved) as exc:
                _fail(outcome, CallError("bad_reference", str(exc)))
                results.append(None)
                if step.on_error == "stop":
                    break
                continue
            call_id = step.id if step.foreach is None else f"{step.id}[{index}]"
            result, error = await self._call(step, args, recorder.for_step(call_id))
            outcome.calls += 1
            results.append(result)
            if error is not None:
                _fail(outcome, error)
            elif outcome.status == "not_run":
                outcome.status = "ok"
            last = outcome.calls == len(items)  # a step's end is always stored
            await self._progress(state, f"{step.id} ({step.tool}): {outcome.calls}/{len(items)}", store=last)
            if error is not None and step.on_error == "stop":
                break
            try:
                await anyio.lowlevel.checkpoint_if_cancelled()  # a pending cancellation of the call stops here
            except anyio.get_cancelled_exc_class():
                if index + 1 < len(items):
                    outcome.status = "cancelled"
                raise
        value: Any = results if step.foreach is not None else (results[0] if results else None)
        scope.steps[step.id] = value
        if step.capture_as:
            scope.steps[step.capture_as] = value
            text = json.dumps(value, ensure_ascii=False)
            outcome.result = value if len(text) <= MAX_RESULT_CHARS else {"truncated": True, "chars": len(text)}
        if outcome.status == "not_run" and not items:
            outcome.status = "ok"
        return False

    async def _call(
        self, step: Step, args: dict[str, Any], recorder: StepRecorder
    ) -> tuple[dict[str, Any] | None, CallError | None]:
        attempts = step.retry.attempts if step.retry is not None else 1
        delay = (step.retry.backoff_ms if step.retry is not None else 0) / 1000
        token = RECORDER.set(recorder)
        attempt, waits = 1, 0
        try:
            while True:
                with anyio.CancelScope(shield=True):  # a started call always finishes
                    result, error = await self.caller(step.tool, args)
                if error is not None and error.retry_after is not None and waits < MAX_THROTTLE_WAITS:
                    waits += 1  # paced by the throttle, like any caller: wait for the next token
                    await anyio.sleep(min(error.retry_after, MAX_THROTTLE_WAIT))
                    continue
                if error is None or not error.retryable or attempt >= attempts:
                    return result, error
                attempt += 1
                await anyio.sleep(delay)
                delay *= 2
        finally:
            RECORDER.reset(token)

    async def _progress(self, state: RunState, message: str, *, store: bool = False) -> None:
        """Count one finished call and report it: calls in flight together count and report in
        turn (a fair lock), so each call gets one notification and `done` only grows. At most
        every `CHECKPOINT_S` the count and the steps' outcomes are stored too, so a run whose
        process is killed reports how far it got once it is `interrupted` (`store`: now)."""
        with anyio.CancelScope(shield=True):  # a finished call is always counted
            if self.report is None:  # nobody listens: count it
                state.done += 1
                state.total = max(state.total, state.done)
            else:
                await self._report(state, message)
            now = time.monotonic()
            if store or now - self._stored_at >= CHECKPOINT_S:
                self._stored_at = now
                outcome = [o.as_dict() for o in state.outcomes]
                await self.journal.checkpoint(state.run_id, state.done, state.total, outcome)

    async def _report(self, state: RunState, message: str) -> None:
        async with self._reporting:
            state.done += 1
            state.total = max(state.total, state.done)
            assert self.report is not None
            await self.report(state.done, state.total, message)


def _fail(outcome: StepOutcome, error: CallError) -> None:
    outcome.status = "failed"
    outcome.failed_calls += 1
    if len(outcome.errors) < MAX_ERRORS_KEPT:
        outcome.errors.append({"code": error.code, "message": error.message[:500]})


def _final(state: RunState) -> str:
    if state.stop.is_set() and any(o.status in ("not_run", "cancelled") for o in state.outcomes):
        return "cancelled"
    if any(o.status == "failed" for o in state.outcomes):
        return "failed"
    return "done"
