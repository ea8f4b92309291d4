"""E2E (both protocol eras, SDK client over real HTTP) for the stale job's orphaned_observation:
an observation whose source links a PDF of the vault is not reported as gone; one whose source
links a file that is not there is."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok

VAULT = {"Home.md": "# Home\n", "Files/Contract.pdf": "%PDF-1.7\n"}


async def test_a_source_that_links_a_pdf_of_the_vault_is_no_orphan(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT)) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            await ok(c, "create_entities", entities=[{"name": "Ann", "entityType": "person", "observations": []}])
            for text, source in [("Signed the contract", "[[Contract.pdf]]"), ("Read the scan", "[[Scan.pdf]]")]:
                batch = [{"entityName": "Ann", "contents": [text], "source": source}]
                await ok(c, "add_observations", observations=batch)
            await h.indexed()
            await ok(c, "run_consolidation", jobs=["stale"], wait=True)
            listed = await ok(c, "list_findings", kind="orphaned_observation")
            assert [f["detail"]["observation"] for f in listed["items"]] == ["Read the scan"], listed
