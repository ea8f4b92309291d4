"""A job that stops at `[plane] max_findings` reports what it reached, and nothing more is lost.
Found on the planted bench (B3 s78, `--families all`: duplicates recall 0.714, entities that are
one 0 of 7): the duplicates job stopped at 500 repeated lines and appended the entities that are
one after them, then cut the list at 500, so a vault with many repeated lines never heard of its
duplicate entities; and the run marked `gone` the open findings of a capped job it had not
reached (a note sorting earlier took the room), findings that still held. Now the entities come
first, a capped job marks none of its findings gone, and its report says where it stopped."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Harness, started


def entity(name: str, lines: list[str]) -> str:
    body = "\n".join(f"- {text} ^m-{i:04d}" for i, text in enumerate(lines))
    return f"---\nname: {name}\nentityType: person\n---\n# {name}\n\n## Observations\n{body}\n"


REPEATED = ["Likes tea", "likes tea.", "Plays chess", "plays chess.", "Reads novels", "reads novels."]


async def _findings(vg: Harness, **filters: str) -> list[dict[str, object]]:
    return (await vg.ok("list_findings", limit=500, **filters))["items"]


async def test_entities_that_are_one_are_found_beside_many_repeats(make_vault: Callable[..., Path]) -> None:
    vault = {
        "Memory/Ann.md": entity("Ann", REPEATED),
        "Memory/Zoë Martín.md": entity("Zoë Martín", ["Known as Zoë"]),
        "Memory/Zoe Martin.md": entity("Zoe Martin", ["Also written Zoe"]),
    }
    async with started(make_vault(vault), plane={"max_findings": 3}) as vg:
        await vg.indexed()
        out = await vg.ok("run_consolidation", jobs=["duplicates"], wait=True)
        merged = await _findings(vg, kind="duplicate_entity")
        pairs = [{f["detail"]["keep"], f["detail"]["merge"]} for f in merged]  # type: ignore[index]
        assert pairs == [{"Zoë Martín", "Zoe Martin"}], merged
        [report] = out["jobs"]
        assert report["findings"] == 3 and "max_findings" in (report["reason"] or ""), report


async def test_a_capped_job_marks_nothing_gone(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Memory/Bea.md": entity("Bea", REPEATED)})
    async with started(root, plane={"max_findings": 2}) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", jobs=["duplicates"], wait=True)
        first = {f["id"] for f in await _findings(vg, kind="duplicate")}
        assert len(first) == 2, first
        await vg.ok("write_note", path="Memory/Abe.md", content=entity("Abe", REPEATED[:4]))  # sorts first
        await vg.settled()
        out = await vg.ok("run_consolidation", jobs=["duplicates"], wait=True)
        assert out["gone"] == 0, out
        assert await _findings(vg, status="gone") == []
        still = {f["id"] for f in await _findings(vg, kind="duplicate")}
        assert first <= still, (first, still)  # Bea's repeats still hold and are still open
