"""E2E (both protocol eras, SDK client over real HTTP): list_findings with a job's name for a
kind ('duplicates') is a validation_error that names the kind meant, not an empty list that reads
as "no duplicates"."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

BOB = "---\nname: Bob\nentityType: person\n---\n# Bob\n\n## Observations\n- Likes tea ^m-1\n- likes tea. ^m-2\n"
VAULT = {"Memory/Bob.md": BOB}


async def test_list_findings_refuses_a_kind_that_is_no_finding_kind(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT)) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            await ok(c, "run_consolidation", jobs=["duplicates"], wait=True)
            assert (await ok(c, "list_findings", kind="duplicate"))["total"] == 1
            refused = await error(c, "list_findings", kind="duplicates")
            assert refused["code"] == "validation_error" and "did you mean 'duplicate'" in refused["message"], refused
