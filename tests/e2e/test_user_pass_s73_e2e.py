"""What a user driving a served copy of kepano's vault (plus the Obsidian Help notes) met, end to
end: a real uvicorn server and the SDK's Streamable HTTP client in both protocol eras."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok as _ok


async def test_the_audit_finds_no_broken_link_in_an_embedded_base_or_image(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """Every category note of kepano's vault embeds `![[<Category>.base]]`: the audit reported
    each as "[[Books.base]] resolves to no note" while get_outlinks resolved it."""
    files: dict[str, str | bytes] = {
        "Categories/Books.md": "---\ntags:\n  - categories\n---\n\n![[Books.base]]\n",
        "References/Trip.md": "# Trip\n\n![[kyoto.png]] then [[Shrines]].\n",
        "Templates/Bases/Books.base": "views:\n  - type: table\n    name: Books\n",
        "Attachments/kyoto.png": b"\x89PNG\r\n\x1a\n" + b"\x00" * 32,
    }
    async with e2e(make_vault(files), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        [link] = (await _ok(c, "get_outlinks", path="Books"))["items"]
        assert link["path"] == "Templates/Bases/Books.base" and link["resolved"]
        await _ok(c, "run_consolidation", wait=True, jobs=["audit"])
        found = (await _ok(c, "list_findings", kind="broken_link"))["items"]
        assert [f["detail"]["target"] for f in found] == ["Shrines"]


async def test_a_memory_entity_found_by_search_is_not_flagged_sensitive(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """Every entity note has a `## Relations` section, and `relations` was a default sensitive
    tag (whose heading flags a note): search_text flagged every entity `sensitive: true`."""
    files = {"Notes/Budget.md": "# Budget\n\n## Finance\n\nWired magazine subscription.\n"}
    async with e2e(make_vault(files), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        kelly = {"name": "Kevin Kelly", "entityType": "person", "observations": ["Founding editor of Wired"]}
        await _ok(c, "create_entities", entities=[kelly])
        await _ok(c, "create_relations", relations=[{"from": "Kevin Kelly", "to": "Budget", "relationType": "reads"}])
        found = await _ok(c, "search_text", query="Wired")
        flags = {i["path"]: i["sensitive"] for i in found["items"]}
        assert flags == {"Memory/Kevin Kelly.md": False, "Notes/Budget.md": True}


async def test_apply_finding_asks_a_client_that_can_be_asked(make_vault: Callable[..., Path], mode: str) -> None:
    """A duplicate_entity merge deletes the merged note, so its plan asks a human. The client
    declared elicitation and was asked for every other confirmation, but apply_finding answered
    `elicit_required`: the HTTP fast path ran it past the SDK's session (it asks nothing itself;
    the execute_plan it runs does), where nobody can be asked."""
    asked: list[str] = []

    async def accept(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"confirm": True})

    root = make_vault({"Home.md": "# Home\n"})
    async with (
        e2e(root, index={"watch": False}) as (url, h),
        Client(url, mode=mode, elicitation_callback=accept) as c,  # type: ignore[arg-type]
    ):
        await h.indexed()
        cafes = [
            {"name": n, "entityType": "place", "observations": [f"{n} serves espresso"]}
            for n in ("Cafe Nova", "Café Nova")
        ]
        await _ok(c, "create_entities", entities=cafes)
        await _ok(c, "run_consolidation", wait=True, jobs=["duplicates"])
        [found] = (await _ok(c, "list_findings", kind="duplicate_entity"))["items"]
        applied = await _ok(c, "apply_finding", finding_id=found["id"])
        assert applied["status"] == "applied" and len(asked) == 1, (applied, asked)
        assert "Memory/Café Nova.md" in asked[0]
    assert sorted(p.name for p in (root / "Memory").iterdir()) == ["Cafe Nova.md"]


async def test_an_entity_named_like_an_author_page_leaves_its_base_listing_the_books(
    make_vault: Callable[..., Path], mode: str
) -> None:
    """create_entities 'Kevin Kelly' beside References/Kevin Kelly.md: the author page's
    `Books.base#Author` view (`list(author).contains(this)`) listed no book any more, Bases
    resolving the books' `[[Kevin Kelly]]` to the memory note, not the one in their folder."""
    files = {
        "References/Out of Control.md": '---\nauthor:\n  - "[[Kevin Kelly]]"\n---\n',
        "References/Kevin Kelly.md": "## Books\n\n![[Books.base#Author]]\n",
        "Templates/Bases/Books.base": "views:\n  - type: table\n    name: Author\n    filters:\n      and:\n"
        "        - list(author).contains(this)\n",
    }
    async with e2e(make_vault(files), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        kelly = {"name": "Kevin Kelly", "entityType": "person", "observations": ["Founding editor of Wired"]}
        await _ok(c, "create_entities", entities=[kelly])
        rows = (await _ok(c, "query_base", path="Books.base", view="Author", this="References/Kevin Kelly"))["rows"]
        assert [r["path"] for r in rows] == ["References/Out of Control.md"]
