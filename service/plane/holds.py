"""Whether a finding about observations of one entity still holds on its note as it is now.

`apply_finding` refuses a finding whose notes changed since it was found (their etags), since what
it found may be gone. A finding about two observations of one entity (a duplicate, a near duplicate,
a contradiction) names them by block id and text: when its note changed only elsewhere — most often
by the plan of another finding about the same entity, applied just before — both are still there as
they were, and the finding holds. It holds when the note is still that entity's, both observations
are there under their block ids with the texts found (once each; none marked superseded but a
contradiction's newer one, which still replaced the older), a duplicate to delete is named by no
observation's `superseded_by`, and a contradiction's older one still comes first (its date, else the
date its text gives, else `recorded`, else its place in the note: `contradictions.fact_date`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from service.memory.history import History
from service.memory.model import parse
from service.plane.contradictions import fact_date
from service.plane.findings import Finding

if TYPE_CHECKING:
    from service.vault.vault import Vault

_NAMED = {
    "duplicate": ("kept", "duplicate"),
    "near_duplicate": ("kept", "duplicate"),
    "contradiction": ("older", "newer"),
}


def still_holds(found: Finding, text: str) -> bool:
    """Whether `found` still holds on its one note, whose text is now `text`."""
    names = _NAMED.get(found.kind)
    if names is None or len(found.paths) != 1:
        return False
    entity = parse(text)
    if entity.name != found.detail.get("entity"):
        return False
    history = History(entity.observations)
    cited = history.cited(entity.observations)
    at: list[int] = []
    for role in names:
        block, said = found.detail.get(f"{role}_block_id"), found.detail.get(role)
        places = [i for i, o in enumerate(entity.observations) if block and o.block_id == block]
        if len(places) != 1:
            return False
        obs = entity.observations[places[0]]
        if obs.text != said or (history.ended(obs) and role != "newer"):
            return False  # a newer one superseded since still replaced the older
        at.append(places[0])
    if found.kind == "contradiction":
        older, newer = (entity.observations[i] for i in at)
        return (fact_date(older), at[0]) < (fact_date(newer), at[1])
    return found.detail.get("duplicate_block_id") not in cited  # no supersession names the one deleted


def holds_now(vault: Vault, found: Finding) -> bool:
    """Whether the notes `found` is about are as they were when it was found (their etags), or it
    still holds on them (`still_holds`): what `apply_finding` checks, and `auto_apply` too."""
    for path, etag in found.etags.items():
        vp = vault.paths.resolve(path, allow_hidden=True)
        current = vault.files.current_etag(vp)
        if current != etag and (current is None or not still_holds(found, vault.files.read(vp).content)):
            return False
    return True
