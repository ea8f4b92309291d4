"""A person deletes by hand the line of the fact that superseded another: the older fact's
`superseded_by` names nothing. Every reader now reads it as `delete_observations` would have left
it (`service.memory.history`): current again, neither the pointer nor the `valid_until` written
with it answered. Before, open_nodes and search_memory showed history superseded by nothing, the
consolidation plane skipped the fact as history (no duplicate, no contradiction found for it), and
add_observations recorded the same fact again beside it as one that "holds again". The note
itself is not rewritten by any of these reads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import Harness

NOTE = "Memory/Gail.md"


async def _gail_after_hand_delete(vg: Harness) -> str:
    """Gail: "Lives in Oslo" superseded by "Lives in Bergen" (until 2025), then the Bergen line deleted
    in the file by a person; the note's text after that."""
    await vg.ok("create_entities", entities=[{"name": "Gail", "entityType": "person", "observations": []}])
    for place in ("Lives in Oslo", "Lives in Bergen"):
        await vg.ok("add_observations", observations=[{"entityName": "Gail", "contents": [place]}])
    await vg.ok(
        "supersede_observation",
        entityName="Gail",
        observation="Lives in Oslo",
        superseded_by="Lives in Bergen",
        valid_until="2025",
    )
    text = vg.read(NOTE)
    assert "[superseded_by:: ^" in text
    kept = "".join(line for line in text.splitlines(keepends=True) if "Lives in Bergen" not in line)
    (Path(vg.root) / NOTE).write_text(kept, encoding="utf-8")
    await vg.settled()
    return kept


async def _facts(vg: Harness) -> dict[str, tuple[Any, Any]]:
    [entity] = (await vg.ok("open_nodes", names=["Gail"]))["entities"]
    return {o["text"]: (o["superseded_by"], o["valid_until"]) for o in entity["observations"]}


async def test_reads_answer_the_older_fact_as_current(vg: Harness) -> None:
    kept = await _gail_after_hand_delete(vg)
    assert await _facts(vg) == {"Lives in Oslo": (None, None)}
    hits = (await vg.ok("search_memory", query="Where does Gail live? Oslo"))["items"]
    assert [(h["text"], h["superseded_by"], h["valid_until"]) for h in hits] == [("Lives in Oslo", None, None)]
    [entity] = [e for e in (await vg.ok("read_memory_graph"))["entities"] if e["name"] == "Gail"]
    assert [(o["superseded_by"], o["valid_until"]) for o in entity["observations"]] == [(None, None)]
    assert vg.read(NOTE) == kept  # read, not rewritten


async def test_the_same_fact_added_again_is_a_repeat(vg: Harness) -> None:
    await _gail_after_hand_delete(vg)
    out = await vg.ok("add_observations", observations=[{"entityName": "Gail", "contents": ["Lives in Oslo"]}])
    assert out["results"][0]["skipped_duplicates"] == ["Lives in Oslo"]


async def test_the_plane_reads_it_as_current(vg: Harness) -> None:
    kept = await _gail_after_hand_delete(vg)
    again = kept.replace("\n\n## Relations", "\n- Lives in Oslo\n\n## Relations")  # the same fact, by hand
    assert again != kept
    (Path(vg.root) / NOTE).write_text(again, encoding="utf-8")
    await vg.settled()
    await vg.ok("create_entities", entities=[{"name": "Hal", "entityType": "person", "observations": []}])
    await vg.ok("run_consolidation", wait=True, jobs=["duplicates", "contradictions"])
    found = (await vg.ok("list_findings", limit=100))["items"]
    assert [(f["kind"], f["detail"]["entity"]) for f in found] == [("duplicate", "Gail")]
    await vg.ok(
        "add_observations",
        observations=[{"entityName": "Gail", "contents": ["Lives in Tromso"], "date": "2030-01-01"}],
    )
    await vg.ok("run_consolidation", wait=True, jobs=["contradictions"])
    found = (await vg.ok("list_findings", kind="contradiction", limit=100))["items"]
    assert {(f["detail"]["older"], f["detail"]["newer"]) for f in found} == {("Lives in Oslo", "Lives in Tromso")}
