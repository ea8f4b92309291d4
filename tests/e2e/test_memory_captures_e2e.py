"""Captures and experiences over real HTTP with the SDK client (both protocol eras):
capture → list_captures → process_capture into a note and into an entity; record_experience →
promote_experience through the token flow of a client without elicitation (`elicit_required`,
a token minted by the admin endpoint, the same call again with it)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

VAULT = {"Home.md": "# Home\n\n## Todo\n\n- fix the gate\n"}


async def _confirmed(client: Any, url: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    asked = await error(client, tool, args)
    assert asked["code"] == "elicit_required", asked
    base = url.rsplit("/mcp", 1)[0]
    async with httpx2.AsyncClient() as http:
        minted = await http.post(f"{base}/admin/confirm", json={"args_hash": asked["details"]["args_hash"]})
    assert minted.status_code == 200, minted.text
    return await ok(client, tool, {**args, "elicit_token": minted.json()["token"]})


async def test_capture_then_file_it_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT)) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        made = await ok(client, "capture", text="Call the plumber", tags=["home"], source="phone call")
        other = await ok(client, "capture", text="Ann prefers mornings")
        listed = await ok(client, "list_captures")
        filed = await ok(client, "process_capture", capture_id=made["id"], action="note", target="Home", heading="Todo")
        await ok(client, "create_entities", entities=[{"name": "Ann", "entityType": "person", "observations": []}])
        into = await ok(client, "process_capture", capture_id=other["id"], action="entity", target="Ann")
        again = await error(client, "process_capture", capture_id=made["id"], action="discard")
        huge = await error(client, "capture", text="x" * (2 * 1024 * 1024))
        home, inbox, ann = harness.read("Home.md"), harness.read("Memory/Inbox.md"), harness.read(into["path"])
    assert [i["id"] for i in listed["items"]] == [made["id"], other["id"]]
    assert filed["block_link"] == f"[[Home#^{made['id']}]]" and f"[[Memory/Inbox#^{made['id']}|captured " in home
    assert f"[filed_to:: [[Home#^{made['id']}]]]" in inbox and "[status:: filed]" in inbox
    assert into["entity"] == "Ann" and "Ann prefers mornings" in ann
    assert f"[source:: Memory/Inbox#^{other['id']}]" in ann
    assert again["code"] == "conflict" and huge["code"] == "validation_error"


async def test_record_then_promote_with_a_human_confirmation_over_http(
    make_vault: Callable[..., Path], mode: str
) -> None:
    local = {"confirmation": {"allow_local_http_confirm": True}}
    async with e2e(make_vault(VAULT), **local) as (url, harness), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        await ok(client, "create_entities", entities=[{"name": "Ann", "entityType": "person", "observations": []}])
        made = await ok(
            client, "record_experience", kind="preference", text="Ann wants summaries in bullet points", confidence=0.8
        )
        exp_id = made["experience"]["id"]
        promoted = await _confirmed(client, url, "promote_experience", {"experience_id": exp_id, "entity": "Ann"})
        listed = await ok(client, "list_experiences", promoted=True)
        note = harness.read(promoted["path"])
    assert promoted["entity"] == "Ann" and "Ann wants summaries in bullet points" in note
    assert f"experience {exp_id}" in note and listed["items"][0]["promoted_link"] == promoted["block_link"]
