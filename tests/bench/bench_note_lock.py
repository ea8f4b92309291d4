"""The cross-process note lock's cost per write (`service.vault.notelocks`), in process.

    python -m tests.bench.bench_note_lock [--rounds 5] [--each 150]

One small note in a fresh temp vault; each round runs `--each` `VaultFiles.write` calls with the
etag read and `--each` `modify` appends, once with the lock and once with it replaced by a no-op
(alternated, the order swapped every round), and times each call. Also times the lock alone
(open + flock + close of its file). Reported: median microseconds per call of each side over the
rounds' medians, and their ratio. Prints JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from service.vault import notelocks, temps
from service.vault.events import ChangeBus
from service.vault.files import VaultFiles
from service.vault.paths import VaultPaths


@contextlib.contextmanager
def _no_lock(root: Path | str, rel: str, *, wait: float | None = None) -> Iterator[None]:
    yield


async def _round(root: Path, each: int) -> tuple[float, float]:
    files = VaultFiles(VaultPaths(root), ChangeBus(), max_concurrent=4, trash_folder=".trash")
    vp = files.paths.resolve("Ann.md")
    writes: list[float] = []
    modifies: list[float] = []
    for i in range(each):
        note = files.read(vp)
        start = time.perf_counter()
        await files.write(vp, f"{note.content}- w{i}\n", expected_etag=note.etag)
        writes.append(time.perf_counter() - start)
        start = time.perf_counter()
        await files.modify(vp, lambda text, i=i: f"{text}- m{i}\n")
        modifies.append(time.perf_counter() - start)
    return statistics.median(writes) * 1e6, statistics.median(modifies) * 1e6


def _lock_alone(root: Path, n: int = 2000) -> float:
    start = time.perf_counter()
    for _ in range(n):
        with notelocks.held(root, "Ann.md"):
            pass
    return (time.perf_counter() - start) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--each", type=int, default=150)
    args = parser.parse_args()
    held = notelocks.held
    with tempfile.TemporaryDirectory(prefix="bench-note-lock-") as tmp:
        os.environ.setdefault("XDG_DATA_HOME", os.path.join(tmp, "data"))
        sides: dict[str, list[tuple[float, float]]] = {"locked": [], "unlocked": []}
        for r in range(args.rounds):
            for side in ("locked", "unlocked") if r % 2 == 0 else ("unlocked", "locked"):
                root = Path(tmp) / f"vault-{r}-{side}"
                root.mkdir()
                (root / "Ann.md").write_text("- seed\n", encoding="utf-8")
                temps.notelocks.held = held if side == "locked" else _no_lock  # type: ignore[assignment]
                try:
                    sides[side].append(asyncio.run(_round(root, args.each)))
                finally:
                    temps.notelocks.held = held  # type: ignore[assignment]
        alone = statistics.median(_lock_alone(Path(tmp)) for _ in range(5))
    result: dict[str, object] = {"rounds": args.rounds, "each": args.each, "lock_alone_us": round(alone, 1)}
    for i, kind in enumerate(("write", "modify")):
        locked = statistics.median(s[i] for s in sides["locked"])
        unlocked = statistics.median(s[i] for s in sides["unlocked"])
        ratio = round(locked / unlocked, 3)
        result[kind] = {"locked_us": round(locked), "unlocked_us": round(unlocked), "ratio": ratio}
    result["load"] = os.getloadavg()[0]
    print(json.dumps(result))


if __name__ == "__main__":
    main()
