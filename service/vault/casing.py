"""Case twins: a new file or folder whose name differs from an existing one's in letter case only.

`notes/Alpha.md` beside `notes/alpha.md` is two notes on Linux, one on macOS and Windows (a synced
copy keeps one of them, or fails), and one name to Obsidian's links (`[[alpha]]` reaches either).
Every create refuses it the same way (`already_exists` naming the note that is there): the file
layer checks each path it is about to create (`VaultFiles.check_new`), whatever tool asked; a
batch checks its own paths against each other before it writes (`fold`).

Only names that do not exist as spelled are looked for (a write to an existing note is no
create); the folder a missing name would go into is scanned once (in a worker thread: a folder of
50k names takes ~50 ms). Names compare as Obsidian's links do: in NFC and lower case (JavaScript's
`toLowerCase`, one letter for one letter, final sigma as sigma), so `Café`/`CAFÉ` are twins and
`Masse`/`Maße` or `file`/`ﬁle` are not (different words, which full case folding would merge).

Two creates of twins at the same time in one process are serialized by `create_keys` (the file
layer holds a lock on each around the check and the write), so the second is refused; another
program creating a twin between the check and the write is not seen (a race, as for any name).
"""

from __future__ import annotations

import contextlib
import os
import unicodedata
from collections.abc import AsyncIterator, Callable
from pathlib import Path

from service.errors import AlreadyExists
from service.vault.spelling import on_disk

CASE_TWIN_HINT = (
    "Use the existing name (read or edit that note), or a name that differs in more than letter case: "
    "names that differ only in case are one file on macOS and Windows and one name to Obsidian's links."
)


class CaseTwin(AlreadyExists):
    """`already_exists`: the new path differs from an existing file or folder only in letter case."""

    default_hint = CASE_TWIN_HINT


def fold(name: str) -> str:
    """The form two names that differ only in letter case (or Unicode spelling) share: NFC, then
    lower case as JavaScript's `toLowerCase` (what Obsidian compares link targets with), not full
    case folding (`casefold` makes `Maße` `masse`, `ﬁle` `file`: other words, not other case)."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).lower()).replace("ς", "σ")


def _first_missing(root: Path, rel: str, spelled: bool = True) -> tuple[str, int, str] | None:
    """The folder above, depth and name of the first segment of `rel` not on disk (None: all are);
    `spelled`: as the disk spells the segments (`on_disk`: a scan of a folder per non-ASCII name
    not there in NFC), else as given."""
    folder = str(root)
    for depth, segment in enumerate((on_disk(str(root), rel) if spelled else rel).split("/")):
        here = f"{folder}/{segment}"
        if not os.path.lexists(here):
            return folder, depth, segment
        folder = here
    return None


def create_keys(root: Path, rel: str) -> list[str]:
    """What two creates that could make twins of each other share: the folded path down to each
    segment of `rel` from the first one not on disk to the last (`D/X/a.md` and `D/x/b.md` share
    `d/x` when `D` is there); none when nothing is created. Every depth, not only the first new
    one: a create that finds `Memory` missing and one that finds it made meanwhile (by the first,
    whose file is not written yet) share `memory/ann.md` for `Memory/Ann.md` and `Memory/ann.md`.
    In depth order, the order every create takes them in (folding keeps the segments), so two
    creates never wait for each other's. On the event loop: names as given, no folder scanned (two
    creates of twins spell their common part alike; NFD/NFC spellings are `on_disk`'s, checked later)."""
    missing = _first_missing(root, rel, spelled=False)
    if missing is None:
        return []
    parts = rel.split("/")
    return [fold("/".join(parts[: depth + 1])) for depth in range(missing[1], len(parts))]


@contextlib.asynccontextmanager
async def creating(
    root: Path, rel: str, lock: Callable[[str], contextlib.AbstractAsyncContextManager[object]]
) -> AsyncIterator[None]:
    """The locks (`lock(name)`, `VaultFiles.lock`) two creates that could twin each other share
    (`create_keys`), held around the twin check and the change: of `B/Twin.md` and `B/twin.md`
    created at once, the second waits for the first and is refused."""
    async with contextlib.AsyncExitStack() as held:
        for key in create_keys(root, rel):
            await held.enter_async_context(lock("case:" + key))
        yield


def case_twin(
    root: Path, rel: str, listed: dict[str, dict[str, str]] | None = None, *, itself: str | None = None
) -> str | None:
    """The existing file or folder (its vault path) that creating `rel` would make a case twin of:
    the first segment of `rel` not on disk, compared with the entries of the folder above it; None
    when every segment is there as spelled, or no entry twins the missing one. `listed`: folders
    already read, each as {folded name: name} (a batch's many paths into one folder read and fold
    it once, before any write: each check is then a look-up, and names are taken as given, not
    looked up in other spellings: the write's own check, without `listed`, does that). `itself`: the
    path a move takes its file or folder from, no twin of its new name (another entry that folds
    alike still is, whichever the folder lists first)."""
    missing = _first_missing(root, rel, spelled=listed is None)
    if missing is None:
        return None
    folder, depth, segment = missing
    key = fold(segment)
    parts = rel.split("/")[:depth]
    own = itself.split("/") if itself is not None else []
    skip = own[depth] if len(own) == depth + 1 and own[:depth] == parts else None
    try:
        found = _in_folder(folder, segment, key, listed, skip)
    except OSError:  # the folder above is not a folder: the write itself answers that
        return None
    if found is None:
        return None
    return "/".join([*parts, unicodedata.normalize("NFC", found)])


def _in_folder(
    folder: str, segment: str, key: str, listed: dict[str, dict[str, str]] | None, skip: str | None = None
) -> str | None:
    """The entry of `folder` other than `segment` (and `skip`, a move's own source) that folds to
    `key` (OSError: not a folder)."""
    if listed is not None:
        folded = listed.get(folder)
        if folded is None:
            folded = listed[folder] = {}
            for other in os.listdir(folder):
                folded.setdefault(fold(other), other)
        hit = folded.get(key)  # the same name spelled in NFD is that name, no twin
        return hit if hit is not None and unicodedata.normalize("NFC", hit) != segment else None
    low = segment.lower()
    quick = segment.isascii()
    for other in os.listdir(folder):
        if (other.lower() == low if quick and other.isascii() else fold(other) == key) and other not in (segment, skip):
            return other
    return None


def refuse_case_twin(
    root: Path, rel: str, *, itself: str | None = None, listed: dict[str, dict[str, str]] | None = None
) -> None:
    """`CaseTwin` when creating `rel` would make a case twin; `itself`: the path a move takes the
    file or folder from (a rename in letter case only twins nothing but itself); `listed`: see
    `case_twin`."""
    found = case_twin(root, rel, listed, itself=itself)
    if found is not None and found != itself:
        raise CaseTwin(
            f"{found!r} already exists: {rel!r} differs from it only in letter case",
            details={"path": found, "new_path": rel},
        )


def refuse_batch_twin(folded: dict[str, str], rel: str) -> None:
    """`CaseTwin` when the new path `rel` (or a folder it makes) twins one an earlier path of the
    same batch makes; records `rel`'s in `folded` (case folded path -> as spelled)."""
    segments = rel.split("/")
    for depth in range(1, len(segments) + 1):
        spelled = "/".join(segments[:depth])
        earlier = folded.setdefault(fold(spelled), spelled)
        if earlier != spelled:
            raise CaseTwin(
                f"{earlier!r} is created earlier in this call: {spelled!r} differs from it only in letter case",
                details={"path": earlier, "new_path": spelled},
            )
