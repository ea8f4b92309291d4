"""Reversing a run from its journal: newest change first, all or nothing.

`plan_undo` reads the disk once and decides, for every journaled change (newest first), what
putting it back takes: a file whose content is the etag the change left is restored to its
prior bytes (or removed); a file still holding its prior content was never changed (the process
died before the write) and is left alone; anything else was edited by someone else since — a
conflict, listed, and the whole undo is refused unless the caller asks to skip those files. So is
a file someone edited between two of the run's writes to it (the later write's prior state is
not what the earlier one left): the whole file is a conflict, none of its writes is undone.
Folders the run created are removed when empty again; a moved folder is renamed back. Obsidian's
workspace files (`service.graph.workspace_paths`: a move's or delete's rewrite of the open tabs
and recent files) are Obsidian's to save at any moment: one saved since is left as Obsidian wrote
it (`skipped`), never a conflict that would block the undo. A moved note is undone as a whole
(`_moves` pairs a move's two records): when its destination is a conflict (edited, deleted or
moved since) its source is not put back either, so no note deleted since comes back; when its old
path holds another file since, the moved note stays where the move put it. A note over
`max_note_bytes` moved, renamed or deleted to the trash is journaled as one move with its stamp
(size, mtime, inode, ctime), not its bytes (`service.vault.journal.record_long_move`): undone as a
whole under the same rules, its stamp standing for the etag the run left.
`apply_undo` performs the restores through `service.vault.commit` (shielded from cancellation;
when one fails, the ones done are put back and the error is raised). The caller sets a journal
recorder around it, so the undo is journaled like any run (undoing it is a redo).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from dataclasses import dataclass, field

from service.graph.workspace_paths import WORKSPACES
from service.plans.journal import Entry
from service.vault import dirfd, restore
from service.vault.commit import Action, Undo, commit
from service.vault.files import VaultFiles, etag_of
from service.vault.journal import loose, over, same_note, stamp_of


@dataclass
class UndoPlan:
    restores: list[Entry] = field(default_factory=list)  # newest first
    conflicts: list[dict[str, str | None]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    untouched: list[str] = field(default_factory=list)  # journaled, never written (interrupted)
    paths: set[str] = field(default_factory=set)


def _moves(entries: list[Entry], trash: str) -> dict[int, Entry]:
    """A note's move is journaled as two file records of one step, the destination made (no
    prior content) then the source removed (its bytes those the destination got): the source's
    record by the destination's seq. A delete to the trash records the other way round (the
    source, then its copy in the trash): a trash copy followed by another note's delete of the
    same bytes (one call deleting two notes made from one template) is no move. The runner
    orders a move before and after every other change of its plan (`service.plans.schedule`),
    so no other record comes between a move's two."""
    pairs: dict[int, Entry] = {}
    for dst, src in zip(entries, entries[1:], strict=False):
        if (
            dst.kind == src.kind == "file"
            and not dst.path.startswith(f"{trash}/")
            and dst.step_id == src.step_id
            and dst.prior is None
            and dst.new_etag is not None
            and src.new_etag is None
            and src.prior is not None
            and etag_of(src.prior) == dst.new_etag
        ):
            pairs[dst.seq] = src
    return pairs


def _drop_move(out: UndoPlan, dst: Entry, src: Entry | None, blocked: set[str]) -> None:
    """A moved note no longer where the run left it: its move is not undone as a whole (putting
    its source back would bring back a note deleted or moved since, beside where it is now)."""
    if src is not None:
        out.restores = [e for e in out.restores if e is not src]
        blocked.add(src.path)


def plan_undo(files: VaultFiles, entries: list[Entry], *, skip: set[str] | None = None) -> UndoPlan:
    out = UndoPlan()
    expected: dict[str, str | None] = {}  # path -> etag it must have before the next (older) restore
    blocked: set[str] = set(skip or ())
    moves = _moves(entries, files.trash_folder.strip("/"))
    for entry in reversed(entries):
        out.paths.add(entry.path)
        if entry.kind == "move" and entry.new_etag is not None:
            _moved_note(files, entries, entry, out, expected, blocked, skip or set())
            continue
        if entry.kind != "file":
            out.restores.append(entry)
            continue
        src = moves.get(entry.seq)
        if src is not None and src.path in blocked and src not in out.restores:
            # the old path holds something else since (a conflict, or skipped): the moved note
            # stays where the move put it, never removed with nowhere to go back to
            blocked.add(entry.path)
            continue
        if entry.path in blocked:
            if entry.path not in out.skipped and skip and entry.path in skip:
                out.skipped.append(entry.path)
            _drop_move(out, entry, src, blocked)
            continue
        prior_etag = etag_of(entry.prior) if entry.prior is not None else None
        changed = entry.path in expected and expected[entry.path] != entry.new_etag
        if entry.path in WORKSPACES and (changed or entry.path not in expected and _saved_since(files, entry)):
            out.restores = [e for e in out.restores if not (e.kind == "file" and e.path == entry.path)]
            out.skipped.append(entry.path)
            blocked.add(entry.path)
            continue
        if changed:
            # Someone changed the file between two of the run's writes to it: putting back the
            # older write would undo their edit too. The file is a conflict as a whole.
            out.restores = [e for e in out.restores if not (e.kind == "file" and e.path == entry.path)]
            out.conflicts.append(
                {
                    "path": entry.path,
                    "expected_etag": entry.new_etag,
                    "current_etag": restore.current_etag(files, entry.path),
                    "step": entry.step_id,
                }
            )
            blocked.add(entry.path)
            _drop_move(out, entry, src, blocked)
            continue
        if entry.path not in expected:
            current = restore.current_etag(files, entry.path)
            if current == entry.new_etag:
                expected[entry.path] = entry.new_etag
            elif current == prior_etag and (src is None or src not in out.restores):
                out.untouched.append(entry.path)  # the change never happened
                expected[entry.path] = prior_etag
                continue
            else:  # edited since; or a moved note gone from where the move left it (its source too)
                out.conflicts.append(
                    {
                        "path": entry.path,
                        "expected_etag": entry.new_etag,
                        "current_etag": current,
                        "step": entry.step_id,
                    }
                )
                blocked.add(entry.path)
                _drop_move(out, entry, src, blocked)
                continue
        out.restores.append(entry)
        expected[entry.path] = prior_etag
    return out


def _moved_note(
    files: VaultFiles,
    entries: list[Entry],
    entry: Entry,
    out: UndoPlan,
    expected: dict[str, str | None],
    blocked: set[str],
    skip: set[str],
) -> None:
    """A long note moved whole (`journal.record_long_move`: its stamp recorded, not its bytes) goes
    back when it is still the file the move left at `dst` (same stamp) and its old path is free;
    otherwise it is a conflict and stays where it is (its stamp is what `expected_etag` names)."""
    assert entry.dst is not None and entry.new_etag is not None
    out.paths.add(entry.dst)
    if entry.dst in blocked or entry.path in blocked:
        out.skipped += [p for p in (entry.dst, entry.path) if p in skip and p not in out.skipped]
        blocked.update((entry.dst, entry.path))
        return
    root, ours = files.paths.root, entry.dst in expected  # ours: an undo of a newer move put it there
    now = expected[entry.dst] if ours else stamp_of(root, entry.dst)
    free = now is None or _replaces(entries, entry)  # a move onto a file: that file is still there if it never ran
    if free and entry.path not in expected and same_note(entry.new_etag, stamp_of(root, entry.path)):
        out.untouched.append(entry.path)  # never moved (the process died before the rename)
        expected[entry.path] = entry.new_etag
        return
    taken = expected[entry.path] is not None if entry.path in expected else os.path.lexists(root / entry.path)
    if not same_note(entry.new_etag, now):  # edited, replaced, moved or deleted since
        conflict = {"path": entry.dst, "expected_etag": entry.new_etag, "current_etag": now}
    elif taken:  # its old path holds something else since (a folder: null)
        there = expected[entry.path] if entry.path in expected else restore.current_etag(files, entry.path)
        conflict = {"path": entry.path, "expected_etag": None, "current_etag": there}
    else:
        conflict = None
    if conflict is not None:
        out.conflicts.append({**conflict, "step": entry.step_id})
        blocked.update((entry.dst, entry.path))
        return
    # moved back by this undo just before: that rename changed its ctime, compared without it (`same_note`)
    out.restores.append(dataclasses.replace(entry, new_etag=loose(entry.new_etag)) if ours else entry)
    expected[entry.dst] = None
    # what an older record of its old path must have left: the note's etag (hashed a chunk at a time)
    # when one wrote it, else its stamp (an older move of it)
    older = [e for e in entries if e.seq < entry.seq and e.path == entry.path]
    if older and older[-1].kind == "file":
        expected[entry.path] = restore.current_etag(files, entry.dst)
    else:
        expected[entry.path] = loose(entry.new_etag)


def _replaces(entries: list[Entry], entry: Entry) -> bool:
    """Whether the long note's move `entry` replaced a file: recorded right before it as going absent
    (`journal.record_long_move(replacing=True)`), undone after the note has moved back."""
    before = [e for e in entries if e.seq < entry.seq and e.kind != "folder"]
    last = before[-1] if before else None
    return last is not None and last.kind == "file" and last.path == entry.dst and last.new_etag is None


def _saved_since(files: VaultFiles, entry: Entry) -> bool:
    """Whether the file holds neither what the change left nor what it found (saved since)."""
    current = restore.current_etag(files, entry.path)
    return current not in (entry.new_etag, etag_of(entry.prior) if entry.prior is not None else None)


def _file_action(files: VaultFiles, entry: Entry) -> Action:
    async def run() -> Undo:
        if over(files.paths.root, entry.path, files.max_note_bytes) is not None:
            return await _long_file_back(files, entry)
        now = restore.current_etag(files, entry.path)
        data = None if now is None else dirfd.read_bytes(files.paths.root, entry.path)
        await restore.restore_file(files, entry.path, entry.prior, entry.new_etag)
        back = etag_of(entry.prior) if entry.prior is not None else None

        async def undo() -> None:
            await restore.restore_file(files, entry.path, data, back)

        return undo

    return run


async def _long_file_back(files: VaultFiles, entry: Entry) -> Undo:
    """A file record whose note is now over `max_note_bytes` (the run wrote it long): read whole, it
    cost its bytes twice over (this undo's own journal, the put-back below). It goes to the trash
    instead (`restore.set_aside`: journaled by its stamp) and its prior bytes, if any, are written
    back; a failed undo takes those away and moves the note back from the trash by its stamp."""
    trash, stamp = await restore.set_aside(files, entry.path, entry.new_etag)
    back = etag_of(entry.prior) if entry.prior is not None else None

    async def undo() -> None:
        if entry.prior is not None:
            await restore.restore_file(files, entry.path, None, back)
        await restore.unmove(files, entry.path, trash, stamp)

    if entry.prior is not None:
        try:
            await restore.restore_file(files, entry.path, entry.prior, None)
        except BaseException:
            await restore.unmove(files, entry.path, trash, stamp)
            raise
    return undo


def _move_action(files: VaultFiles, entry: Entry) -> Action:
    async def run() -> Undo:
        assert entry.dst is not None
        left = await restore.unmove(files, entry.path, entry.dst, entry.new_etag)

        async def undo() -> None:  # a long note: checked by the stamp its move back left (a new ctime)
            assert entry.dst is not None
            await restore.unmove(files, entry.dst, entry.path, left)

        return undo

    return run


def _folder_action(files: VaultFiles, entry: Entry) -> Action:
    async def run() -> Undo:
        restore.remove_folder(files, entry.path)

        async def undo() -> None:
            await asyncio.to_thread(dirfd.mkdirs, files.paths.root, entry.path)

        return undo

    return run


async def apply_undo(files: VaultFiles, plan: UndoPlan) -> int:
    """Perform the restores (all or nothing); returns how many changes were reversed."""
    actions: list[Action] = []
    for entry in plan.restores:
        if entry.kind == "file":
            actions.append(_file_action(files, entry))
        elif entry.kind == "move":
            actions.append(_move_action(files, entry))
        else:
            actions.append(_folder_action(files, entry))
    await commit(actions)
    return len(actions)
