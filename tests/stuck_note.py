"""`python -m tests.stuck_note VAULT`: `vaultgate serve VAULT --port 0` in which preparing the
rows of a note named `Stuck*.md` never ends (it stands for a note whose parsing takes minutes;
a thread cannot be interrupted). When that work starts, "preparing Stuck" is printed. Used by
tests/reliability/test_stop_while_preparing.py: SIGTERM must still stop the process.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

from service.indexer import rows
from service.serve import run_http
from service.settings import load_settings


def hold_stuck_notes() -> None:
    original = rows.prepare

    def held(item: rows.NoteInput, paths: Any, *rest: Any) -> rows.Prepared:  # rest: the task format
        if item.path.startswith("Stuck"):
            print(f"preparing {item.path}", flush=True)
            threading.Event().wait()  # forever, as CPU work no one can interrupt
        return original(item, paths, *rest)

    rows.prepare = held  # type: ignore[assignment]


if __name__ == "__main__":
    hold_stuck_notes()
    root = Path(sys.argv[1])
    run_http(load_settings(root, embeddings={"provider": "none"}, http={"port": 0}, plane={"enabled": False}))
