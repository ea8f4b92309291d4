"""A human's approval of a whole action plan, for the plan's own calls.

`execute_plan` asks once, with the plan's effects summary as the preview, bound to the plan's
hash (its arguments hash through the confirm layer). While the approved plan runs, the runner
sets `APPROVAL` in its context; the confirm layer (`service.dispatch.confirm`) accepts a step's
call that would need confirmation when an approval for the same vault and caller is set, and
notes it as `confirmed = "plan"` in the audit trail. A context variable is out of any client's
reach: only code running inside the approved execute_plan call (or its background task) sees it.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PlanApproval:
    vault_id: str
    subject: str
    plan_hash: str


APPROVAL: ContextVar[PlanApproval | None] = ContextVar("vaultgate_plan_approval", default=None)


def covers(vault_id: str, subject: str) -> PlanApproval | None:
    """The approval in force for a call in `vault_id` by `subject`, if any."""
    approval = APPROVAL.get()
    if approval is not None and approval.vault_id == vault_id and approval.subject == subject:
        return approval
    return None
