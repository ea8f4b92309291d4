"""The record of a rename in letter case only, and finishing one a crash cut in two.

On a case-blind disk `meeting notes.md` -> `Meeting Notes.md` goes through a temporary name
(`dirfd._via_temp`: `meeting notes (renaming 1a2b3c4d).md`, two no-replace renames). Before the
first rename, a record is written and synced in the vault folder (`case_records.case_record`) (hidden, as Obsidian skips
dot files): `.<token>.p<pid>h<host>.vgcase`, holding the three vault-relative paths (`src`,
`temp`, `dst`); it goes once the second rename is on disk. A process killed between the two
renames leaves the note under the temporary name and the record. At the next start `finish`
completes each record whose writer is gone (judged as `service.vault.temps` judges a temp
file's): the temporary name renamed to `dst`, or, when something took `dst` meanwhile, back to
`src` (no-replace renames both: nothing is ever replaced; when both are taken the note stays
whole under its temporary name, the record kept and the log says so). A record whose temporary
name is not there (killed before the first rename, or after the second) is only removed. It
runs before the interrupted calls are rolled back from the plan journal
(`service.plans.recovery`: a killed rename_note is all or nothing, so it then goes back to
`src`, its links as they were) and before each disk scan of the indexer.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
import unicodedata
from pathlib import Path

from service.errors import VaultgateError
from service.vault import case_records, dirfd
from service.vault.temps import GRACE_SECONDS, HOST, PROCESS_START, _alive

SUFFIX = case_records.CASE_RECORD
RECORD_NAME = re.compile(r"^\.[0-9a-f]{8}\.p(?P<pid>\d+)h(?P<host>[0-9a-f]{8})\.vgcase$")
log = logging.getLogger("vaultgate.vault")


def _writer_gone(path: Path, *, started: float) -> bool:
    """Whether the process that wrote the record is gone (never a rename still under way)."""
    found = RECORD_NAME.match(path.name)
    if found is None:
        return False
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return False
    pid = int(found["pid"])
    if pid == os.getpid():
        return mtime < started  # an earlier process with this pid (a container's restart)
    if found["host"] == HOST:
        return not _alive(pid)
    return time.time() - mtime > GRACE_SECONDS  # another host's: its pid says nothing here


def finish(root: Path, *, started: float = PROCESS_START) -> list[str]:
    """Finish (or undo) the case-only renames a crash cut in two, from their records in the vault
    folder; returns the paths their notes have now (those whose temporary name was renamed)."""
    try:
        names = [n for n in os.listdir(root) if n.endswith(SUFFIX)]
    except OSError:
        return []
    done: list[str] = []
    for name in sorted(names):
        path = root / name
        if path.is_symlink() or not path.is_file() or not _writer_gone(path, started=started):
            continue  # a folder or a link named like a record is not one
        try:
            record = json.loads(path.read_bytes())
            src, temp, dst = str(record["src"]), str(record["temp"]), str(record["dst"])
        except (OSError, ValueError, KeyError, TypeError):
            record = None  # torn: written before the first rename, which never ran
        if record is not None and not _plausible(name, src, temp, dst):
            log.warning("ignored %s: it does not name a case-only rename this server makes", name)
            continue
        if record is not None:
            try:
                landed = _finished(root, src, temp, dst)
            except (OSError, VaultgateError) as exc:  # the name taken in any case, a folder gone
                log.warning("could not finish the rename of %s to %s (the note is %s): %s", src, dst, temp, exc)
                continue  # the note stays whole under its temporary name; the next start tries again
            if landed is not None:
                done.append(landed)
                log.warning("finished a rename cut by a crash: %s is now %s", temp, landed)
        try:
            case_records.drop_case_record(root, name)
        except OSError as exc:
            log.warning("could not remove %s: %s", name, exc)
    return done


def _plausible(name: str, src: str, temp: str, dst: str) -> bool:
    """Whether a record names what `dirfd._via_temp` writes, and nothing else: three vault paths
    (no `..`, no hidden or empty segment) in one folder, `dst` the same name as `src` in another
    letter case, `temp` the temporary name of the record's own token. A record copied in by a
    sync tool or written by hand moves no other file, into or out of the vault."""
    split = [path.split("/") for path in (src, temp, dst)]
    for segments in split:
        if any(not seg or seg.startswith(".") or "\\" in seg or "\x00" in seg for seg in segments):
            return False
    if len({"/".join(segments[:-1]) for segments in split}) != 1:
        return False
    old, between, new = (segments[-1] for segments in split)
    same = unicodedata.normalize("NFC", old).casefold() == unicodedata.normalize("NFC", new).casefold()
    if old == new or not same:
        return False
    return between == case_records.temp_name(old, name[1:9])


def _finished(root: Path, src: str, temp: str, dst: str) -> str | None:
    """Rename `temp` to `dst`, or back to `src` when `dst` is taken; None when `temp` is gone."""
    with dirfd.parent_of(root, temp) as (folder, name):
        if dirfd.lstat_in(folder, name) is None:
            return None  # never renamed, or renamed on: nothing to finish
    try:
        dirfd.rename(root, temp, dst, create=False, replace=False)
    except FileExistsError:
        dirfd.rename(root, temp, src, create=False, replace=False)
        return src
    return dst
