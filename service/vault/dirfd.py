"""Changing the vault relative to folder descriptors, never through a symlink swapped in meanwhile.

`VaultPaths.resolve` checks a path as it is when the call starts; a folder on the way can be
replaced by a symlink to somewhere outside the vault before the file is written. Every change
(`service.vault.files`, `service.vault.restore`) therefore opens the folder it changes once,
walking from the vault root one component at a time with `O_NOFOLLOW | O_DIRECTORY`, and then
creates, writes, fsyncs, renames and removes *relative to that descriptor* (`dir_fd=`). A
component that is a symlink (or becomes one while the walk runs) fails the walk with
`path_invalid` (`reason: "symlink on the way"`): nothing is created, written or removed
anywhere. Once the folder is open, swapping a name above it for a link no longer matters: the
descriptor names the folder itself.

Names are looked up as the folder spells them: an NFC path opens a file or folder the disk names
in NFD (`service.vault.spelling`), so a write never makes a second, identical-looking name.

Symlinks *inside* the vault stay usable: callers resolve them first (`VaultFiles._real`) and hand
the real in-vault path here, which contains no link unless one was swapped in since.

What this cannot stop is someone renaming an opened folder out of the vault while a write is
under way: that needs write access to the vault's parent, and the file then lands in the folder
they moved themselves.
"""

from __future__ import annotations

import ctypes
import errno
import os
import secrets
import stat
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, TypeVar

from service.errors import PathInvalid
from service.vault import openat2, spelling
from service.vault.case_records import case_record, drop_case_record, temp_name
from service.vault.decoding import decode_start
from service.vault.etags import etag_of_stream
from service.vault.root_link import open_vault_folder

R = TypeVar("R")

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_FILE_READ = os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
NewName = Callable[[str, str], None]  # (rel, name) of a file or folder about to be created; may raise
Check = Callable[[os.stat_result], None]  # an opened file's stat, before it is read; may raise to refuse it


@dataclass
class Folder:
    """An open folder of the vault (`fd`), the vault-relative path it was opened as, and the
    folders the walk created on the way (outermost first)."""

    fd: int
    rel: str
    created: list[str] = field(default_factory=list)

    def child(self, name: str) -> str:
        return f"{self.rel}/{name}" if self.rel else name


def _on_the_way(rel: str, what: str) -> PathInvalid:
    return PathInvalid(
        f"{rel!r}: {what}",
        details={"path": rel, "reason": "symlink on the way" if "symlink" in what else "parent is a file"},
        hint="A folder on the way is a symlink or a file (perhaps swapped in while the call ran); nothing was changed.",
    )


def _open_child(parent: int, name: str, rel: str) -> int:
    """Open the sub-folder `name` of `parent` without following a link (FileNotFoundError when absent)."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):
            raise _on_the_way(rel, "a folder on the way is a symlink") from None
        if exc.errno == errno.ENOTDIR:
            try:
                is_link = stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
            except OSError:
                is_link = False
            raise _on_the_way(rel, "a folder on the way is a symlink" if is_link else "a parent is a file") from None
        raise


def _open_missing(opened: Folder, name: str, here: str, create: bool, new_name: NewName | None) -> int:
    """The sub-folder `name` of `opened`, not there as spelled: the entry holding it in another
    Unicode form (an NFD name from macOS), else (with `create`) a new folder."""
    other = spelling.twin(opened.fd, name)
    if other is not None:
        return _open_child(opened.fd, other, here)
    if not create:
        raise FileNotFoundError(errno.ENOENT, "no such folder", here)
    if new_name is not None:
        new_name(here, name)
    try:
        os.mkdir(name, 0o777, dir_fd=opened.fd)
        opened.created.append(here)
    except FileExistsError:
        pass  # made by someone else meanwhile: opened below like any folder (never a link)
    return _open_child(opened.fd, name, here)


@contextmanager
def folder(root: Path, rel: str, *, create: bool = False, new_name: NewName | None = None) -> Iterator[Folder]:
    """The folder `rel` (vault-relative, '' for the root) opened without following any link below
    the root; with `create`, missing folders are made on the way (`new_name` is asked first)."""
    opened = Folder(open_vault_folder(root), "")  # never through a link the vault folder became
    try:
        for name in rel.split("/") if rel else ():
            here = opened.child(name)
            try:
                sub = _open_child(opened.fd, name, here)
            except FileNotFoundError:
                sub = _open_missing(opened, name, here, create, new_name)
            os.close(opened.fd)
            opened.fd, opened.rel = sub, here
        yield opened
    finally:
        os.close(opened.fd)


def split(rel: str) -> tuple[str, str]:
    """(parent, name) of a vault-relative path."""
    parent, _, name = rel.rpartition("/")
    return parent, name


@contextmanager
def parent_of(
    root: Path, rel: str, *, create: bool = False, new_name: NewName | None = None
) -> Iterator[tuple[Folder, str]]:
    """The folder holding `rel` (opened as by `folder`) and `rel`'s own name in it: as the folder
    spells it where it holds the name in another Unicode form only (`service.vault.spelling`)."""
    parent, name = split(rel)
    with folder(root, parent, create=create, new_name=new_name) as opened:
        if not name.isascii() and lstat_in(opened, name) is None:
            name = spelling.twin(opened.fd, name) or name
        yield opened, name


def lstat_in(opened: Folder, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=opened.fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def read_file(root: Path, rel: str, check: Check | None = None) -> tuple[bytes, os.stat_result]:
    """The bytes of the regular file `rel` and their size and times, with no link followed
    anywhere on the way.

    FileNotFoundError when absent; IsADirectoryError for a folder; `path_invalid` for a link (on
    the way or the file itself) or a special file (a FIFO is never opened: it would block).

    Where Linux's `openat2` is armed (`service.vault.openat2`) a regular file is opened in one
    call that refuses a link in any component; anything else (a link, a missing file, a folder,
    a special file) is answered by the walk below, as before. `check`: called with the opened
    file's stat before anything is read (it may raise to refuse the file: `notesize`)."""
    got = read_plain(root, rel, check)
    if got is not None:
        return got
    fd, st = _walked(root, rel)
    with os.fdopen(fd, "rb", buffering=0) as fh:
        if check is not None:
            check(st)
        return fh.readall(), st


def open_file(root: Path, rel: str) -> tuple[int, os.stat_result]:
    """The regular file `rel` opened for reading as `read_file` opens it (no link followed
    anywhere on the way; `read_file`'s errors), and its stat: the caller closes the descriptor."""
    return got if (got := _plain(root, rel)) is not None else _walked(root, rel)


def read_start(root: Path, rel: str, chars: int) -> str:
    """The first `chars` characters of the file `rel` (opened as `read_file` opens it) as
    `decode_note` decodes the whole file, which is never held (`decoding.decode_start`)."""
    return scan_file(root, rel, lambda fh: decode_start(fh, 4 * chars)[:chars])  # a character: 4 bytes at most


def scan_file(root: Path, rel: str, scan: Callable[[BinaryIO], R], check: Check | None = None) -> R:
    """`scan` of the file `rel` opened as `read_file` opens it (`read_file`'s errors, its `check`), closed after."""
    fd, st = got if (got := _plain(root, rel)) is not None else _walked(root, rel)
    with os.fdopen(fd, "rb") as fh:
        if check is not None:
            check(st)
        return scan(fh)


def etag_at(root: Path, rel: str) -> str | None:
    """The etag of the regular file `rel` (`scan_file`'s walk), hashed a chunk at a time
    (`etag_of_stream`: a long note is never held whole); None when there is no file (a folder is
    reported by the write that tries it). `VaultFiles.current_etag` and undo's checks
    (`restore.current_etag`) both answer with it."""
    try:
        return scan_file(root, rel, etag_of_stream)
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def is_file(root: Path, rel: str) -> bool:
    """Whether `rel` is a regular file `read_file` reads (opened as it opens it, nothing read):
    False when absent or a folder, `read_file`'s other errors (a link, a special file) raised."""
    try:
        fd = got[0] if (got := _plain(root, rel)) is not None else _walked(root, rel)[0]
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return False
    os.close(fd)
    return True


def _walked(root: Path, rel: str) -> tuple[int, os.stat_result]:
    """`rel` opened for reading by the walk from the root (`read_file`'s errors)."""
    with parent_of(root, rel) as (opened, name):
        try:
            fd = os.open(name, _FILE_READ, dir_fd=opened.fd)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise _on_the_way(rel, "the file is a symlink") from None
            if exc.errno == errno.ENXIO:  # a socket
                raise _special(rel) from None
            raise
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder", rel)
        if not stat.S_ISREG(st.st_mode):
            raise _special(rel)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def arm_single_open(root: Path) -> None:
    """Let `read_file` open a regular file in one `openat2` call where the system has it
    (`service.vault.openat2`), probed on the vault `root`."""
    openat2.arm(_FILE_READ, str(root))


def read_plain(root: Path, rel: str, check: Check | None = None) -> tuple[bytes, os.stat_result] | None:
    """`read_file` of a regular file through `openat2` (one `open`, no walk), or None: not
    armed, or not a plain regular file reached without a link (the caller walks then)."""
    got = _plain(root, rel)
    if got is None:
        return None
    fd, st = got
    try:
        if check is not None:  # `read_file`'s, before anything is read
            check(st)
        data = os.read(fd, st.st_size + 1)
        if len(data) <= st.st_size:  # a regular file reads short only at its end
            return data, st
        chunks = [data]
        while chunks[-1]:  # grown since the fstat: to the end, as `readall` reads
            chunks.append(os.read(fd, 65536))
        return b"".join(chunks), st
    finally:
        os.close(fd)


def _plain(root: Path, rel: str) -> tuple[int, os.stat_result] | None:
    """`read_plain`'s open: the descriptor of a regular file reached without a link, or None."""
    open_no_links = openat2.opener()
    if open_no_links is None or "\x00" in rel:  # C would stop at a NUL: the walk refuses it
        return None
    try:
        fd = open_no_links(os.fsencode(f"{root}/{rel}"))
    except OSError:
        return None
    st = os.fstat(fd)
    if stat.S_ISREG(st.st_mode):
        return fd, st
    os.close(fd)
    return None


def _special(rel: str) -> PathInvalid:
    return PathInvalid(f"{rel!r} is not a regular file", details={"path": rel, "reason": "special file"})


def read_bytes(root: Path, rel: str) -> bytes:
    """`read_file`'s bytes."""
    return read_file(root, rel)[0]


def unlink(root: Path, rel: str, *, under: AbstractContextManager[object] | None = None) -> None:
    """Remove the file (or link) `rel` itself; FileNotFoundError when absent. `under` (a note's
    cross-process lock and last compare) is entered around the unlink alone: the folder's fsync
    comes after it is left, so another process waits for the unlink only, never for a disk."""
    with ExitStack() as held:
        with under if under is not None else nullcontext():  # its folder gone passes through it too
            opened, name = held.enter_context(parent_of(root, rel))
            os.unlink(name, dir_fd=opened.fd)
        os.fsync(opened.fd)


def rmdir(root: Path, rel: str) -> bool:
    """Remove the folder `rel` when it is empty; True when it is gone (or was)."""
    try:
        with parent_of(root, rel) as (opened, name):
            os.rmdir(name, dir_fd=opened.fd)
    except FileNotFoundError:
        return True
    except (OSError, PathInvalid):
        return False  # not empty, not a folder, a link on the way: left alone
    return True


def mkdirs(root: Path, rel: str, *, new_name: NewName | None = None) -> list[str]:
    """Make the folder `rel` and any missing parents; returns those made (outermost first)."""
    with folder(root, rel, create=True, new_name=new_name) as opened:
        return opened.created


def rename(
    root: Path,
    src: str,
    dst: str,
    *,
    create: bool = True,
    new_name: NewName | None = None,
    replace: bool = True,
    renamed: Callable[[], None] | None = None,
    under: AbstractContextManager[object] | None = None,
) -> list[str]:
    """Rename `src` to `dst` (files or folders), both folders opened without following links;
    missing folders above `dst` are made. Returns the folders made (outermost first). `renamed`
    is called once the rename took effect (before the folders are synced): an error before it
    means nothing was renamed. `under` is entered around the look at the source, the making of
    `dst`'s folders and the rename (not the fsyncs after), as in `unlink`.

    `replace=False`: FileExistsError when something is at `dst`, checked by the rename itself
    (`renameat2` with `RENAME_NOREPLACE`) where the system has it: a file another program
    created there a moment before is never replaced.

    On a case-blind disk (macOS, Windows) `Meeting Notes.md` reaches `meeting notes.md` itself:
    a rename in letter case only (`same_entry`) goes through a temporary name (`_via_temp`)."""
    with ExitStack() as opened:
        # `under` first: the source's absence (or its folder's) and a refused compare then pass
        # through it, and a refused rename makes none of the destination's folders
        with under if under is not None else nullcontext():
            src_dir, src_name = opened.enter_context(parent_of(root, src))
            if (before := lstat_in(src_dir, src_name)) is None:
                raise FileNotFoundError(errno.ENOENT, "no such file or folder", src)
            dst_dir, dst_name = opened.enter_context(parent_of(root, dst, create=create, new_name=new_name))
            if src_name != dst_name and same_entry(before, lstat_in(dst_dir, dst_name), src_name, dst_name):
                _via_temp(root, src_dir, src_name, dst_dir, dst_name, src, dst)
            elif replace:
                os.rename(src_name, dst_name, src_dir_fd=src_dir.fd, dst_dir_fd=dst_dir.fd)
            else:
                _rename_noreplace(src_dir, src_name, dst_dir, dst_name, dst)
            if renamed is not None:
                renamed()
        os.fsync(dst_dir.fd)
        if src_dir.rel != dst_dir.rel:
            os.fsync(src_dir.fd)
        return dst_dir.created


def same_entry(a: os.stat_result | None, b: os.stat_result | None, a_name: str, b_name: str) -> bool:
    """Whether two names that differ in letter case (or Unicode form) only reach one file or
    folder: a case-blind disk (on a case-sensitive one they are two entries, or one is absent)."""
    if a is None or b is None or (a.st_dev, a.st_ino) != (b.st_dev, b.st_ino):
        return False
    return unicodedata.normalize("NFC", a_name).casefold() == unicodedata.normalize("NFC", b_name).casefold()


def one_entry(a: Path, b: Path) -> bool:
    """`same_entry` for two paths (`a` and `b` themselves, no link followed)."""
    try:
        return same_entry(os.lstat(a), os.lstat(b), a.name, b.name)
    except OSError:
        return False


def _via_temp(root: Path, src_dir: Folder, src_name: str, dst_dir: Folder, dst_name: str, src: str, dst: str) -> None:
    """A rename to another letter case of the same name on a case-blind disk, where the disk
    finds the entry itself at the new name (`RENAME_NOREPLACE` refuses; rename(2) of a file
    onto itself does nothing): two atomic no-replace renames, `src` to a free temporary name
    beside it, then to `dst`; if the second is refused, the first is undone. A crash in between
    leaves the note whole under the temporary name, a visible note Obsidian and the index list
    (never a `.vgtmp` the temp sweep removes), and the rename's record in the vault folder
    (`case_renames`), written and synced before the first rename, from which the next start
    finishes it."""
    token = secrets.token_hex(4)
    temp = temp_name(src_name, token)
    record = case_record(root, token, src, f"{split(src)[0]}/{temp}".lstrip("/"), dst)
    try:
        _rename_noreplace(src_dir, src_name, src_dir, temp, dst)
    except BaseException:  # nothing was renamed: no record of a rename left behind
        drop_case_record(root, record)
        raise
    try:
        _rename_noreplace(src_dir, temp, dst_dir, dst_name, dst)
    except OSError:
        _rename_noreplace(src_dir, temp, src_dir, src_name, dst)
        drop_case_record(root, record)
        raise
    os.fsync(src_dir.fd)
    os.fsync(dst_dir.fd)  # the rename is on disk before its record goes
    drop_case_record(root, record)


_RENAME_NOREPLACE = 1
_renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)


def _rename_noreplace(src_dir: Folder, src_name: str, dst_dir: Folder, dst_name: str, dst: str) -> None:
    if _renameat2 is not None:
        names = (os.fsencode(src_name), os.fsencode(dst_name))
        if _renameat2(src_dir.fd, names[0], dst_dir.fd, names[1], _RENAME_NOREPLACE) == 0:
            return
        err = ctypes.get_errno()
        if err not in (errno.ENOSYS, errno.EINVAL):  # not there, or not on this file system: as before
            raise OSError(err, os.strerror(err), dst)
    if lstat_in(dst_dir, dst_name) is not None:
        raise FileExistsError(errno.EEXIST, "already exists", dst)
    os.rename(src_name, dst_name, src_dir_fd=src_dir.fd, dst_dir_fd=dst_dir.fd)
