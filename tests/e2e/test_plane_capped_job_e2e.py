"""A consolidation job stopped at `[plane] max_findings` end to end (real uvicorn, the SDK client,
both eras): the entities that are one are reported beside many repeated lines (they came after
them and were cut), the run's report says where the job stopped, and a later run marks none of
its findings gone that it did not reach."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok


def entity(name: str, lines: list[str]) -> str:
    body = "\n".join(f"- {text} ^m-{i:04d}" for i, text in enumerate(lines))
    return f"---\nname: {name}\nentityType: person\n---\n# {name}\n\n## Observations\n{body}\n"


REPEATED = ["Likes tea", "likes tea.", "Plays chess", "plays chess.", "Reads novels", "reads novels."]
VAULT = {
    "Memory/Bea.md": entity("Bea", REPEATED),
    "Memory/André Lefèvre.md": entity("André Lefèvre", ["Known as André"]),
    "Memory/Andre Lefevre.md": entity("Andre Lefevre", ["Also written Andre"]),
}


async def test_a_capped_job_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT), plane={"max_findings": 3}) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            out = await ok(c, "run_consolidation", jobs=["duplicates"], wait=True)
            [report] = out["jobs"]
            assert report["findings"] == 3 and "max_findings" in (report["reason"] or ""), report
            merged = (await ok(c, "list_findings", kind="duplicate_entity"))["items"]
            assert [{f["detail"]["keep"], f["detail"]["merge"]} for f in merged] == [{"André Lefèvre", "Andre Lefevre"}]
            before = {f["id"] for f in (await ok(c, "list_findings", kind="duplicate"))["items"]}
            await ok(c, "write_note", path="Memory/Abe.md", content=entity("Abe", REPEATED[:4]))  # sorts first
            await h.settled()
            again = await ok(c, "run_consolidation", jobs=["duplicates"], wait=True)
            assert again["gone"] == 0, again
            assert (await ok(c, "list_findings", status="gone"))["items"] == []
            after = {f["id"] for f in (await ok(c, "list_findings", kind="duplicate", limit=500))["items"]}
            assert before <= after, (before, after)
