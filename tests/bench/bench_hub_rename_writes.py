"""A note linked from many notes renamed: its plan and its writes, in seconds, and the process's
peak resident memory.

    python -m tests.bench.bench_hub_rename_writes [--notes 20000] [--cap N] [--profile FILE]

Writes a vault into a temporary folder: `Hub.md` and `--notes` notes `Notes/n{i}.md` (1,000 a
folder), each "See [[Hub]].", so every one of them is rewritten when `Hub` is renamed. Indexed in
this process, then `rename_note` `Hub.md` -> `Hub2` through the full dispatch chain: the dry run
(the plan alone), then the rename (its plan again, then its journaled writes; in one folder, so
no confirmation is asked).
`--cap`: `[limits] max_rewrite_notes` (the default's refusal past 20,000 is printed instead). With
`--profile`, the confirmed call runs under cProfile and its stats are dumped to FILE. Prints
one JSON object (`peak_rss_mb`: ru_maxrss of this process, the index build included). Not part of
the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.conftest import started


def write_vault(root: Path, notes: int) -> None:
    root.mkdir(parents=True)
    (root / "Hub.md").write_text("# Hub\n\nThe hub.\n")
    for i in range(notes):
        folder = root / "Notes" / f"f{i // 1000}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"n{i}.md").write_text(f"# n{i}\n\nSee [[Hub]].\nMore text {i}.\n")


async def run(notes: int, cap: int | None, profile: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"notes": notes, "max_rewrite_notes": cap}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        write_vault(root, notes)
        rename = {"path": "Hub.md", "new_path": "Hub2"}
        async with started(root, **({"limits": {"max_rewrite_notes": cap}} if cap else {})) as vg:
            await vg.indexed(within=3600)
            began = time.monotonic()
            dry = await vg.call("rename_note", **rename, dry_run=True)
            out["dry_run_s"] = round(time.monotonic() - began, 2)
            if dry.is_error:
                out["refused"] = dry.structured
                return out
            profiler = cProfile.Profile() if profile else None
            began = time.monotonic()
            if profiler is not None:
                profiler.enable()
            done = await vg.call("rename_note", **rename)
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(profile)
            out["rename_s"] = round(time.monotonic() - began, 2)
            out["result"] = {k: v for k, v in (done.structured or {}).items() if k != "items"}
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=20_000)
    parser.add_argument("--cap", type=int, default=None)
    parser.add_argument("--profile", default=None)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.notes, args.cap, args.profile))))


if __name__ == "__main__":
    main()
