"""The link rewrites of a plan's move or rewrite_links step over the vault as the plan's earlier
steps leave it, where the tool's own dry run (`service.plans.dry_runs`), which meets the vault as
it is on disk, cannot tell them.

Three cases: the step moves a note or a folder an earlier step makes (its dry run answers
note_not_found; none is run for a folder the builder moves as one), a rewrite_links step points
links at a note an earlier step makes (note_not_found), and a file an earlier step makes or
removes carries the name of a file the step moves or links point at, so that links resolve
otherwise once those steps ran (`[[Target]]` fits two notes after a step made `Sub/Target.md`).
Vault `{Home.md: "see [[New/Fresh]]"}`: the link resolves to no note on disk, to `New/Fresh.md`
once `create_note New/Fresh` ran, and a later move of that note rewrites it.

A fourth: an earlier step wrote a note's text (made it, wrote, appended, prepended or patched it,
edited its properties or tags, copied or moved it...): the links it then holds are rewritten by the
run (the move finds the plan's own writes in the index) and are counted and listed like any other
note's (`service.plans.texts`); where the check cannot foresee an edit, the move's counts are
flagged as an estimate.

For such a step the host plans the rewrite with the tool's own planner over the vault's files
with the made ones and without the removed ones (`Rewriter`). It reads the notes on disk, and a
note an earlier step wrote as the steps leave its text; a note it moved away or deleted is gone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from service.plans.effects import EffectsBuilder
from service.plans.summary import MovedFile
from service.plans.texts import PlannedText


@dataclass(frozen=True, slots=True)
class Rewritten:
    files: list[str]  # each note whose links change (at its path after the step), each settings file repointed
    notes: int  # notes whose text changes
    links: int  # lines with rewritten links
    estimate: bool = False  # a note read as before an edit the check cannot foresee (`service.plans.texts`)


class Rewriter(Protocol):
    """What of the server the rewrites over the plan's vault need (the checker's `Host` is one)."""

    def is_file(self, rel: str) -> bool:
        """Whether a file is at `rel` now, whoever may read it (an edit of a note not there fails)."""

    async def move_rewrites(
        self,
        moves: dict[str, str],
        folder: tuple[str, str] | None,
        made: list[str],
        gone: set[str],
        texts: dict[str, PlannedText],
    ) -> tuple[Rewritten | None, str | None]:
        """The link rewrites of a move of `moves` (old path -> new; `folder`: the folder that
        moves, and where) once earlier steps made the files `made` and removed `gone`, and wrote
        the notes of `texts` so: (them, None), or (None, the error code the move answers)."""

    async def link_rewrites(
        self, old: str, new: str, made: list[str], gone: set[str]
    ) -> tuple[Rewritten | None, str | None]:
        """Those of rewrite_links from the target the address `old` names to the file `new`, likewise."""


def vault_before(host: Rewriter, builder: EffectsBuilder, moves: dict[str, str]) -> tuple[list[str], set[str]]:
    """The files earlier steps made where no file is on disk, and those on disk they moved away or
    deleted, as the vault is before the step that moves `moves` (old path -> new; the builder has
    counted that move already: its sources are back, its destinations not yet there)."""
    made, gone = builder.stepped()
    before = [p for p in made if p not in moves.values() and not host.is_file(p)]
    before += [p for p in moves if p in builder.named(p) and not host.is_file(p)]  # made, then moved by it
    return before, {p for p in gone if p not in moves and host.is_file(p)}


def texts_before(builder: EffectsBuilder, moves: dict[str, str]) -> dict[str, PlannedText]:
    """The texts earlier steps wrote, as the vault is before the step that moves `moves` (the
    builder has counted that move: a moved note's text is back at its old path)."""
    texts = builder.planned_texts()
    for old, new in moves.items():
        if new in texts:
            texts[old] = texts.pop(new)
    return {rel: t for rel, t in texts.items() if t.calls or t.origin != rel}


def renamed_around(builder: EffectsBuilder, paths: set[str]) -> bool:
    """Whether a step wrote, moved or deleted a file other than `paths` carrying the file name of
    one of them: links to them may resolve otherwise once the earlier steps ran."""
    return any(other not in paths for rel in paths for other in builder.named(rel))


def pairs_of(moved: MovedFile) -> dict[str, str]:
    """The files a move moves, old path -> new (a folder's: those its `moved_files` lists)."""
    if not moved.folder:
        return {moved.from_path: moved.to_path}
    inside = f"{moved.from_path}/"
    return {f: f"{moved.to_path}/{f[len(inside) :]}" for f in moved.moved_files or [] if f.startswith(inside)}


async def move_on_plan(host: Rewriter, builder: EffectsBuilder, moved: MovedFile) -> None:
    """The link rewrites of the last move (`moved`) over the vault the earlier steps leave, in
    place of its dry run's, when they made or removed a file; a move of a file that is there
    neither on disk nor made by an earlier step is left as the dry run left it."""
    moved.estimate = builder.unforeseen()  # earlier steps change notes only the run names
    pairs = pairs_of(moved)
    made, gone = vault_before(host, builder, pairs)
    texts = texts_before(builder, pairs)
    there = set(made)
    if not made and not gone and not texts or not pairs or any(p not in there and not host.is_file(p) for p in pairs):
        return
    folder = (moved.from_path, moved.to_path) if moved.folder else None
    found, code = await host.move_rewrites(pairs, folder, made, gone, texts)
    if code == "vault_unwritable":  # a read-only note holds a link it would rewrite: refused at run time
        builder.unwritable_now(moved.from_path)
    if found is not None:
        ends = {*pairs, *pairs.values(), moved.from_path, moved.to_path}
        moved.rewritten_in = sorted(set(found.files) - ends - gone)
        moved.files_changed, moved.links_rewritten = found.notes, found.links
        moved.estimate = moved.estimate or found.estimate


async def links_on_plan(host: Rewriter, builder: EffectsBuilder, old: str, new: str) -> list[str] | None:
    """The notes a rewrite_links from the address `old` to the file `new` edits over the vault
    the earlier steps leave (None: as on disk, no earlier step made or removed a file; or the
    call fails)."""
    made, gone = vault_before(host, builder, {})
    if not made and not gone:
        return None
    found, _code = await host.link_rewrites(old, new, made, gone)
    return None if found is None else [rel for rel in found.files if rel not in gone]
