"""apply_finding's run of a finding's plan: the notes it is about checked first (their etags, or
the finding still holding on them: `service.plane.holds`), then `execute_plan` on the whole chain
(for a dry run, its effects); and what apply_finding tells of a finding with no plan (`no_plan_hint`)."""

from __future__ import annotations

from typing import Any

from service.errors import Conflict, Forbidden, ValidationFailed
from service.plane.findings import Finding
from service.plane.holds import still_holds
from service.tools.context import ToolContext


async def run_plan(
    ctx: ToolContext, found: Finding, elicit_token: str | None, *, dry_run: bool = False
) -> dict[str, Any]:
    """Run the claimed finding's plan, its notes unchanged since it was found; execute_plan's
    answer, or `conflict` when a note changed or the run did not complete."""
    assert found.plan is not None
    for path, etag in found.etags.items():
        vp = ctx.resolve(path, "read")
        current = ctx.vault.files.current_etag(vp)
        if current != etag and (current is None or not still_holds(found, ctx.vault.files.read(vp).content)):
            what = "changed" if current is not None else "is no longer there (moved, renamed or deleted)"
            raise Conflict(
                f"{path!r} {what} since the finding was made: run the consolidation again",
                details={"finding_id": found.id, "path": path, "expected_etag": etag, "current_etag": current},
                hint="run_consolidation finds it again on the notes as they are now; apply the new finding.",
            )
    inner: dict[str, Any] = {"plan": found.plan, "vault": ctx.vault.id} | ({"dry_run": True} if dry_run else {})
    if elicit_token is not None:
        inner["elicit_token"] = elicit_token
    try:
        result = await ctx.run_nested("execute_plan", inner)  # asks a human where the plan's steps need one
    except ValidationFailed as refused:  # the vault no longer lets the plan run (a step's note is there now…)
        problems = refused.details.get("problems", [])
        scopes = [p for p in problems if isinstance(p, dict) and p.get("code") == "forbidden"]
        if scopes:  # the caller's token, not the vault: running the consolidation again would not help
            raise Forbidden(
                f"applying this finding needs a scope your token lacks: {scopes[0].get('message', '')}",
                details={"finding_id": found.id, "problems": scopes},
                hint="Ask for a token with the scope the problems name, or leave the finding to an agent that has "
                "it; the finding stays open.",
            ) from refused
        raise Conflict(
            "the finding's plan cannot run on the vault as it is now: the finding stays open",
            details={
                "finding_id": found.id,
                "run_id": None,
                "run_status": None,
                "problems": refused.details.get("problems", []),
            },
            hint="the problems name the step that would fail; run_consolidation finds it on the notes as they are now.",
        ) from refused
    run: dict[str, Any] = result.structured or {}
    if run.get("status") != ("dry-run" if dry_run else "done"):
        failed = [s for s in run.get("steps", []) if isinstance(s, dict) and s.get("status") != "ok"]
        raise Conflict(
            f"the finding's plan did not complete (run {run.get('status')}): the finding stays open",
            details={
                "finding_id": found.id,
                "run_id": run.get("run_id"),
                "run_status": run.get("status"),
                "steps": failed,
            },
            hint="the steps' errors say why; get_plan_run shows the run, undo_last_plan reverses what it did.",
        )
    return run


_NO_PLAN = {  # why a kind (or one finding of a kind) comes without a plan, and what a person can do
    kind: "Its observations have no block id (^id) a plan could name them by (a line written by hand): edit "
    "the note, or give the lines block ids and run the job again; dismiss_finding closes it."
    for kind in ("duplicate", "near_duplicate", "contradiction")
} | {
    "duplicate_entity": "The memory tools cannot tell the two notes apart by name (one name, or names alike but "
    "for letter case): merge them by hand in the vault; dismiss_finding closes it."
}


def no_plan_hint(kind: str) -> str:
    """What a person can do with a finding that has no plan (apply_finding's refusal)."""
    return _NO_PLAN.get(kind, "A person acts on it by hand (list_findings shows it); dismiss_finding closes it.")
