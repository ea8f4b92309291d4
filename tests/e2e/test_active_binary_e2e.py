"""E2E (both protocol eras, SDK client over real HTTP) for get_active_note while Obsidian shows a
file whose bytes are no text and whose extension says nothing (a .sqlite), against the Local REST
API stand-in: content null, kind `other`; a text file beside it keeps its text."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import ok
from tests.e2e.test_bridge_confirm_e2e import ENV, bridged_vault
from tests.tools.bridges.standin import KEY, Obsidian, make_cert, serving

SQLITE = b"SQLite format 3\x00\x10\x00\x01\x01\x00@  \x00\x00\x00\x02\xff\xfe"


def _active(path: str, data: bytes) -> dict[str, object]:
    return {
        "path": path,
        "content": data.decode("utf-8", errors="replace"),
        "frontmatter": {},
        "tags": [],
        "stat": None,
    }


async def test_get_active_note_of_a_database_and_of_a_log(
    make_vault: Callable[..., Path], tmp_path: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(ENV, KEY)
    root = make_vault({"Data/app.sqlite": SQLITE, "Data/run.log": "started\n"})
    cert = make_cert(tmp_path / "tls")
    obsidian = Obsidian(metadata_wait_s=0.0)
    async with serving(obsidian, cert) as url:
        vault = bridged_vault(root, url, cert.fingerprint)
        async with e2e(root, vaults=[vault]) as (mcp_url, _), Client(mcp_url, mode=mode) as client:  # type: ignore[arg-type]
            obsidian.active = _active("Data/app.sqlite", SQLITE)
            db = await ok(client, "get_active_note")
            assert db["path"] == "Data/app.sqlite" and db["content"] is None and db["kind"] == "other", db
            obsidian.active = _active("Data/run.log", b"started\n")
            log = await ok(client, "get_active_note")
            assert log["content"] == "started\n" and log["kind"] == "text", log
