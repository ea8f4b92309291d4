"""A folder move linked from many notes: its dry run, its confirmation's preview and the confirmed
move, in seconds; and the same move under a small `[limits] max_rewrite_seconds`.

    python -m tests.bench.bench_folder_move_budget [--notes 20000] [--topics 50] [--budget S]

Writes a vault into a temporary folder: `Topics/T0.md` .. `T{topics-1}.md`, and `--notes` notes
`Notes/n{i}.md`, each "See [[Topics/T{i % topics}]] and [t](../Topics/T{7i % topics}.md).", so
every one of them is rewritten when `Topics` moves. Indexed in this process, then `move_note`
`Topics` -> `Archive/Topics` through the full dispatch chain: the dry run, the preview a
confirmation asks for (its plan is kept), the confirmed move. With `--budget`, `max_rewrite_seconds`
is that and the dry run's refusal (notes examined / total) is printed instead. Prints one JSON
object. Not part of the test run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.conftest import started


def write_vault(root: Path, notes: int, topics: int) -> None:
    (root / "Topics").mkdir(parents=True)
    (root / "Notes").mkdir()
    for t in range(topics):
        (root / "Topics" / f"T{t}.md").write_text(f"# T{t}\n\nTopic {t}.\n")
    for i in range(notes):
        link = f"See [[Topics/T{i % topics}]] and [t](../Topics/T{(i * 7) % topics}.md).\n"
        (root / "Notes" / f"n{i}.md").write_text(f"# n{i}\n\n{link}More text {i}.\n")


async def run(notes: int, topics: int, budget: float | None) -> dict[str, Any]:
    out: dict[str, Any] = {"notes": notes, "topics": topics, "max_rewrite_seconds": budget}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault"
        write_vault(root, notes, topics)
        overrides: dict[str, Any] = {"limits": {"max_rewrite_seconds": budget}} if budget else {}
        move = {"path": "Topics", "new_path": "Archive/Topics"}
        async with started(root, **overrides) as vg:
            await vg.indexed(within=1800)
            began = time.monotonic()
            dry = await vg.call("move_note", **move, dry_run=True)
            out["dry_run_s"] = round(time.monotonic() - began, 2)
            if dry.is_error:
                out["refused"] = dry.structured
                return out
            began = time.monotonic()
            token = await vg.token_for("move_note", **move)
            out["preview_s"] = round(time.monotonic() - began, 2)
            began = time.monotonic()
            done = await vg.ok("move_note", **move, elicit_token=token)
            out["move_s"] = round(time.monotonic() - began, 2)
            out["links_rewritten"] = done["links_rewritten"]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--notes", type=int, default=20_000)
    parser.add_argument("--topics", type=int, default=50)
    parser.add_argument("--budget", type=float, default=None)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.notes, args.topics, args.budget))))


if __name__ == "__main__":
    main()
