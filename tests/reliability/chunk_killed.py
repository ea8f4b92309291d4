"""`python -m tests.reliability.chunk_killed VAULT`: a server process that renames `Hub` to `Centre`
(every note of `CHUNK_VAULT` links it) and kills itself (SIGKILL) while the first chunk of the
link rewrites (`service.vault.commit.TOGETHER` notes, written at once) is in flight.

Each of the chunk's writes is held in `write_in` once its journal record is made and its temp
file written and fsynced: the even ones (n000, n002, ...) right before their rename, the odd ones
right after it (the new bytes in place). When all of them are held, the write of n000 SIGKILLs
the process: the moved note at its new path, half the chunk renamed, the other half a temp file
each, the notes after the chunk untouched. Notes written one after the other never get there:
the first one held waits for the others, and the process ends with code 3 after `WAIT` seconds.
With `synced` after VAULT, the process SIGKILLs itself once every write of the first chunk has
ended (each note renamed, none of the chunk's folders fsynced yet: a chunk fsyncs each folder once,
when its writes have ended, `service.vault.chunks`). Used by tests/reliability/test_chunk_killed.py.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from service.app import VaultgateApp
from service.settings import load_settings
from service.types import Principal
from service.vault import files
from service.vault.commit import TOGETHER

NOTES = TOGETHER + 4  # a chunk, and some notes after it
CHUNK_VAULT: dict[str, str] = {
    "Hub.md": "# Hub\n",
    **{f"Notes/n{i:03}.md": f"# Note {i}\n\nSee [[Hub]].\n" for i in range(NOTES)},
}
CHUNK = [f"Notes/n{i:03}.md" for i in range(TOGETHER)]  # the plan's first chunk (its edits in path order)
WAIT = 30.0  # how long a held write waits for the rest of its chunk


def kill_in_the_chunk() -> None:
    write = files.write_in
    held = threading.Barrier(TOGETHER, timeout=WAIT)

    def hold(rel: str) -> None:
        try:
            held.wait()
        except threading.BrokenBarrierError:
            os._exit(3)  # the chunk's writes were not in flight together
        if rel == CHUNK[0]:
            os.kill(os.getpid(), signal.SIGKILL)
        threading.Event().wait()  # until the kill

    def write_and_hold(folder_fd: int, name: str, data: bytes, *, rel: str, check: Any = None, **more: Any) -> Any:
        if rel not in CHUNK:
            return write(folder_fd, name, data, rel=rel, check=check, **more)
        if CHUNK.index(rel) % 2 == 1:  # held once renamed
            done = write(folder_fd, name, data, rel=rel, check=check, **more)
            hold(rel)
            return done

        def check_then_hold() -> None:  # held between its fsync and its rename
            if check is not None:
                check()
            hold(rel)

        return write(folder_fd, name, data, rel=rel, check=check_then_hold, **more)

    files.write_in = write_and_hold  # type: ignore[assignment]


def kill_before_the_folders_synced() -> None:
    from service.vault.chunks import Chunk

    def kill(chunk: Chunk) -> int:
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("not killed")

    Chunk.sync = kill  # type: ignore[method-assign]


async def main(root: Path) -> None:
    # Enough worker threads for the whole chunk to be held at once (the default pool of a
    # 2-core machine has 6), and for the rest of the app's work beside it.
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=4 * TOGETHER))
    settings = load_settings(root, embeddings={"provider": "none"}, index={"watch": False}, plane={"enabled": False})
    app = VaultgateApp(settings)
    async with app.running():
        answer = await app.dispatcher.call(
            "rename_note", {"path": "Hub", "new_path": "Centre"}, principal=Principal.local("test")
        )
        print(f"not killed: rename_note answered {answer.structured}", file=sys.stderr)


if __name__ == "__main__":
    kill_before_the_folders_synced() if sys.argv[2:] == ["synced"] else kill_in_the_chunk()
    asyncio.run(main(Path(sys.argv[1])))
