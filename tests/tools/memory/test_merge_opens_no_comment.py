"""merge_observations never copies a line that opens an Obsidian comment into the kept note (A4
s95), through the dispatch chain. The merged entity's lines are copied as written, and a line
holding one `%%` (typed by hand, or written by write_note: the memory tools refuse it) opens a
comment running to the next `%%`: copied under the kept note's last observation, it hid every
later line of that note — its relations left open_nodes, and the next add_observations wrote the
note again without them. The consolidation plane's duplicate_entity plan runs the merge, so a
duplicate made for the purpose carried it into the entity kept. Now the merge is
`validation_error` (reason `comment_marker`, the lines' block ids in `details.block_ids`), nothing
written, and apply_finding of such a plan is refused before it asks anyone to confirm (`conflict`
naming the step); `%%` in pairs or in inline code is copied as before."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

ANN = "---\nname: Ann Lee\nentityType: person\n---\n# Ann Lee\n\n## Observations\n- Paints ^m-p\n\n## Relations\n"
ANN += "- knows [[Memory/Bob]]\n"
BOB = "---\nname: Bob\nentityType: person\n---\n# Bob\n\n## Observations\n- Plays chess ^m-b\n"


def lees(*lines: str) -> str:
    return "---\nname: Ann Lees\nentityType: person\n---\n# Ann Lees\n\n## Observations\n" + "".join(
        f"{line}\n" for line in lines
    )


async def test_a_line_opening_a_comment_refuses_the_merge(make_vault: Callable[..., Path]) -> None:
    merged = lees("- Paints ^m-p", "- Lives in Oslo %% ^m-x", "- Has a cat ^m-c")
    files = {"Memory/Ann Lee.md": ANN, "Memory/Ann Lees.md": merged, "Memory/Bob.md": BOB}
    async with started(make_vault(files)) as vg:
        error = await vg.err("merge_observations", "validation_error", entityName="Ann Lee", mergedName="Ann Lees")
        assert (error["details"]["reason"], error["details"]["block_ids"]) == ("comment_marker", ["m-x"]), error
        assert vg.read("Memory/Ann Lee.md") == ANN
        opened = await vg.ok("open_nodes", names=["Ann Lee"])
        assert opened["relations"] == [{"from": "Ann Lee", "to": "Bob", "relationType": "knows"}]


async def test_percent_pairs_and_inline_code_are_merged(make_vault: Callable[..., Path]) -> None:
    merged = lees("- Sings %% quietly %% at home ^m-s", "- Types `%%` in templates ^m-t")
    files = {"Memory/Ann Lee.md": ANN, "Memory/Ann Lees.md": merged, "Memory/Bob.md": BOB}
    async with started(make_vault(files)) as vg:
        done = await vg.ok("merge_observations", entityName="Ann Lee", mergedName="Ann Lees")
        assert done["block_ids"] == ["m-s", "m-t"], done
        opened = await vg.ok("open_nodes", names=["Ann Lee"])
        assert [o["block_id"] for o in opened["entities"][0]["observations"]] == ["m-p", "m-s", "m-t"]
        assert opened["relations"] == [{"from": "Ann Lee", "to": "Bob", "relationType": "knows"}]


async def test_a_duplicate_entity_plan_does_not_carry_it_into_the_kept_note(make_vault: Callable[..., Path]) -> None:
    merged = lees("- Paints ^m-p", "- Lives in Oslo %% ^m-x")
    files = {"Memory/Ann Lee.md": ANN, "Memory/Ann Lees.md": merged, "Memory/Bob.md": BOB}
    async with started(make_vault(files)) as vg:
        await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
        [found] = (await vg.ok("list_findings", kind="duplicate_entity"))["items"]
        error = await vg.err("apply_finding", "conflict", finding_id=found["id"])  # before any confirmation
        [problem] = error["details"]["problems"]
        assert (problem["step"], problem["details"]["reason"]) == ("move", "comment_marker"), error
        assert vg.read("Memory/Ann Lee.md") == ANN
        assert vg.read("Memory/Ann Lees.md") == merged
