"""Over real HTTP with the SDK client: a memory note whose frontmatter does not parse is listed as
one `invalid_frontmatter` finding with no plan, never a duplicate whose plan cannot apply (review
R3 s63 #10); the note is left byte for byte."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.plane.test_unparsed_memory_no_plan import ANNS, BROKEN


async def test_an_unparsed_memory_note_is_one_finding_without_a_plan(
    make_vault: Callable[..., Path], mode: str
) -> None:
    async with e2e(make_vault({"Home.md": "# Home\n", "Memory/Ann.md": BROKEN, "Memory/Anns.md": ANNS})) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            run = await ok(c, "run_consolidation", wait=True, jobs=["duplicates", "contradictions"])
            assert run["status"] == "done", run
            items = (await ok(c, "list_findings"))["items"]
            assert [(f["kind"], f["paths"], f["plan"]) for f in items] == [
                ("invalid_frontmatter", ["Memory/Ann.md"], None)
            ], items
        assert h.read("Memory/Ann.md") == BROKEN
