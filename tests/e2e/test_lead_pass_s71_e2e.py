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
