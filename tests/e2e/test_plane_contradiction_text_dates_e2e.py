"""A contradiction ordered by the date its text gives, end to end (real uvicorn, the SDK client,
both eras): "Moved to Oslo in March 2016", noted after "Lives in Paris", is the older fact, so
applying the finding marks the move superseded and leaves "Lives in Paris" as it was (it marked
Paris, the present, superseded by a move of 2016)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

NOTE = (
    "---\nname: Bob\nentityType: person\n---\n# Bob\n\n## Observations\n"
    "- Lives in Paris [recorded:: 2024-05-01] ^m-000000\n"
    "- Moved to Oslo in March 2016 [recorded:: 2024-06-01] ^m-000001\n"
)


async def test_the_date_a_text_gives_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault({"Memory/Bob.md": NOTE})
    async with e2e(root) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        await ok(c, "run_consolidation", wait=True, jobs=["contradictions"])
        [found] = (await ok(c, "list_findings", kind="contradiction"))["items"]
        assert (found["detail"]["older"], found["detail"]["newer"]) == ("Moved to Oslo in March 2016", "Lives in Paris")
        assert (await ok(c, "apply_finding", finding_id=found["id"]))["run"]["status"] == "done"
        [bob] = (await ok(c, "open_nodes", names=["Bob"]))["entities"]
        marked = {o["text"]: o.get("superseded_by") for o in bob["observations"] if isinstance(o, dict)}
        assert marked == {"Lives in Paris": None, "Moved to Oslo in March 2016": "m-000000"}, bob
