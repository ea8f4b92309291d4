"""memory domain, what adding observations to an entity decides: which texts are new, which it
holds already (skipped: the same words, case, spacing and end punctuation aside, unless the fact
holds again after a change, `repeats.holds_again`) and which say nearly the same as one it had
(`similar`). add_observations, memory_store, process_capture's filing and a plan's preview of them
share it.
Touches: nothing (works on a parsed entity).
"""

from __future__ import annotations

from pydantic import Field

from service.memory.history import History
from service.memory.model import Entity, Observation, normalize_text
from service.tools.memory.repeats import dated_attributes, holds_again
from service.tools.memory.similar import Similar
from service.tools.models import ToolOutput


class SimilarOut(ToolOutput):
    text: str = Field(description="The observation added.")
    existing: str = Field(description="The observation it had that says nearly the same.")
    existing_block_id: str = Field(description="That one's block id.")


def add_to(
    entity: Entity, texts: list[str], category: str | None, fields: dict[str, str], ids: list[str] | None = None
) -> tuple[list[Observation], list[str], list[SimilarOut]]:
    """Add the texts that are not already observations of `entity` (after normalisation; see
    `holds_again` for a fact stated again after a change); the added ones that say nearly the same
    as one it had are reported with it. `ids`: the block ids to give them (one per text, made in the
    order the call listed them), else new ones."""
    day = (fields.get("date") or "").strip()
    asked = {normalize_text(t) for t in texts}  # only an observation stating one of them is looked at again
    repeats = [o for o in entity.observations if normalize_text(o.text) in asked]
    stated = dated_attributes(entity) if repeats and day else []  # read once, not once a repeat
    history = History(entity.observations)
    have = {normalize_text(o.text) for o in repeats if not holds_again(history, o, day, stated)}
    added: list[Observation] = []
    skipped: list[str] = []
    similar: list[SimilarOut] = []
    index = Similar(entity.observations, texts)  # `service.tools.memory.similar`
    for n, text in enumerate(texts):
        key = normalize_text(text)
        if key in have:
            skipped.append(text)
            continue
        near = index.best(n)
        have.add(key)
        obs = Observation(text, category, ids[n] if ids else "", dict(fields))
        obs.render()  # gives it its block id when it has none
        index.added(n, obs)
        if near is not None:
            similar.append(SimilarOut(text=text, existing=near.text, existing_block_id=near.block_id))
        entity.observations.append(obs)
        added.append(obs)
    return added, skipped, similar
