"""The link rewrites of a plan's move or rewrite_links step over the vault as the plan's earlier
steps leave it: the answers to the engine's `service.plans.planned_links.Rewriter`, for `PlanHost`.

The tools' own planners (`service.tools.notes.moves.rewritten_by`,
`service.tools.graph.rewrite.plan_rewrite`) run over the vault's files with the ones the earlier
steps make and without the ones they remove, and read the notes on disk as the caller: a note it
may not read is left alone, one it may not write (or made read-only) refuses the move, as the
call does. A note an earlier step wrote is read as the steps leave its text
(`service.tools.sessions.plan_texts`; one an edit the check cannot foresee changed, as before that
edit, and the counts are an estimate), one it moved away or deleted not at all. Nothing is
written; the edits are counted, not held.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from service.errors import VaultgateError
from service.graph.linkpath import PathSet
from service.graph.moves import Page, vault_files
from service.plans.planned_links import Rewritten
from service.plans.texts import PlannedText
from service.tools.context import ToolContext
from service.tools.graph.rewrite import old_target, plan_rewrite
from service.tools.notes.moves import rewritten_by
from service.tools.sessions.plan_texts import planned_reads

Resolve = Callable[[str, list[str], set[str]], Awaitable[tuple[str | None, int]]]


class DiskFiles:
    """The vault's files on disk, walked once per plan check (the tools' own planners walk the
    whole vault for each call; a check changes nothing, so one walk serves all its steps), and
    their link-resolution set, built once and changed by each step's made and removed files."""

    def __init__(self, ctx: ToolContext) -> None:
        self._ctx = ctx
        self._files: list[str] | None = None
        self._paths: PathSet | None = None

    async def _walked(self) -> list[str]:
        if self._files is None:
            self._files = await asyncio.to_thread(vault_files, self._ctx.vault)
        return self._files

    async def after(self, made: list[str], gone: set[str]) -> list[str]:
        """The vault's files once the earlier steps made `made` and removed `gone`."""
        there = [rel for rel in await self._walked() if rel not in gone]
        known = set(there)
        return there + [rel for rel in made if rel not in known]

    async def paths_after(self, made: list[str], gone: set[str]) -> PathSet:
        """`after` as a link-resolution set: the disk's, changed by the names of `made` and `gone`
        (a rebuild over the whole vault for each move step made 100 create-then-move pairs in a
        3,000-note vault check in 3.3 s instead of 0.6 s)."""
        if self._paths is None:
            files = await self._walked()
            self._paths = await asyncio.to_thread(PathSet, files)
        return self._paths.changed(added=made, removed=gone)


async def move_rewrites(
    ctx: ToolContext,
    disk: DiskFiles,
    moves: dict[str, str],
    folder: tuple[str, str] | None,
    made: list[str],
    gone: set[str],
    texts: dict[str, PlannedText],
) -> tuple[Rewritten | None, str | None]:
    try:
        paths = await disk.paths_after(made, gone)
        read, unforeseen = await asyncio.to_thread(planned_reads, ctx, texts, gone, paths)
        notes, plan = await rewritten_by(ctx, moves, folder, paths, read)
    except VaultgateError as exc:  # the move's refusal (vault_unwritable: a read-only note it would rewrite)
        return None, exc.code
    settings = [s.path for s in plan.settings if s.changed]
    return Rewritten(sorted({*notes, *settings}), plan.files_changed, plan.links_rewritten, bool(unforeseen)), None


async def link_rewrites(
    ctx: ToolContext, disk: DiskFiles, resolve: Resolve, old: str, new: str, made: list[str], gone: set[str]
) -> tuple[Rewritten | None, str | None]:
    """`old` is the note it names once the earlier steps ran (`resolve`: the plan host's), else
    what the tool takes it for on disk (a path links may still name)."""
    edited: list[str] = []

    def admit(path: str) -> bool:  # in a worker thread, one batch at a time
        edited.append(path)
        return True

    try:
        named, _fits = await resolve(old, made, gone)
        source = named if named is not None else await old_target(ctx, old)
        if source == new:
            return None, "path_invalid"  # the call refuses a rewrite to the same note
        files = await disk.after(made, gone)
        plan = await plan_rewrite(ctx, source, new, page=Page(0, 0), files=files, admit=admit)
    except VaultgateError as exc:
        return None, exc.code
    return Rewritten(sorted(edited), plan.files_changed, plan.links_rewritten), None
