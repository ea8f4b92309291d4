"""Findings a run applies by itself: the kinds `[plane] auto_apply` lists.

Each one's plan goes through `execute_plan` on the whole dispatch chain as `vaultgate-plane`
(validated, journaled, undoable, audited under that name), one plan at a time, after the run is
recorded. A finding is claimed first (`FindingStore.claim`: a dismissed one, or one a caller is
applying, is left alone) and applied only while it holds (`service.plane.holds.holds_now`: its notes
unchanged since the job read them, or what it found still there — an observation a duplicate keeps
that someone deleted meanwhile leaves the duplicate open), marked `applied` only when its plan
run is `done`, and open again otherwise (a plan that needs a human's confirmation — `[plane]
auto_apply` takes no kind whose plan always does, but `[confirmations]` can add one — is left
open, with a warning in the log).
A cancel or a stop lets the plan in progress end, and its finding be marked, before it stops: no
plan is cut in the middle and no claim is left behind. Touches `plane_findings`; the vault only
through the plans it runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from service.plane.findings import Finding, FindingStore
from service.plane.holds import holds_now
from service.types import NestedCall, Principal

if TYPE_CHECKING:
    from service.vault.vault import Vault

log = logging.getLogger(__name__)
PLANE_CALLER = "vaultgate-plane"  # who auto-applied plans run as (the audit log names it)


async def auto_apply(
    findings: FindingStore,
    dispatch: NestedCall,
    vault: Vault,
    found: list[Finding],
    kinds: list[str],
    applied: list[str],
) -> None:
    """Apply the findings in `found` of the `kinds` listed (`[plane] auto_apply`), adding the id of
    each one applied to `applied` as it is."""
    for f in found:
        if f.kind in kinds and f.plan is not None:
            one = asyncio.ensure_future(_apply(findings, dispatch, vault, f, applied))
            try:
                await asyncio.shield(one)
            except asyncio.CancelledError:
                while not one.done():  # the plan in progress ends first, however often the run is cancelled
                    with contextlib.suppress(asyncio.CancelledError):
                        await asyncio.wait({one})
                raise


async def _apply(findings: FindingStore, dispatch: NestedCall, vault: Vault, f: Finding, applied: list[str]) -> None:
    vault_id = vault.id
    if not await findings.claim(vault_id, f.id):
        return  # dismissed by a person (never applied by the plane), or a caller is applying it
    done = False
    try:
        with contextlib.suppress(Exception):
            if not holds_now(vault, f):
                return  # changed since it was found: open, for a person or the next run
            result = await dispatch(
                "execute_plan", {"plan": f.plan, "vault": vault_id}, principal=Principal.local(PLANE_CALLER)
            )
            structured = result.structured or {}
            if not result.is_error and result.input_required is None and structured.get("status") == "done":
                run_id = structured.get("run_id")
                await findings.mark(f.id, "applied", run_id=str(run_id) if run_id else None)
                applied.append(f.id)
                done = True
            elif result.input_required is not None or _asks(structured):
                log.warning("auto_apply: the plan of %s finding %s asks a human (left open)", f.kind, f.id)
    finally:
        if not done:
            await findings.release(f.id)


def _asks(structured: dict[str, Any]) -> bool:
    """Whether execute_plan's answer says a step needs a human (the plan, or one of its calls)."""
    errors = [structured.get("error")]
    errors += [e for s in structured.get("steps") or [] if isinstance(s, dict) for e in s.get("errors") or []]
    return any(isinstance(e, dict) and e.get("code") == "elicit_required" for e in errors)
