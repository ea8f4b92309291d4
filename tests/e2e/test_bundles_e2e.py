"""Context bundles over real HTTP with the SDK client, in both protocol eras: pages through a
folder with its cursor, progress notifications of a long bundle, an ACL-denied folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

FILES: dict[str, str | bytes] = {f"Notes/n{i:03d}.md": f"# Note {i}\n" + "text line\n" * 20 for i in range(120)}
FILES["Private/Diary.md"] = "# Diary\npassword: hunter2\n"
FILES["Notes/key.md"] = "# Key\nkey AKIAIOSFODNN7EXAMPLE\n"


async def test_bundles_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault(FILES)
    acl = {"prefix_rules": [{"path": "Private", "read": "deny"}]}
    async with e2e(root, acl=acl) as (url, _), Client(url, mode=mode) as client:  # type: ignore[arg-type]
        seen: list[tuple[float, float | None]] = []

        async def on_progress(done: float, total: float | None, message: str | None) -> None:
            seen.append((done, total))

        result = await client.call_tool("bundle_folder", {"folder": ""}, progress_callback=on_progress)
        assert not result.is_error and result.structured_content is not None
        whole: dict[str, Any] = result.structured_content
        assert whole["manifest"]["total"] == 121 and len(whole["entries"]) == 121
        assert seen and seen[-1] == (121, 121)
        assert all(not e["path"].startswith("Private/") for e in whole["entries"])
        key = next(e for e in whole["entries"] if e["path"] == "Notes/key.md")
        assert "AKIA" not in key["content"] and key["sensitive"]
        paths: list[str] = []
        cursor = None
        while True:
            page = await ok(
                client, "bundle_folder", folder="Notes", max_tokens=500, **({"cursor": cursor} if cursor else {})
            )
            assert sum(e["tokens"] for e in page["entries"]) <= 500
            paths += [e["path"] for e in page["entries"]]
            cursor = page["next_cursor"]
            if cursor is None:
                break
        assert paths == sorted(f"Notes/n{i:03d}.md" for i in range(120)) + ["Notes/key.md"] or paths == sorted(paths)
        assert len(paths) == len(set(paths)) == 121
        files = await ok(client, "bundle_files", paths=["Notes/n001", "Private/Diary.md", "Nope"])
        assert [e["path"] for e in files["entries"]] == ["Notes/n001.md"]
        assert files["missing"] == ["Private/Diary.md", "Nope"]
        denied = await error(client, "bundle_folder", folder="Private")
        assert denied["code"] == "acl_denied"
