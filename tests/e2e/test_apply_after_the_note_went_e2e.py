"""apply_finding end to end (real uvicorn, the SDK client, both eras) after the finding's note was
deleted: `conflict` saying the note is no longer there, the finding open."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.tools.plane.test_apply_after_the_note_went import CY


async def test_the_note_went_before_the_apply(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault({"Memory/Cy.md": CY, "Home.md": "# Home\n"})) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            await ok(c, "run_consolidation", wait=True, jobs=["contradictions"])
            [found] = (await ok(c, "list_findings", kind="contradiction"))["items"]
            await ok(c, "delete_note", path="Memory/Cy.md")
            out = await c.call_tool("apply_finding", {"finding_id": found["id"]})
            assert out.is_error and out.structured_content is not None
            error = out.structured_content["error"]
            assert error["code"] == "conflict" and "no longer there" in error["message"], error
            [still] = (await ok(c, "list_findings", kind="contradiction"))["items"]
            assert still["status"] == "open"
