"""memory domain, what every tool that writes entity notes shares: the caller's entity store,
the checks of an observation's text, its provenance fields, and `all_or_nothing` — the changes of
several entity notes in one call, all or nothing, also across a kill -9.
Touches: the memory folder's notes (through `service.memory.store`), the plans journal.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from service.errors import ValidationFailed
from service.memory.model import one_line
from service.memory.store import EntityStore
from service.obs.sessions import caller_hash
from service.plans.recovery import journaled
from service.tools.context import ToolContext
from service.vault.commit import Action, commit

MAX_OBSERVATION = 10_000  # characters
_WIKILINK = re.compile(r"\[\[[^\[\]]+\]\]")


def entity_store(ctx: ToolContext) -> EntityStore:
    memory = ctx.services.settings.memory
    return EntityStore(
        ctx.vault.id,
        ctx.vault.files,
        memory.folder,
        lambda p, op: ctx.resolve(p, op),  # type: ignore[arg-type]
        inbox=memory.inbox,
    )


async def all_or_nothing(ctx: ToolContext, actions: Sequence[Action], goal: str) -> None:
    """Run the changes of several entity notes all or nothing: a failure or a cancelled call
    puts back the notes already written (`service.vault.commit`), and a process killed in the
    middle leaves a journal the next start rolls back (`service.plans.recovery`)."""
    if len(actions) <= 1:
        for action in actions:
            await action()
        return
    caller = caller_hash(ctx.principal.subject)
    async with journaled(ctx.services.plans.journal, ctx.vault.id, caller, goal):
        await commit(actions, ctx.steps(goal))


def observation_text(text: str, field: str) -> str:
    clean = one_line(text)
    if not clean or len(clean) > MAX_OBSERVATION:
        raise ValidationFailed(
            f"an observation is 1 to {MAX_OBSERVATION} characters",
            details={"field": field, "reason": "empty" if not clean else "too_long"},
        )
    return clean


def provenance(ctx: ToolContext, source: str | None = None, date: str | None = None) -> dict[str, str]:
    fields = {"recorded": dt.date.today().isoformat(), "by": caller_hash(ctx.principal.subject)[:8]}
    if date:
        fields["date"] = one_line(date)[:40].replace("]", ")")
    if source:
        clean = one_line(source)[:300]
        fields["source"] = clean if _WIKILINK.fullmatch(clean) else clean.replace("]", ")")  # [[Note]] stays a link
    return fields


# The spec fields every memory tool that writes entity notes shares.
WRITE = {
    "scopes": ("write:vault",),
    "scope_class": "write",
    "mutating": True,
    "idempotent": False,
    "reads_index": False,
}
