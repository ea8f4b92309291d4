"""The vault folder replaced by a symlink while the server runs (`service.vault.root_link`).

Links swapped in *below* the vault folder were refused (`service.vault.dirfd`), but the vault
folder itself was opened, listed and walked by its path: renamed away and replaced by a link to
another folder (by someone who may write the vault's parent), read_note, read_attachment and
list_notes read that folder — a private key beside it read as an attachment —, write_note wrote
there, and a reindex (or a polling look) indexed its notes. Found by this session's attack pass
on the watcher (which refused such a root already). Now every call is `path_invalid` (reason
"symlink on the way"), nothing is read, written or indexed there, and the vault works again
once its folder is back."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from service.indexer import look
from tests.conftest import Harness, e2e, started
from tests.polling import until

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("read_note", {"path": "Secret"}),
    ("read_note", {"path": "Home"}),
    ("list_notes", {}),
    ("list_notes", {"folder": "Sub"}),
    ("read_attachment", {"path": "id_rsa"}),
    ("write_note", {"path": "New", "content": "planted\n"}),
    ("write_note", {"path": "Sub/New", "content": "planted\n"}),
]


def _swap(root: Path, tmp: Path) -> tuple[Path, Path]:
    """Rename the vault folder away and put a link to another folder in its place."""
    outside = tmp / "outside"
    (outside / "Sub").mkdir(parents=True)
    (outside / "Secret.md").write_text("# Secret\n\nsecretword key=42\n", encoding="utf-8")
    (outside / "Sub" / "Deep.md").write_text("# Deep\n\nsecretword\n", encoding="utf-8")
    (outside / "id_rsa").write_text("PRIVATE KEY\n", encoding="utf-8")
    away = tmp / "away"
    os.rename(root, away)
    os.symlink(outside, root)
    return outside, away


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _refused(structured: Any) -> None:
    text = json.dumps(structured)
    assert structured["error"]["code"] == "path_invalid", text
    assert structured["error"]["details"]["reason"] == "symlink on the way", text
    assert "PRIVATE" not in text and "secretword" not in text and "Secret.md" not in text, text


async def _put_back(vg: Harness, root: Path, away: Path) -> None:
    os.unlink(root)
    os.rename(away, root)
    assert (await vg.ok("read_note", path="Home"))["content"] == "# Home\n\nhomeword\n"


async def test_every_call_is_refused_and_nothing_outside_is_read_written_or_indexed(
    make_vault: Callable[..., Path], tmp_path: Path
) -> None:
    root = make_vault({"Home.md": "# Home\n\nhomeword\n", "Sub/Note.md": "# Note\n"})
    async with started(root) as vg:
        await vg.indexed()
        outside, away = _swap(root, tmp_path)
        before = _files(outside)
        for tool, args in CALLS:
            result = await vg.call(tool, **args)
            assert result.is_error, (tool, result.structured)
            _refused(result.structured)
        reindexed = await vg.call("reindex")
        assert "secretword" not in json.dumps(reindexed.structured)
        found = await vg.ok("search_text", query="secretword")
        assert found["items"] == [], found
        assert _files(outside) == before  # nothing written there
        await _put_back(vg, root, away)
        await vg.ok("write_note", path="New", content="in the vault\n")
        assert (root / "New.md").read_text(encoding="utf-8") == "in the vault\n"


async def test_a_polling_look_never_indexes_the_folder_a_link_points_at(
    make_vault: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refused: list[OSError] = []
    original = look.walkable

    def counted(root: Path | str) -> None:
        try:
            original(root)
        except OSError as exc:
            refused.append(exc)
            raise

    monkeypatch.setattr(look, "walkable", counted)
    root = make_vault({"Home.md": "# Home\n\nhomeword\n"})
    async with started(root, index={"watch_mode": "poll", "watch_poll_s": 1.0}) as vg:
        await vg.indexed()
        _, away = _swap(root, tmp_path)
        await until(lambda: len(refused) >= 2, "two polling looks refused after the swap", pause=0.1)
        found = await vg.ok("search_text", query="secretword")
        assert found["items"] == [], found
        await _put_back(vg, root, away)
        assert [i["path"] for i in (await vg.ok("search_text", query="homeword"))["items"]] == ["Home.md"]


async def test_over_http_with_the_sdk_client(make_vault: Callable[..., Path], tmp_path: Path, mode: str) -> None:
    root = make_vault({"Home.md": "# Home\n\nhomeword\n"})
    async with e2e(root) as (url, vg), Client(streamable_http_client(url), mode=mode) as client:  # type: ignore[arg-type]
        await vg.indexed()
        outside, away = _swap(root, tmp_path)
        before = _files(outside)
        for tool, args in CALLS:
            result = await client.call_tool(tool, args)
            assert result.is_error and result.structured_content is not None, (tool, result)
            _refused(result.structured_content)
        assert _files(outside) == before
        await _put_back(vg, root, away)
        back = await client.call_tool("read_note", {"path": "Home"})
        assert not back.is_error
