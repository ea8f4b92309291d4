"""The polling watcher's look (`reconcile.drift`): which vault files differ from the index, found
from a view of the folders kept between looks.

An edit in place changes no folder's mtime, so a look stats every file: one `lstat` a file, from
`os.scandir`'s entries (no path joined or filtered twice in Python). What a look keeps of a
folder is its files' names in one string and their mtimes (ns) and sizes in two arrays, ~60
bytes a file (6 MB at 100k notes), so an unchanged folder is three comparisons made in C. Only
the files whose mtime or size changed since the previous look, new or gone, and those that
differed from the index then, are compared with the index — their rows read by path, other files
by the known files — and the answer is read from the index as before: the view only says where
to look.

Why a file in neither set needs no comparison: it matched the index at the previous look and its
mtime and size are the same now; an index row is only written with what a reading of the file
found (an update, our own writes, which change the file), so the row still matches. A reconcile
writes rows from its own scan, clears content hashes (`task_format.py`) and moves rows
(`relocate.py`), and may fail half-way: it drops the view when it begins (`forget`), a look begun
before it keeps none, and the next look compares every file with the index, as the first look
after a start does (the view lives in this process only). A file edited twice within its file
system's mtime step (1-2 s on some shares) at the same size is missed as the index's mtime and
size miss it: a look never finds less than comparing every file with the index would.

Files are taken as `scan.scan` takes them: no dot names, temp files, symlinks, special files,
names that are not UTF-8, or hidden folders; paths vault-relative, `/`-separated and NFC.
"""

from __future__ import annotations

import asyncio
import os
import time
import unicodedata
import weakref
from array import array
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from stat import S_ISREG
from typing import Any, TypeVar

from service.indexer.known import KnownFiles
from service.indexer.scan import PAUSE_EVERY, indexed
from service.indexer.state import IndexerState
from service.vault.decoding import is_utf8_name
from service.vault.paths import VaultPaths
from service.vault.root_link import walkable
from service.vault.temps import SUFFIX

T = TypeVar("T")
ROWS_BY_PATH = 500  # paths per query when rows are read by path
ROWS_PAGE = 1024  # rows read between two calls of a look's `pause` when it reads them all
Folder = tuple[str, "array[int]", "array[int]"]  # its files' names joined by "/", mtimes (ns), sizes
View = dict[str, Folder]  # by folder, as the disk spells it relative to the root ("" the root)


class Kept:
    """One indexer's view and what its last look found differing (looked at again next time)."""

    def __init__(self) -> None:
        self.view: View | None = None
        self.differing: list[str] = []
        self.epoch = 0  # moved by `forget`: a look begun before it keeps nothing


_kept: weakref.WeakKeyDictionary[Any, Kept] = weakref.WeakKeyDictionary()


def kept(ix: object) -> Kept:
    """The view kept for the indexer `ix` (made empty on first use)."""
    found = _kept.get(ix)
    if found is None:
        found = _kept[ix] = Kept()
    return found


def forget(ix: object) -> None:
    """Drop `ix`'s view (a reconcile begins): the next look compares every file with the index."""
    state = kept(ix)
    state.view, state.differing, state.epoch = None, [], state.epoch + 1


def survey(paths: VaultPaths, pause: Callable[[], None] | None = None, unread: list[OSError] | None = None) -> View:
    """Every folder of the vault with its files' names, mtimes and sizes; the folders that could not
    be listed are added to `unread` (their error, named by their path) and left out, the root's
    raised. Blocks on the file system: run it in a worker thread."""
    walkable(paths.root)  # a vault folder replaced by a link: never walked
    root = str(paths.root)
    view: View = {}
    stack = [""]
    countdown = PAUSE_EVERY
    while stack:
        rel_dir = stack.pop()
        where = f"{root}{os.sep}{rel_dir}" if rel_dir else root
        names: list[str] = []
        mtimes: list[int] = []
        sizes: list[int] = []
        named, timed, sized = names.append, mtimes.append, sizes.append  # 10^5 calls a look
        try:
            with os.scandir(where) as entries:
                for entry in entries:
                    countdown -= 1
                    if not countdown:
                        countdown = PAUSE_EVERY
                        if pause is not None:
                            pause()
                    name = entry.name
                    if name.startswith(".") or not (name.isascii() or is_utf8_name(name)):
                        continue
                    try:
                        folder = entry.is_dir(follow_symlinks=False)  # an lstat where the type is unknown
                    except OSError:
                        continue  # gone meanwhile
                    if folder:
                        if rel_dir or not paths.is_hidden(name):
                            stack.append(f"{rel_dir}/{name}" if rel_dir else name)
                        continue
                    if name.endswith(SUFFIX) or (not rel_dir and paths.is_hidden(name)):
                        continue
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue  # gone meanwhile
                    if S_ISREG(st.st_mode):  # never a link (see `scan.scan`) nor a special file
                        named(name)
                        timed(st.st_mtime_ns)
                        sized(st.st_size)
        except OSError as exc:
            if not rel_dir or unread is None:
                raise
            exc.filename = where  # an error met while listing may name no path
            unread.append(exc)
            continue
        view[rel_dir] = ("/".join(names), array("q", mtimes), array("q", sizes))
    return view


def vault_path(rel_dir: str, name: str) -> str:
    """The vault path of the file `name` in the folder `rel_dir`, as `scan.scan` gives it."""
    return unicodedata.normalize("NFC", f"{rel_dir}/{name}" if rel_dir else name)


def _paths(rel_dir: str, joined: str) -> list[str]:
    return [vault_path(rel_dir, name) for name in joined.split("/")] if joined else []


def files_in(view: View, paths: Iterable[str]) -> dict[str, tuple[int, int]]:
    """The files of `paths` that `view` holds: vault path -> (mtime ns, size)."""
    wanted = set(paths)
    folders = {p.rpartition("/")[0] for p in wanted}
    if not folders <= view.keys():  # a folder the disk spells otherwise than NFC
        folders = {d for d in view if unicodedata.normalize("NFC", d) in folders}
    out: dict[str, tuple[int, int]] = {}
    for rel_dir in folders:
        joined, mtimes, sizes = view[rel_dir]
        for path, st in zip(_paths(rel_dir, joined), zip(mtimes, sizes, strict=True), strict=True):
            if path in wanted:
                out[path] = st
    return out


def moved(old: View, new: View, held: tuple[str, ...]) -> dict[str, tuple[int, int] | None]:
    """The files new, gone (None), or of another mtime or size in `new` than in `old`, by vault
    path; the folders below `held` (folder prefixes as the disk spells them, ending with "/", that
    could not be listed) are taken from `old` into `new` as they were: nothing below them is gone."""
    out: dict[str, tuple[int, int] | None] = {}
    for rel_dir, folder in old.items():
        if rel_dir not in new and (rel_dir + "/").startswith(held):
            new[rel_dir] = folder
    for rel_dir, (joined, mtimes, sizes) in new.items():
        before = old.get(rel_dir)
        if before is not None and before[0] == joined:
            if before[1] != mtimes or before[2] != sizes:
                names = joined.split("/")
                for i, (m, s, m0, s0) in enumerate(zip(mtimes, sizes, before[1], before[2], strict=True)):
                    if m != m0 or s != s0:
                        out[vault_path(rel_dir, names[i])] = (m, s)
            continue
        now = dict(zip(_paths(rel_dir, joined), zip(mtimes, sizes, strict=True), strict=True))
        then = (
            {} if before is None else dict(zip(_paths(rel_dir, before[0]), zip(*before[1:], strict=True), strict=True))
        )
        out.update((path, st) for path, st in now.items() if then.get(path) != st)
        out.update((path, None) for path in then if path not in now)
    for rel_dir, (joined, _, _) in old.items():
        if rel_dir not in new:
            out.update((path, None) for path in _paths(rel_dir, joined))
    return out


def mtime_of(ns: int) -> float:
    """`os.stat_result.st_mtime` of a file whose `st_mtime_ns` is `ns` (the same float: CPython
    adds the nanoseconds times 1e-9 to the seconds)."""
    seconds, nanos = divmod(ns, 1_000_000_000)
    return float(seconds) + float(nanos) * 1e-9


def rows_of(
    conn: Any, vault_id: str, paths: Iterable[str] | None, pause: Callable[[], None] | None = None
) -> dict[str, tuple[float, int, int]]:
    """The index's (mtime, size, whether it holds a content hash) of the notes of `paths` (None: of
    every note); `pause` is called between two pages of rows."""
    sql = "SELECT path, mtime, size, etag != '' FROM notes WHERE vault_id = ?"
    out: dict[str, tuple[float, int, int]] = {}
    if paths is None:
        cursor = conn.execute(sql, (vault_id,))
        while page := cursor.fetchmany(ROWS_PAGE):
            out.update((str(p), (m, s, e)) for p, m, s, e in page)
            if pause is not None:
                pause()
        return out
    wanted = sorted(paths)
    for i in range(0, len(wanted), ROWS_BY_PATH):
        part = wanted[i : i + ROWS_BY_PATH]
        found = conn.execute(f"{sql} AND path IN ({','.join('?' * len(part))})", (vault_id, *part))
        out.update((str(p), (m, s, e)) for p, m, s, e in found)
    return out


def differing(
    disk: dict[str, tuple[int, int]],
    rows: dict[str, tuple[float, int, int]],
    known: KnownFiles,
    among: Iterable[str],
) -> list[str]:
    """The vault paths of `among` whose file differs from the index: a note or canvas new, of
    another mtime or size than its row, with no content hash (read again: `reconcile.compare`),
    or gone; another file new or gone (the attachments links resolve to: `known`). `disk`: the
    files of `among` on disk; `rows`: the index's rows of those notes (`rows_of`)."""
    out: list[str] = []
    for path in among:
        on_disk = disk.get(path)
        if indexed(path):
            row = rows.get(path)
            if on_disk is None:
                if row is not None:
                    out.append(path)
            elif row is None or not row[2] or (row[0], row[1]) != (mtime_of(on_disk[0]), on_disk[1]):
                out.append(path)
        elif on_disk is not None:
            if path not in known:
                out.append(path)
        elif path in known:
            out.append(path)
    return sorted(out)


def everything(view: View, rows: dict[str, tuple[float, int, int]], known: KnownFiles) -> list[str]:
    """`differing` for every file in `view` or known and every note in `rows` (all the index's):
    folder by folder, with no second map of the vault's files (`rows` is emptied)."""
    out: list[str] = []
    others: set[str] = set()
    taken: dict[str, tuple[float, int, int] | None] = {}  # rows of non-ASCII paths, for a name spelt twice
    for rel_dir, (joined, mtimes, sizes) in view.items():
        for path, mtime, size in zip(_paths(rel_dir, joined), mtimes, sizes, strict=True):
            if indexed(path):
                row = rows.pop(path, None) if path.isascii() else taken.setdefault(path, rows.pop(path, None))
                if row is None or not row[2] or (row[0], row[1]) != (mtime_of(mtime), size):
                    out.append(path)
            elif path not in others:
                others.add(path)
                if path not in known:
                    out.append(path)
    out += rows  # notes gone from disk
    out += [path for path in known if path not in others and not indexed(path)]
    return sorted(set(out))


def unlisted(root: Path, unread: list[OSError], listed: bool) -> tuple[str, ...]:
    """The prefixes (`folder/`, as the disk spells them) of the folders a look could not list:
    what the index holds below them is not taken for deleted. A vault folder that could not be
    listed, or that lists nothing while the index holds files (a network share not mounted, a
    stale handle), fails the look: the index is left as it is and the look is tried again."""
    held: list[str] = []
    for error in unread:
        rel = os.path.relpath(os.fsdecode(error.filename or root), root).replace(os.sep, "/")
        if rel == ".":
            raise error
        held.append(rel + "/")
    if not listed:
        raise FileNotFoundError(f"the vault folder {str(root)!r} lists nothing while the index holds files")
    return tuple(held)


async def look(ix: IndexerState, pause: Callable[[], None] | None) -> tuple[list[str], float]:
    """The vault paths whose file differs from the index (`reconcile.drift`), and the CPU seconds
    the look took in its threads (not the time it gave way to calls). The first look, and the
    first after a reconcile, compares every file with the index; later ones those the view says
    (module docstring). Nothing below a folder that could not be listed is told (its files are
    not taken for gone, nor looked at by path); what differs there is looked at again, and told
    once it lists again: the view keeps such a folder as it was."""
    state = kept(ix)
    epoch, old = state.epoch, state.view
    spent = [0.0]

    def timed(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        start = time.thread_time()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[0] += time.thread_time() - start

    unread: list[OSError] = []
    view = await asyncio.to_thread(timed, survey, ix.vault.paths, pause, unread)
    listed = any(folder[0] for folder in view.values()) or not len(ix._files)
    raw = unlisted(ix.vault.paths.root, unread, listed)
    below = tuple(unicodedata.normalize("NFC", prefix) for prefix in raw)
    vault_id = ix.vault.id
    if old is None:
        rows = await ix.db.run_scan(partial(timed, rows_of, vault_id=vault_id, paths=None, pause=pause))
        found = await asyncio.to_thread(timed, everything, view, rows, ix._files)
        del rows
    else:
        changed = await asyncio.to_thread(timed, moved, old, view, raw)
        again = [p for p in state.differing if p not in changed]
        disk = {p: st for p, st in changed.items() if st is not None}
        if again:
            disk.update(timed(files_in, view, again))
        among = [*changed, *again]
        notes = [p for p in among if indexed(p)]
        rows = await ix.db.run_scan(partial(timed, rows_of, vault_id=vault_id, paths=notes)) if notes else {}
        found = await asyncio.to_thread(timed, differing, disk, rows, ix._files, among)
    if state.epoch == epoch:  # no reconcile began meanwhile
        state.view, state.differing = view, found
    return [p for p in found if not p.startswith(below)], spent[0]
