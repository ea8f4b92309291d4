"""Link-safe moves: plan every link rewrite a move implies, then apply all of it or none of it.

`plan_move` takes file-level moves (old path -> new path; a folder move is expanded to its
files by the caller) and finds every note whose links must change: notes linking to a moved
file (from the index), the moved notes themselves (their relative links), and notes whose
links mention a moved file's name (a move can make a bare name ambiguous or unique). Each
candidate is re-read from disk and rewritten with `rewrite_note`; the plan carries the etag
it read, so a concurrent edit is caught as `conflict` when applying.

`apply_plan` moves the files (publishing "moved"), then writes the rewritten notes at their
new paths (each write atomic and etag-checked through `VaultFiles`, publishing "modified"), and
the bookmarks and the workspace's tabs and recent files that follow the moved files
(`service.graph.bookmark_paths`, `service.graph.workspace_paths`; not published; a workspace file
Obsidian saved meanwhile never fails the move).
If any step fails, every rewritten note gets its original bytes back and every file already
moved is moved back, then the error is raised: the vault ends as it started. Planning is the
cancellable phase and applying the shielded one (`service.vault.commit`): a cancelled call
changes nothing or everything. Planning runs under the call's `[limits] max_rewrite_seconds`
(`service.graph.plan_clock`): past it the call is refused before anything is written. Moves in
one vault are serialized by a per-vault lock so two overlapping moves cannot interleave their plans.
"""

from __future__ import annotations

import asyncio
import threading
import zlib
from collections.abc import AsyncIterator, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

from service.errors import NoteNotFound, PathInvalid
from service.graph.bookmark_paths import SettingsEdit, bookmarks_edit
from service.graph.canvas_paths import is_canvas, rewrite_canvas
from service.graph.emptied_folders import carry_empty_folders, prune_empty_folders
from service.graph.linkpath import PathSet
from service.graph.move_candidates import kept_as_written
from service.graph.move_checks import check_targets, check_twins
from service.graph.oversized import read_or_refuse
from service.graph.plan_clock import PlanClock
from service.graph.property_sources import property_sources
from service.graph.queries import GraphQueries
from service.graph.rewrite import LineChange, link_names, rewrite_note
from service.graph.workspace_paths import workspace_edits, write_lenient
from service.vault.commit import Action, Steps, Together, Undo, commit, prepare_step
from service.vault.decoding import UTF8, encode_edit
from service.vault.files import NoteFile
from service.vault.readonly import refuse_read_only
from service.vault.vault import Vault


class FileEdit:
    """One note's rewrite: where it is now (`path`) and after the move (`new_path`), the etag it was
    read at, its text before (`original`, what an undo writes back) and after, the changed lines,
    and the encoding the note was read in, which its write keeps (`decoding.encode_edit`: a text
    that encoding cannot hold is refused here, as the edit is planned, before anything is written).

    The two texts are held compressed (zlib's fastest level, ~4x smaller for Markdown) and unpacked
    when read: an applied rename of a hub note holds every note it rewrites until the last is
    written (9,281 notes, ~200 MB of text both ways at 100k notes), while each text is read once
    (its write) or twice (an undo)."""

    __slots__ = ("_original", "_text", "changes", "encoding", "etag", "new_path", "path")

    def __init__(
        self,
        path: str,
        new_path: str,
        etag: str,
        original: str,
        text: str,
        changes: Collection[LineChange],
        encoding: str = UTF8,
    ) -> None:
        if encoding != UTF8:
            encode_edit(text, encoding, path)
        self.path, self.new_path, self.etag, self.changes, self.encoding = path, new_path, etag, changes, encoding
        self._original, self._text = _packed(original), _packed(text)

    @property
    def original(self) -> str:
        return _unpacked(self._original)

    @property
    def text(self) -> str:
        return _unpacked(self._text)


def _packed(text: str) -> bytes:
    return zlib.compress(text.encode("utf-8", "surrogatepass"), 1)  # any str, lone surrogates too


def _unpacked(data: bytes) -> str:
    return zlib.decompress(data).decode("utf-8", "surrogatepass")


@dataclass
class MovePlan:
    moves: dict[str, str]
    edits: list[FileEdit] = field(default_factory=list)
    folder: str | None = None  # set for a folder move: emptied source folders are removed
    folder_to: str | None = None  # where the folder goes: its empty subfolders follow it there
    settings: list[SettingsEdit] = field(default_factory=list)  # Obsidian's files that name moved paths
    counted_files: int = 0  # edits a preview page left out of `edits`, only counted
    counted_links: int = 0  # their changed lines
    counted_moved: int = 0  # of those, edits of files it moves (counted among the moved files)
    walk: Walked | None = None  # a preview's every edit, for its next pages (`scan_page`)

    @property
    def files_changed(self) -> int:
        """Notes whose text changes (a moved note with links to itself among them)."""
        return len(self.edits) + self.counted_files

    @property
    def files_touched(self) -> int:
        """Every file the move changes: each moved file at its old and its new path, each other
        note whose links it rewrites, each settings file it repoints (the confirmation's list)."""
        ends = {*self.moves, *self.moves.values()}
        others = sum(e.path not in ends for e in self.edits) + self.counted_files - self.counted_moved
        return len(ends) + others + sum(s.changed for s in self.settings)

    @property
    def links_rewritten(self) -> int:
        return sum(len(e.changes) for e in self.edits) + self.counted_links


@dataclass(frozen=True, slots=True)
class Page:
    """The planned edits a dry run keeps whole: the `start`-th up to (not with) the `stop`-th, in
    path order; every other edit is only counted, so a preview's memory is bounded by its page
    and not by the number of notes it changes (a hub note's ~12,000 backlinks at 100k notes)."""

    start: int
    stop: int


EditOf = Callable[[str], FileEdit | None]  # one candidate note -> its edit, run in a worker thread
# Every edit a preview found, in order: (path, changed lines, whether the note is one it moves).
Walked = tuple[tuple[str, int, bool], ...]
NAMES_PER_LINE = 16  # more moved names than this (a folder move): every line with a link is parsed
BATCH = 64  # candidates read and rewritten per worker-thread trip (~0.1 s at the 100k workload)


async def scan(
    plan: MovePlan,
    candidates: Sequence[str],
    edit_of: EditOf,
    *,
    page: Page | None = None,
    steps: Steps | None = None,
    clock: PlanClock,
) -> None:
    """Add each candidate's edit to `plan`, in order, keeping only `page`'s edits whole (all of
    them without one; a page's plan keeps what it found of every edit in `walk`). Reading and
    rewriting run in a worker thread a batch at a time (`_edits`), so the event loop stays free
    for other calls. `clock`: the call's plan budget (`service.graph.plan_clock`), looked at after
    each note, and at the number of notes that change (`PlanClock.count`: `[limits]
    max_rewrite_notes`)."""
    walk: list[tuple[str, int, bool]] = []
    examined = 0
    async for edit in _edits(candidates, edit_of, steps, clock):
        examined += 1
        if edit is None:
            continue
        walk.append((edit.path, len(edit.changes), edit.path in plan.moves))
        clock.count(len(walk), examined, len(candidates))
        if page is None or page.start <= plan.files_changed < page.stop:
            plan.edits.append(edit)
        else:
            plan.counted_files += 1
            plan.counted_links += len(edit.changes)
            plan.counted_moved += edit.path in plan.moves
    if page is not None:
        plan.walk = tuple(walk)


async def scan_page(
    plan: MovePlan,
    walked: Walked,
    edit_of: EditOf,
    page: Page,
    steps: Steps | None,
    clock: PlanClock,
) -> bool:
    """`scan` of a preview's later page from what an earlier page's scan found (`walked`, with the
    vault unchanged since for the index): only the page's notes are read and rewritten again, the
    others counted as found. False, `plan` untouched, when a note of the page no longer changes as
    it did (edited on disk before the index heard of it): the caller scans everything."""
    wanted = walked[page.start : page.stop]
    edits = [e async for e in _edits([path for path, _, _ in wanted], edit_of, steps, clock)]
    if len(edits) != len(wanted) or any(
        e is None or (e.path, len(e.changes)) != (path, n) for e, (path, n, _) in zip(edits, wanted, strict=True)
    ):
        return False
    rest = walked[: page.start] + walked[page.stop :]
    plan.edits = [e for e in edits if e is not None]
    plan.counted_files = len(rest)
    plan.counted_links = sum(n for _, n, _ in rest)
    plan.counted_moved = sum(moved for _, _, moved in rest)
    plan.walk = walked
    return True


async def _edits(
    candidates: Sequence[str], edit_of: EditOf, steps: Steps | None, clock: PlanClock
) -> AsyncIterator[FileEdit | None]:
    """Each candidate's edit (None: it does not change), in order: read and rewritten in a worker
    thread a batch at a time, with the progress reported and a cancellation heard between
    batches (the batch in flight stops at its next note). Past `clock`'s deadline, looked at after
    each note: `compute_budget_exceeded` with the notes examined, before anything is written."""
    stop = threading.Event()
    total = len(candidates)

    def batch(first: int) -> list[FileEdit | None]:
        out: list[FileEdit | None] = []
        for path in candidates[first : first + BATCH]:
            if stop.is_set():
                break
            out.append(edit_of(path))
            clock.check(first + len(out), total)
        return out

    try:
        for first in range(0, total, BATCH):
            edits = await asyncio.to_thread(batch, first)
            for done, edit in enumerate(edits, start=first + 1):
                await prepare_step(steps, done, total)
                yield edit
    finally:
        stop.set()


def move_lock(vault: Vault) -> asyncio.Lock:
    return vault.move_lock


def vault_files(vault: Vault) -> list[str]:
    """Every visible file in the vault (notes and attachments), as vault paths."""
    root = vault.paths.resolve("", allow_root=True)
    return [rel for rel, entry in vault.files.walk(root) if entry.is_file()]


def files_under(vault: Vault, folder: str) -> list[str]:
    root = vault.paths.resolve(folder)
    return sorted(rel for rel, entry in vault.files.walk(root) if entry.is_file())


async def plan_move(
    vault: Vault,
    queries: GraphQueries,
    moves: dict[str, str],
    *,
    folder: tuple[str, str] | None = None,
    steps: Steps | None = None,
    admit: Callable[[str], bool] | None = None,
    page: Page | None = None,
    paths: PathSet | None = None,
    row_cap: int,
    walked: Walked | None = None,
    keep: int | None = None,
    readable: Callable[[str], bool] | None = None,
) -> MovePlan:
    """`admit(path)`: whether a note whose links change is part of the plan (False leaves it
    alone; it may raise to refuse the whole move); called in a worker thread. `page`: see `Page`;
    `walked`: what an earlier page of the same preview found (`scan_page`), the vault unchanged since.
    `paths`: the vault's files the links resolve over, where they are not the ones on disk (a
    plan's check: the vault as its earlier steps leave it); the notes read are those on disk.
    `row_cap`: how many link rows the index keeps of one note (`service.indexer.caps.MAX_ROWS`):
    a note holding that many is read whatever its rows say. `keep`: how many of a note's changed
    lines its edit keeps, not only counts (`service.graph.rewrite.LineChanges`; a canvas keeps all).
    `readable(path)`: whether the caller may read a note; one it may not is neither read nor counted
    (a refusal's or the progress's count of the notes would tell it exists)."""
    clock = PlanClock(vault.limits)  # the whole plan's budget: the walk and the index's candidates count against it
    if paths is None:
        before, after = await asyncio.to_thread(_path_sets, vault, moves)
    else:
        before, after = paths, paths_moved(paths, moves)
    # a stat per moved file (a 2,612-file folder: ~0.4 s), off the event loop like the twins' check
    await asyncio.to_thread(check_targets, vault, moves, before, folder=folder is not None)
    await asyncio.to_thread(check_twins, vault, moves, folder)
    names = link_names((*moves, *moves.values()))
    look_for = names if len(names) <= NAMES_PER_LINE else None  # a folder's many names: every line
    plan = MovePlan(moves=dict(moves), folder=folder[0] if folder else None, folder_to=folder[1] if folder else None)

    def edit_of(path: str) -> FileEdit | None:
        note = _read(vault, path, None if path in moves else look_for)
        if note is None:
            return None
        new_path = moves.get(path, path)
        result = rewrite_note(
            note.content,
            source_before=path,
            source_after=new_path,
            before=before,
            after=after,
            moved=moves,
            names=look_for,
            keep=None if is_canvas(path) else keep,
        )
        if is_canvas(path):
            result = rewrite_canvas(result, moves)
        if not result.changed or (admit is not None and not admit(path)):
            return None
        return FileEdit(path, new_path, note.etag, note.content, result.text, result.changes, note.encoding)

    if walked is None or page is None or not await scan_page(plan, walked, edit_of, page, steps, clock):
        linking = set(await queries.sources_of_names(vault.id, sorted(names)))
        linking.update(e.source for e in await queries.backlinks(vault.id, sorted(moves)))
        always = set(await property_sources(queries.db, vault.id, names))  # `up: "[[Hub]]"`, read from the values
        always.update(await queries.longer_than(vault.id, vault.limits.max_indexed_note_chars))  # past the index cap
        always.update(p for p in moves if p.lower().endswith(".md"))
        checked = {p for p in linking if p not in always and p not in moves and not is_canvas(p)}
        candidates = always | (
            linking - await kept_as_written(queries.db, vault.id, checked, moves, before, after, row_cap)
        )
        if readable is not None:  # the ACL's decisions off the loop (a hub's thousands of linking notes)
            candidates = await asyncio.to_thread(set, filter(readable, candidates))
        await scan(plan, sorted(candidates), edit_of, page=page, steps=steps, clock=clock)
    marks = bookmarks_edit(vault, moves, folder)
    if marks is not None:
        plan.settings.append(marks)
    plan.settings += workspace_edits(vault, moves)
    return plan


def _path_sets(vault: Vault, moves: Mapping[str, str]) -> tuple[PathSet, PathSet]:
    """The vault's paths before and after the moves: a walk of the whole vault, run in a worker thread."""
    files = vault_files(vault)
    return PathSet(files), PathSet(moves.get(f, f) for f in files)


def paths_moved(paths: PathSet, moves: Mapping[str, str]) -> PathSet:
    """`paths` after the moves of the files there (old path -> new), changed by the moved names
    only (a plan's check asks this of each move step over one set of the vault's paths)."""
    there = [p for p in moves if p in paths]
    return paths.changed(added=[moves[p] for p in there], removed=there)


def _read(vault: Vault, path: str, names: frozenset[str] | None) -> NoteFile | None:
    try:  # a note over [limits] max_note_bytes: scanned for `names`, refused if it may link (`oversized`)
        return read_or_refuse(vault.files, vault.paths.resolve(path), names)
    except (NoteNotFound, PathInvalid):
        return None


def refuse_read_only_edits(vault: Vault, plan: MovePlan) -> None:
    """`vault_unwritable` when a note the plan edits is read-only (chmod a-w): its write would be
    refused after others were made (then undone). Called before anything changes, and by the
    confirmations before a human is asked to approve a change that cannot be made. Worker thread."""
    for edit in plan.edits:
        refuse_read_only(vault.paths.resolve(edit.path).abs, edit.path)


async def apply_plan(vault: Vault, plan: MovePlan, steps: Steps | None = None) -> None:
    """Move, then rewrite, shielded from cancellation; on any failure undo what was done and re-raise.

    Moving first means each rewritten note is re-indexed after its new link text can
    resolve. Notes that link to a moved file but keep their text need nothing: the index
    re-resolves every link that pointed at a moved path, or that a moved file's name may now
    match better, when it applies the move (`rows.resolve_links`). Re-announcing them re-parsed
    thousands of unchanged notes for a hub note's move. The whole change reaches the index in
    one batch (one update, not one per file). The notes' rewrites are written up to
    `commit.TOGETHER` at a time (`Together`), each as atomic and journaled as alone.
    """
    await asyncio.to_thread(refuse_read_only_edits, vault, plan)
    actions: list[Action] = [partial(_move, vault, old, new) for old, new in plan.moves.items()]
    if plan.folder is not None and plan.folder_to is not None and plan.folder.lower() == plan.folder_to.lower():
        # A folder renamed in letter case only moves as one: file by file, each new path would twin
        # its own folder still there ('notes/B.md' beside 'Notes/'), refused on a case-sensitive disk.
        actions = [partial(_move, vault, plan.folder, plan.folder_to)]
    # the notes' rewrites: distinct files, each its own atomic write, their fsyncs overlapping
    rewrites = Together([partial(_write, vault, edit) for edit in plan.edits])
    written: set[str] = set()  # the settings files actually written (a workspace one may not be)
    settings = [partial(_write_settings, vault, edit, plan.moves, written) for edit in plan.settings]
    await commit([*actions, rewrites, *settings], steps, around=vault.bus.batch())
    plan.settings = [edit for edit in plan.settings if edit.path in written]  # what the result reports
    if plan.folder is not None:
        if plan.folder_to is not None:
            carry_empty_folders(vault, plan.folder, plan.folder_to)
        prune_empty_folders(vault, plan.moves)


async def _move(vault: Vault, old: str, new: str) -> Undo:
    await vault.files.move(vault.paths.resolve(old), vault.paths.resolve(new))

    async def undo() -> None:
        await vault.files.move(vault.paths.resolve(new), vault.paths.resolve(old))
        prune_empty_folders(vault, {new: old})

    return undo


async def _write(vault: Vault, edit: FileEdit) -> Undo:
    target = vault.paths.resolve(edit.new_path)
    written = await vault.files.write(
        target, edit.text, expected_etag=edit.etag, must_exist=True, encoding=edit.encoding
    )

    async def undo() -> None:  # only over our own bytes: an edit made since is a conflict, kept
        back = vault.paths.resolve(edit.new_path)
        await vault.files.write(back, edit.original, expected_etag=written.etag, encoding=edit.encoding)

    return undo


async def _write_settings(vault: Vault, edit: SettingsEdit, moves: Mapping[str, str], written: set[str]) -> Undo:
    target = vault.paths.resolve(edit.path, allow_hidden=True)
    if edit.lenient:  # the workspace: written when it can be, its undo only over our own bytes
        if not await write_lenient(vault, edit, moves, ()):
            return _nothing
        written.add(edit.path)
        return partial(_undo_lenient, vault, edit, moves)
    done = await vault.files.write(
        target, edit.text, expected_etag=edit.etag, must_exist=True, publish=False, encoding=edit.encoding
    )
    written.add(edit.path)

    async def undo() -> None:  # only over our own bytes, as `_write`'s
        back = vault.paths.resolve(edit.path, allow_hidden=True)
        await vault.files.write(back, edit.original, expected_etag=done.etag, publish=False, encoding=edit.encoding)

    return undo


async def _undo_lenient(vault: Vault, edit: SettingsEdit, moves: Mapping[str, str]) -> None:
    """Point the workspace back at the old paths (not its old bytes: Obsidian may have saved it since)."""
    back = {new: old for old, new in moves.items()}
    for again in workspace_edits(vault, back):
        if again.path == edit.path:
            await write_lenient(vault, again, back, ())


async def _nothing() -> None:
    return None
