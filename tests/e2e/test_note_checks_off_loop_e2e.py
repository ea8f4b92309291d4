"""Over HTTP with the SDK client, another client is answered while bulk_create_notes checks, and
copy_note compares, the etag of a long existing note (review R2 s64 F7: 3 x 30 MB notes held the
server's event loop 725 ms in bulk_create_notes' checks, a 30 MB copy_note destination 44 ms).
Checked by ordering, not time: the hash of the long note, once started, waits until another
client's read_note has been answered, which can only happen when it runs off the loop (10 s at
most: on the loop nothing else runs, and the order then fails)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from service.vault.files import VaultFiles
from tests.conftest import Harness, e2e

LONG = "# Long\n" + "plain words on a line of a long existing note\n" * 3_000  # ~140 KB


async def _held_hash(
    vg: Harness, client: Client, tool: str, args: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> tuple[list[str], Any]:
    """Call `tool` while its first hash of Long.md waits for another client's read_note."""
    events: list[str] = []
    began, release = asyncio.Event(), threading.Event()
    loop = asyncio.get_running_loop()
    real = VaultFiles.current_etag

    def current_etag(self: VaultFiles, vp: Any) -> str | None:
        if vp.rel == "Long.md" and not release.is_set():
            events.append("hash start")
            loop.call_soon_threadsafe(began.set)
            release.wait(10)
            events.append("hash end")
        return real(self, vp)

    monkeypatch.setattr(VaultFiles, "current_etag", current_etag)
    got = asyncio.create_task(client.call_tool(tool, args))
    await asyncio.wait([asyncio.ensure_future(began.wait()), got], return_when=asyncio.FIRST_COMPLETED)
    out = await vg.ok("read_note", path="Other")
    assert "read meanwhile" in out["content"]
    events.append("other answered")
    release.set()
    result = await got
    monkeypatch.setattr(VaultFiles, "current_etag", real)
    assert not result.is_error, result
    return events, result.structured_content


async def test_a_long_notes_etag_is_checked_off_the_loop(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_vault({"Other.md": "# Other\n\nread meanwhile\n", "Src.md": "# Src\ncopied\n"})
    (root / "Long.md").write_text(LONG, encoding="utf-8")
    async with e2e(root) as (url, vg), Client(url) as client:
        etag = (await vg.ok("read_note", path="Long"))["etag"]
        notes = [{"path": "Long", "content": "replaced\n", "expected_etag": etag}, {"path": "New", "content": "n\n"}]
        bulk = {"notes": notes, "overwrite": True}
        events, out = await _held_hash(vg, client, "bulk_create_notes", bulk, monkeypatch)
        assert events == ["hash start", "other answered", "hash end"], events
        assert [(i["path"], i["created"]) for i in out["items"]] == [("Long.md", False), ("New.md", True)]
        (root / "Long.md").write_text(LONG, encoding="utf-8")
        etag = (await vg.ok("read_note", path="Long"))["etag"]
        args = {"path": "Src", "new_path": "Long", "overwrite": True, "expected_etag": etag}
        events, out = await _held_hash(vg, client, "copy_note", args, monkeypatch)
        assert events == ["hash start", "other answered", "hash end"], events
    assert (root / "Long.md").read_text(encoding="utf-8") == "# Src\ncopied\n"
