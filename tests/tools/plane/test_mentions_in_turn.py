"""The audit's unlinked mentions come to every note in turn. It looks for `MENTION_TITLES` (300)
titles a run: it took the notes nothing links in path order, so in a vault with more than 300 of
them the same first ones were looked for at every run and the rest never (found on the planted
bench, B3 s78: "Topics/Topic 054", whose one link is misspelt, sorts after 400 memory notes: 7 of
8 mentions). Now each run goes on after the last title the previous one looked for, and a mention
of a title this run did not look for stays open (not gone) — while one whose title it did look
for, or whose note went, is gone as before.

One run then still found only the first 300 titles' mentions (the bench: 7 of 8 after one run, B5
s79): a title costs well under a millisecond, so a run now looks for as many as fit in its budget
(`MENTION_TITLES` 5000 at most) and a vault of a few thousand notes is looked at whole. The turn
is tested below at the old 300 (`cap`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from service.plane import audit
from tests.conftest import Harness, started
from tests.tools.plane.test_plane import findings, of_kind, run

TOPICS = 330  # notes nothing links, with "Notes/Reader.md": more than the 300 titles of a capped run


@pytest.fixture
def cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """300 titles a run, as before: the turn, without a vault of 5000 notes."""
    monkeypatch.setattr(audit, "MENTION_TITLES", 300)


def vault() -> dict[str, str]:
    notes = {f"Topics/Topic {i:03d}.md": f"# Topic {i:03d}\n\nA plain page.\n" for i in range(1, TOPICS + 1)}
    notes["Notes/Reader.md"] = "# Reader\n\nI read about Topic 012 and then Topic 321 today.\n"
    return notes


async def mentioned(vg: Harness) -> set[str]:
    """The titles Notes/Reader.md is said to mention without a link (open findings)."""
    items = of_kind(await findings(vg, status="open"), "unlinked_mention")
    return {str(f["detail"]["mentions"]) for f in items if f["detail"]["path"] == "Notes/Reader.md"}


async def test_one_run_looks_for_every_title_of_a_vault_that_fits(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(vault())) as vg:
        await vg.indexed()
        first = await run(vg, jobs=["audit"])
        assert await mentioned(vg) == {"Topic 012", "Topic 321"}, first  # Topic 321: past the first 300 titles
        again = await run(vg, jobs=["audit"])
        assert again["gone"] == 0, again
        assert await mentioned(vg) == {"Topic 012", "Topic 321"}


@pytest.mark.usefixtures("cap")
async def test_successive_runs_look_for_every_title(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(vault())) as vg:
        await vg.indexed()
        first = await run(vg, jobs=["audit"])
        assert await mentioned(vg) == {"Topic 012"}, first  # Topic 321 sorts past the first 300 titles
        second = await run(vg, jobs=["audit"])
        assert await mentioned(vg) == {"Topic 012", "Topic 321"}, second  # its turn came
        for _ in range(3):  # each run looks for a part of the titles: none it skipped is gone
            out = await run(vg, jobs=["audit"])
            assert out["gone"] == 0, out
            assert await mentioned(vg) == {"Topic 012", "Topic 321"}
        assert of_kind(await findings(vg, status="gone"), "unlinked_mention") == []


@pytest.mark.usefixtures("cap")
async def test_a_mention_linked_or_gone_is_still_marked_gone(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(vault())) as vg:
        await vg.indexed()
        await run(vg, jobs=["audit"])
        await run(vg, jobs=["audit"])
        assert await mentioned(vg) == {"Topic 012", "Topic 321"}
        text = "# Reader\n\nAbout [[Topic 321]] and Topic 012.\n"
        await vg.confirmed("write_note", path="Notes/Reader.md", content=text, mode="overwrite")
        await vg.ok("delete_note", path="Topics/Topic 012.md")
        await vg.settled()
        out = await run(vg, jobs=["audit"])
        assert await mentioned(vg) == set(), out  # one is linked now, the other's note went
        gone = of_kind(await findings(vg, status="gone"), "unlinked_mention")
        assert {f["detail"]["mentions"] for f in gone} == {"Topic 012", "Topic 321"}, gone


@pytest.mark.usefixtures("cap")
async def test_many_linked_notes_leave_room_for_the_others(make_vault: Callable[..., Path]) -> None:
    """300 linked notes took every title of a run: a note nothing links was never looked for."""
    notes = {f"Topics/Topic {i:03d}.md": f"# Topic {i:03d}\n\nA plain page.\n" for i in range(1, 311)}
    notes["Hub.md"] = "# Hub\n\n" + "\n".join(f"- [[Topic {i:03d}]]" for i in range(1, 311)) + "\n"
    notes["Loose/Quiet corner.md"] = "# Quiet corner\n\nNothing links here.\n"
    notes["Notes/Reader.md"] = "# Reader\n\nWe met in the Quiet corner. See [[Hub]].\n"
    async with started(make_vault(notes)) as vg:
        await vg.indexed()
        for _ in range(3):
            await run(vg, jobs=["audit"])
        assert "Quiet corner" in await mentioned(vg)
