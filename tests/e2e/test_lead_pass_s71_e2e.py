"""What an agent asks of a vault's files and queries, end to end: a real uvicorn server and the
SDK's Streamable HTTP client in both protocol eras."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error as _error
from tests.e2e.calls import ok as _ok

VAULT: dict[str, str | bytes] = {
    "Trips/Kyoto.md": "# Kyoto\n\n![[temple.png]] and the [map](Files/route.pdf)\n",
    "Trips/Oslo.md": "# Oslo\n\n![[fjord.png]]\n",
    "temple.png": b"\x89PNG\r\n\x1a\n temple",
    "fjord.png": b"\x89PNG\r\n\x1a\n fjord",
    "Files/route.pdf": b"%PDF-1.4\n%%EOF\n",
    ".obsidian/app.json": '{"attachmentFolderPath": "./media"}',
    ".obsidian/types.json": '{"types": {"rating": "number", "genre": "multitext", "seen": "date"}}',
    "Trips/Plan.md": "---\ncity: Kyoto\n---\n# Plan\n\nKyoto in May; kyoto again in June.\n",
}


async def test_the_attachments_one_note_uses(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        kyoto = await _ok(c, "list_attachments", embedded_by="kyoto")
        assert [i["path"] for i in kyoto["items"]] == ["Files/route.pdf", "temple.png"]
        assert kyoto["attachment_folder"]["folder"] == "Trips/media"
        every = await _ok(c, "list_attachments", for_note="Kyoto")  # not a filter: where new files go
        assert every["total"] == 3 and every["attachment_folder"]["for_note"] == "Trips/Kyoto.md"
        missing = await _error(c, "list_attachments", embedded_by="Kyto")
        assert missing["code"] == "note_not_found" and "Trips/Kyoto.md" in missing["details"]["suggestions"]


async def test_find_and_replace_previewed_confirmed_and_searchable(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        args = {"find": "kyoto", "replace": "Kyōto", "ignore_case": True, "whole_word": True, "folder": "Trips"}
        dry = await _ok(c, "replace_text", **args)
        assert (dry["files_changed"], dry["replacements"]) == (2, 3)
        assert [i["path"] for i in dry["items"]] == ["Trips/Kyoto.md", "Trips/Plan.md"]
        ask = await _error(c, "replace_text", **args, dry_run=False)
        assert ask["code"] == "elicit_required" and "Trips/Plan.md" in ask["details"]["preview"]
        token = await h.token_for("replace_text", **args, dry_run=False)
        done = await _ok(c, "replace_text", **args, dry_run=False, elicit_token=token)
        assert (done["dry_run"], done["replacements"]) == (False, 3)
        plan = h.read("Trips/Plan.md")
        assert plan == "---\ncity: Kyoto\n---\n# Plan\n\nKyōto in May; Kyōto again in June.\n"  # frontmatter kept
        assert h.read("Trips/Kyoto.md").startswith("# Kyōto\n")
        found = await _ok(c, "search_text", query="Kyōto")
        assert {i["path"] for i in found["items"]} == {"Trips/Kyoto.md", "Trips/Plan.md"}


async def test_properties_follow_the_vault_s_property_types(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        out = await _ok(c, "set_properties", path="Oslo", properties={"genre": "travel", "rating": "4"})
        assert out["properties"]["genre"] == ["travel"] and out["properties"]["rating"] == 4
        bad = await _error(c, "set_properties", path="Oslo", properties={"seen": "last May"})
        assert bad["code"] == "validation_error" and bad["details"]["type"] == "date"
        keys = {i["key"]: i["declared"] for i in (await _ok(c, "list_properties"))["items"]}
        assert keys["genre"] == "multitext" and keys["city"] is None
