"""`python -m tests.case_rename_killed VAULT [bare]`: a process killed inside a case-only rename.

It makes the disk under VAULT case-blind at the file layer (`case_blind`, as macOS and Windows
disks are: a name the folder does not hold is looked up again in any letter case, and the
no-replace rename is its look), starts the app on VAULT (the test's data folder) and renames
`Inbox/meeting notes` to `Meeting Notes` through the dispatch chain. The rename goes through a
temporary name (`service.vault.dirfd._via_temp`); the process kills itself (SIGKILL) at the
second rename, after the first: the note is under its temporary name, nothing else ran
(tests/tools/notes/test_case_rename_killed.py). With `bare`, no server: the file layer's rename
itself (`dirfd.rename`, what a rename outside any journaled call would be) is killed the same way.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.app import VaultgateApp
from service.settings import load_settings
from service.types import Principal
from service.vault import dirfd


def _fold(name: str) -> str:
    return unicodedata.normalize("NFC", name).casefold()


def case_blind(under: Path, setattr_: Callable[[Any, str, Any], None] = setattr) -> None:
    """Make `os.stat`/`os.lstat` under `under` find a missing name in any letter case, and the
    no-replace rename its look (`setattr_`: a test's monkeypatch.setattr, undone after it)."""
    real_stat, real_lstat = os.stat, os.lstat
    prefix = str(under)

    def blind(real: Callable[..., os.stat_result]) -> Callable[..., os.stat_result]:
        def look(path: Any, *args: Any, dir_fd: int | None = None, **kwargs: Any) -> os.stat_result:
            try:
                return real(path, *args, dir_fd=dir_fd, **kwargs)
            except FileNotFoundError:
                if not isinstance(path, str | os.PathLike) or isinstance(path, bytes):
                    raise
                text = os.fspath(path)
                folder, name = os.path.split(text)
                if dir_fd is None and not os.path.abspath(text).startswith(prefix):
                    raise
                listed = os.listdir(dir_fd if dir_fd is not None and not folder else (folder or "."))
                twin = next((n for n in listed if n != name and _fold(n) == _fold(name)), None)
                if twin is None:
                    raise
                return real(os.path.join(folder, twin), *args, dir_fd=dir_fd, **kwargs)

        return look

    setattr_(os, "stat", blind(real_stat))
    setattr_(os, "lstat", blind(real_lstat))
    setattr_(dirfd, "_renameat2", None)  # NOREPLACE is the look, which the disk answers


def die_at_the_second_rename() -> None:
    """SIGKILL this process when the temporary name is renamed on (the first rename done)."""
    real = dirfd._rename_noreplace

    def rename_or_die(src_dir: Any, src_name: str, *args: Any) -> None:
        if " (renaming " in src_name:
            os.kill(os.getpid(), signal.SIGKILL)
        real(src_dir, src_name, *args)

    dirfd._rename_noreplace = rename_or_die  # type: ignore[assignment]


async def main(root: Path) -> None:
    settings = load_settings(root, embeddings={"provider": "none"}, index={"watch": False}, http={"port": 0})
    app = VaultgateApp(settings)
    async with app.running():
        args = {"path": "Inbox/meeting notes", "new_path": "Meeting Notes", "dry_run": False}
        result = await app.dispatcher.call("rename_note", args, principal=Principal.local("test"))
        print(f"not killed: {result.structured}", file=sys.stderr)


if __name__ == "__main__":
    vault = Path(sys.argv[1]).resolve()
    case_blind(vault.parent)
    die_at_the_second_rename()
    if sys.argv[2:3] == ["bare"]:
        dirfd.rename(vault, "Inbox/meeting notes.md", "Inbox/Meeting Notes.md", replace=False)
        print("not killed", file=sys.stderr)
    else:
        asyncio.run(main(vault))
