"""`python -m tests.plane_killed VAULT MARKER [in-job|in-record]`: a server process killed in a consolidation run.

It starts the app on VAULT (the state database of the test's data folder) and calls
run_consolidation through the dispatch chain with three jobs: `first` (one finding), `second` and
`third`. `first` ends and is recorded; then, with `in-job` (the default), `second` writes MARKER
inside its run and waits forever; with `in-record`, `second` ends with one finding and its record
is held inside its transaction (its finding written, not committed: at the plane's state naming
its report), where MARKER is written and the writer thread waits forever. The test then kills
the process with SIGKILL (tests/tools/plane/test_run_killed_mid_job.py).
"""

from __future__ import annotations

import asyncio
import sys
import threading
from pathlib import Path
from typing import Any

from service.app import VaultgateApp
from service.plane import plane as plane_module
from service.plane.findings import Finding
from service.plane.job import JobContext, Need
from service.settings import load_settings
from service.types import Principal

FOREVER = threading.Event()  # never set: a thread held until the kill


class One:
    needs: tuple[Need, ...] = ()

    def __init__(self, name: str, marker: Path | None = None) -> None:
        self.name, self.marker = name, marker

    async def run(self, ctx: JobContext) -> list[Finding]:
        if self.marker is not None:  # in-job: killed while this job runs
            self.marker.write_text("held\n")
            await asyncio.Event().wait()
        path = "Home.md" if self.name == "first" else "Other.md"
        return [Finding(job=self.name, kind="orphan", key=f"orphan:{self.name}", title=self.name, paths=[path])]


def hold_in_record(marker: Path) -> None:
    """Hold the transaction that records `second`, once its finding is written, at the plane's state
    naming its report: MARKER, then the writer thread waits for the kill (nothing of it committed)."""
    real = plane_module.upsert

    def held(conn: Any, vault_id: str, last_run: Any, cursor: Any, summary: dict[str, Any]) -> None:
        if any(r.get("job") == "second" for r in summary.get("jobs", [])):
            marker.write_text("held\n")
            FOREVER.wait()
        real(conn, vault_id, last_run, cursor, summary)

    plane_module.upsert = held  # type: ignore[assignment]


async def main(root: Path, marker: Path, where: str) -> None:
    settings = load_settings(root, embeddings={"provider": "none"}, index={"watch": False}, plane={"enabled": False})
    app = VaultgateApp(settings)
    async with app.running():
        assert app.plane is not None
        second = One("second", marker if where == "in-job" else None)
        app.plane.jobs = (One("first"), second, One("third"))
        if where == "in-record":
            hold_in_record(marker)
        await app.dispatcher.call("run_consolidation", {"wait": True}, principal=Principal.local("test"))


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "in-job"))
