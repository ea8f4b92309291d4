"""memory domain, merge_observations: one entity's observation lines carried into another's note
as written — the consolidation plane's `duplicate_entity` plan runs it before it deletes the
merged entity.

Each line keeps its block id (so `[[Merged#^id]]`, which the plan's rewrite_links makes
`[[Kept#^id]]`, still lands on it), its `recorded`, `by`, `source`, `superseded_by` and every other
inline field, its category and its wording. The lines come only from the merged entity's note,
read by the server with the caller's read permission: the arguments name the two entities and
nothing else, so no call can give an observation a `by` or a block id of its choosing (what it
could write into a note by hand it could as well write into the kept one).

Block ids: a line the kept note already holds, as written (or under the `-N` id a merge gave
it, its pointers following), is not copied again (a merge run twice, a fact copied by hand); a
line whose block id the kept note (or a line copied before it) already uses for another
observation gets `<id>-2` (`-3`… the first one free, in any letter case, as Obsidian compares
them), and the `superseded_by` pointers of the copied lines to it follow; the answer lists each
such change (`renamed`), as links to `[[Merged#^id]]` then land on the kept note's own `^id`.
Touches: the kept entity's note (one write; the merged one is read).
"""

from __future__ import annotations

import re
from dataclasses import replace

from pydantic import Field

from service.errors import ValidationFailed
from service.memory.model import Entity, Observation
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


class RenamedOut(ToolOutput):
    old: str = Field(description="The block id the line had in the merged entity's note.")
    new: str = Field(description="Its block id in the kept note (the old one was taken there).")


class MergeObservationsOut(ToolOutput):
    path: str = Field(description="The kept entity's note.")
    copied: int = Field(description="Observation lines added to it.")
    block_ids: list[str] = Field(description="The added lines' block ids, in order ('' for a line with none).")
    already_there: int = Field(description="Lines the kept note already held as written (not added again).")
    renamed: list[RenamedOut] = Field(
        default_factory=list, description="Copied lines whose block id the kept note already used for another one."
    )


def _with_id(obs: Observation, new: str) -> Observation:
    """`obs` under the block id `new`, its line as written but for its `^id`."""
    raw = obs.raw
    if raw is not None and raw.endswith(f"^{obs.block_id}"):
        raw = raw[: -len(obs.block_id)] + new
    return replace(obs, block_id=new, raw=raw, fields=dict(obs.fields))


def _pointing(obs: Observation, ids: dict[str, str]) -> Observation:
    """`obs` with its `superseded_by` following a renamed block id (`ids`: old -> new)."""
    ref = obs.fields.get("superseded_by", "").strip()
    new = ids.get(ref.lstrip("^").lower())
    if new is None or new.lower() == ref.lstrip("^").lower():
        return obs
    raw = obs.raw
    if raw is not None:
        raw = raw.replace(f"[superseded_by:: {obs.fields['superseded_by']}]", f"[superseded_by:: ^{new}]", 1)
    return replace(obs, raw=raw, fields=obs.fields | {"superseded_by": f"^{new}"})


def _line(obs: Observation) -> str:
    return obs.raw if obs.raw is not None else obs.render()


def _bare(obs: Observation) -> str:
    """`obs`'s line but for its block id and where its `superseded_by` points: a line copied under
    another id (and its pointers following) is the same line."""
    line = _line(obs)
    if obs.block_id and line.endswith(f"^{obs.block_id}"):
        line = line[: -len(obs.block_id)]
    return _POINTER.sub("[superseded_by:: ]", line)


def carried(kept: Entity, lines: list[Observation]) -> tuple[list[Observation], int, list[RenamedOut]]:
    """The observations of `lines` to add to `kept` (copies; see the module's rules on block ids),
    how many it already held, and the block ids changed. A line is already held when `kept` has it
    as written, or, for one with a block id, the same line under that id or one of its `-N` forms
    (the form a merge gave it before), so a merge run again adds nothing."""
    held = {_line(o) for o in kept.observations}
    by_id = {o.block_id.lower(): o for o in kept.observations if o.block_id}
    out: list[Observation] = []
    ids: dict[str, str] = {}  # a merged line's block id (lower case) -> its id in the kept note
    renamed: list[RenamedOut] = []
    there = 0
    for obs in lines:
        if not obs.block_id:
            if _line(obs) in held:
                there += 1
            else:
                out.append(replace(obs, fields=dict(obs.fields)))
                held.add(_line(obs))
            continue
        n, bare = 1, _bare(obs)
        while True:
            new = obs.block_id if n == 1 else f"{obs.block_id}-{n}"
            other = by_id.get(new.lower())
            if other is None or _bare(other) == bare:
                break
            n += 1
        ids.setdefault(obs.block_id.lower(), new)
        if other is not None:  # held already (by that id)
            there += 1
            continue
        copy = _with_id(obs, new) if n > 1 else replace(obs, fields=dict(obs.fields))
        if n > 1:
            renamed.append(RenamedOut(old=obs.block_id, new=new))
        by_id[new.lower()] = copy
        out.append(copy)
    return [_pointing(o, ids) for o in out], there, renamed


async def merge_observations(ctx: ToolContext, args: MergeObservationsIn) -> MergeObservationsOut:
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
    lines = list(source.entity.observations)
    result: dict[str, tuple[list[Observation], int, list[RenamedOut]]] = {}

    def change(entity: Entity) -> bool:
        result["r"] = carried(entity, lines)  # as the kept note is now (a retry reads it again)
        entity.observations.extend(result["r"][0])
        return bool(result["r"][0])

    done = await store.update(name, change, size=len(source.text))
    added, there, renamed = result["r"]
    return MergeObservationsOut(
        path=done.vp.rel,
        copied=len(added),
        block_ids=[o.block_id for o in added],
        already_there=there,
        renamed=renamed,
    )


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="merge_observations",
        domain="memory",
        title="Merge observations",
        description="Copy every observation line of a memory entity (mergedName) into another's note "
        "(entityName) as written: block ids, recorded, by, source and superseded_by kept, so links to its "
        "blocks still land once repointed. A line already there is skipped; a block id already used there "
        "becomes <id>-2 (listed in renamed).",
        input_model=MergeObservationsIn,
        output_model=MergeObservationsOut,
        handler=merge_observations,
        tags=("memory",),
        **WRITE,  # type: ignore[arg-type]
    ),
)
