"""memory domain, merge_observations: one entity's observation lines carried into another's note
as written — the consolidation plane's `duplicate_entity` plan runs it before it deletes the
merged entity.

Each line keeps its block id (so `[[Merged#^id]]`, which the plan's rewrite_links makes
`[[Kept#^id]]`, still lands on it), its `recorded`, `by`, `source`, `superseded_by` and every other
inline field, its category and its wording. The lines come only from the merged entity's note,
read by the server with the caller's read permission: the arguments name the two entities and
nothing else, so no call can give an observation a `by` or a block id of its choosing (what it
could write into a note by hand it could as well write into the kept one).

Block ids: a line the kept note already holds, as written (a merge run twice, a fact copied by
hand), is not copied again. A block id the kept note already uses for another observation
(any letter case, as Obsidian compares them) refuses the merge (`validation_error`, reason
`block_id_taken`, the ids listed), nothing written: a copy under another id would leave every
`[[Merged#^id]]`, once repointed, on the kept note's own, other fact — a link quietly landing on
the wrong statement. A person renames one of the two blocks (and its links) first. A line holding
an unpaired `%%` (hand-written) refuses it too (`comment_marker`): it would open a comment hiding
the rest of the kept note.
Touches: the kept entity's note (one write; the merged one is read).
"""

from __future__ import annotations

import re
from dataclasses import replace

from pydantic import Field

from service.errors import ValidationFailed
from service.markdown.fences import mask_inline_code
from service.memory.model import Entity, Observation
from service.memory.store import EntityStore, Loaded
from service.tools.context import ToolContext
from service.tools.memory.names import entity_name
from service.tools.memory.writing import WRITE, entity_store
from service.tools.models import ToolInput, ToolOutput
from service.tools.spec import ToolSpec

_POINTER = re.compile(r"\[superseded_by:: [^\]]*\]")


class MergeObservationsIn(ToolInput):
    entityName: str = Field(max_length=10_000, description="The entity kept: the lines are added to its note.")  # noqa: N815
    mergedName: str = Field(  # noqa: N815
        max_length=10_000, description="The entity merged into it: its observation lines are copied (its note is read)."
    )


class MergeObservationsOut(ToolOutput):
    path: str = Field(description="The kept entity's note.")
    copied: int = Field(description="Observation lines added to it.")
    block_ids: list[str] = Field(description="The added lines' block ids, in order ('' for a line with none).")
    already_there: int = Field(description="Lines the kept note already held as written (not added again).")


def _line(obs: Observation) -> str:
    """`obs`'s line as written but for its list marker (`* `, `1. `: a line copied into the kept
    note's list takes that list's, `service.memory.body`)."""
    return (obs.raw if obs.raw is not None else obs.render())[len(obs.marker) :]


def _bare(obs: Observation) -> str:
    """`obs`'s line but for its block id and where its `superseded_by` points: the line of one fact
    whose history was mended since (`superseded_by` moved or cleared) is the same line."""
    line = _line(obs)
    if obs.block_id and line.endswith(f"^{obs.block_id}"):
        line = line[: -len(obs.block_id)]
    return _POINTER.sub("[superseded_by:: ]", line)


def carried(kept: Entity, lines: list[Observation]) -> tuple[list[Observation], int]:
    """The observations of `lines` to add to `kept` (copies) and how many it already held: as
    written, or for one with a block id, the same line under that id (its `superseded_by` aside).
    `block_id_taken` when a line's block id is `kept`'s for another observation (the module's rules)."""
    held = {_line(o) for o in kept.observations}
    by_id = {o.block_id.lower(): o for o in kept.observations if o.block_id}
    out: list[Observation] = []
    taken: list[str] = []
    there = 0
    for obs in lines:
        other = by_id.get(obs.block_id.lower()) if obs.block_id else None
        if other is not None and _bare(other) != _bare(obs):
            taken.append(obs.block_id)
        elif other is not None or _line(obs) in held:
            there += 1
        else:
            out.append(replace(obs, fields=dict(obs.fields)))
            held.add(_line(obs))
            if obs.block_id:
                by_id[obs.block_id.lower()] = obs
    _no_comment_opened(lines)
    if taken:
        raise ValidationFailed(
            f"the kept entity's note uses {len(taken)} of the merged entity's block ids for other observations",
            details={"field": "mergedName", "reason": "block_id_taken", "block_ids": taken[:50]},
            hint="Copied under other ids, links to these blocks would land on other facts once repointed: "
            "rename the block in one of the two notes (and the links to it), then merge again.",
        )
    return out, there


def _no_comment_opened(lines: list[Observation]) -> None:
    """`comment_marker` when a line to copy holds an unpaired `%%` outside inline code (as the note
    reader takes it): copied as written, it would open a comment hiding every later line of the
    kept note (its relations too) from Obsidian and from the memory tools."""
    opening = [o.block_id or _line(o)[:80] for o in lines if mask_inline_code(_line(o)).count("%%") % 2]
    if opening:
        raise ValidationFailed(
            f"{len(opening)} of the merged entity's lines hold an unpaired '%%', which would open a comment "
            "hiding the rest of the kept note",
            details={"field": "mergedName", "reason": "comment_marker", "block_ids": opening[:50]},
            hint="Pair or remove the '%%' in the merged entity's note, then merge again.",
        )


def _pair(ctx: ToolContext, args: MergeObservationsIn) -> tuple[EntityStore, str, Loaded]:
    """The store, the kept entity's name (there) and the merged entity's note (read)."""
    store = entity_store(ctx)
    name = entity_name(ctx, store, args.entityName, "entityName")
    merged = entity_name(ctx, store, args.mergedName, "mergedName")
    store.must_exist(name, "write")
    source = store.require(merged, "read")
    if source.vp.rel == store.path_of(name, "write").rel:
        raise ValidationFailed(
            f"{args.mergedName!r} and {args.entityName!r} are one entity's note ({source.vp.rel})",
            details={"field": "mergedName", "reason": "same_entity", "path": source.vp.rel},
            hint="Name two different entities: the one kept and the one merged into it.",
        )
    return store, name, source


def merge_refusal(ctx: ToolContext, args: MergeObservationsIn) -> None:
    """The call's refusal of the two notes as they are now, nothing written (a dry-run vault's
    preview: `service.tools.memory.previews`)."""
    store, name, source = _pair(ctx, args)
    carried(store.require(name, "write").entity, list(source.entity.observations))


async def merge_observations(ctx: ToolContext, args: MergeObservationsIn) -> MergeObservationsOut:
    store, name, source = _pair(ctx, args)
    lines = list(source.entity.observations)
    result: dict[str, tuple[list[Observation], int]] = {}

    def change(entity: Entity) -> bool:
        result["r"] = carried(entity, lines)  # as the kept note is now (a retry reads it again)
        entity.observations.extend(result["r"][0])
        return bool(result["r"][0])

    done = await store.update(name, change, size=len(source.text))
    added, there = result["r"]
    return MergeObservationsOut(
        path=done.vp.rel,
        copied=len(added),
        block_ids=[o.block_id for o in added],
        already_there=there,
    )


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="merge_observations",
        domain="memory",
        title="Merge observations",
        description="Copy every observation line of a memory entity (mergedName) into another's note "
        "(entityName) as written: block ids, recorded, by, source and superseded_by kept, so links to its "
        "blocks still land once repointed. A line already there is skipped; a block id the kept note uses for "
        "another observation refuses the merge (validation_error, nothing written).",
        input_model=MergeObservationsIn,
        output_model=MergeObservationsOut,
        handler=merge_observations,
        tags=("memory",),
        **WRITE,  # type: ignore[arg-type]
    ),
)
