"""The stale job's `orphaned_observation` (an observation whose `source` names a note that is gone)
through the dispatch chain: a source that names a file of the vault that is no note — a PDF, an
image, a canvas, a base, by link or by path — is there, not gone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started
from tests.tools.plane.test_plane import PLANTED, findings, of_kind, run

FILES = {
    **PLANTED,
    "Files/Contract.pdf": "%PDF-1.7\n",
    "Files/Photo 1.png": "png",
    "Boards/Plan.canvas": '{"nodes": [], "edges": []}',
    "Lists/Books.base": "views: []\n",
}


async def test_a_source_that_names_a_file_of_the_vault_is_not_gone(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        sources = [
            ("Signed the contract", "[[Contract.pdf]]"),
            ("Took the photo", "[[Files/Photo 1.png]]"),
            ("Drew the plan", "[[Plan.canvas]]"),
            ("Listed the books", "Lists/Books.base"),
            ("Read the missing scan", "[[Missing scan.pdf]]"),
        ]
        for text, source in sources:
            await vg.ok("add_observations", observations=[{"entityName": "Bob", "contents": [text], "source": source}])
        await run(vg, jobs=["stale"])
        stale = of_kind(await findings(vg), "orphaned_observation")
        assert [s["detail"]["observation"] for s in stale] == ["Read the missing scan"], stale
