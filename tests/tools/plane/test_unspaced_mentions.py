"""The audit's unlinked mentions of a title written partly in a script without spaces
(service/retrieval/unspaced.py): the word index holds each such character as a word of its own,
so the audit asks for the title as the index holds it; asked as written, "東京 Office" was one
word the index no longer holds, and the mention was lost."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started
from tests.tools.plane.test_plane import findings, of_kind, run


async def test_a_mention_of_a_title_in_two_scripts_is_found(make_vault: Callable[..., Path]) -> None:
    vault = {
        "Places/東京 Office.md": "# 東京 Office\n\nThe office in Tokyo.\n",
        "Trips/Visit.md": "# Visit\n\nWe met at the 東京 Office today.\n",
        "Trips/Other.md": "# Other\n\nThe Kyoto office, not that one.\n",
    }
    async with started(make_vault(vault)) as vg:
        await vg.indexed()
        await run(vg, jobs=["audit"])
        found = {(m["detail"]["path"], m["detail"]["target"]) for m in of_kind(await findings(vg), "unlinked_mention")}
        assert found == {("Trips/Visit.md", "Places/東京 Office.md")}
