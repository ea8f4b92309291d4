"""What a TypeScript agent (the official TypeScript MCP client over Streamable HTTP, default lean
tool list) met maintaining a copy of the Obsidian Hub vault: a vault-wide rename_tag that failed
whole on a note named with ':', a preview and a result that rewrote lines the rename had nothing
to do with, and an unknown capability whose hint pointed at a tools/list without it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.interop import tooling

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.timeout(900),
    pytest.mark.skipif(os.name == "nt", reason="':' is a drive or a stream on Windows"),
]

COLON = "Themes/RedShift: OLED Blue Light Filter.md"
FILES = {
    COLON: "---\naliases: \n- \ntags: \n- placeholder/author \npublish: true\n---\n# RedShift\n\nA dark theme.\n",
    "Themes/Minimal.md": "---\naliases: \n- \ntags: \n- placeholder/author\n- seedling\n---\n# Minimal\n",
}


def _vault(tmp_path: Path) -> Path:
    root = tmp_path / "hub"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _structured(outcome: dict[str, Any]) -> dict[str, Any]:
    assert "thrown" not in outcome, f"the TypeScript client raised: {outcome['thrown']}"
    content: dict[str, Any] = outcome["result"]["structuredContent"]
    return content


def _rename(**extra: Any) -> dict[str, Any]:
    args = {"old": "placeholder", "new": "todo/fill", "dry_run": False}
    return {"name": "call_capability", "arguments": {"name": "rename_tag", "arguments": args, **extra}}


def test_a_typescript_agent_renames_a_tag_over_a_hub_shaped_vault(node_tooling: None, tmp_path: Path) -> None:
    root = _vault(tmp_path)
    with tooling.serve(root, tmp_path / "serve.log") as served:
        preview_call = {
            "name": "call_capability",
            "arguments": {"name": "rename_tag", "arguments": {"old": "placeholder", "new": "todo/fill"}},
        }
        calls = [
            {"name": "read_note", "arguments": {"path": COLON}},
            preview_call,
            _rename(),
            {"name": "call_capability", "arguments": {"name": "rename_tags", "arguments": {}}},
        ]
        report = tooling.ts_client({"transport": "http", "url": served.url, "calls": calls})
        read, preview, asked, unknown = (_structured(o) for o in report["results"])
        assert read["path"] == COLON and read["content"].endswith("A dark theme.\n")
        changes = {i["path"]: i["changes"] for i in preview["result"]["items"]}
        assert changes == {
            COLON: [{"line": 5, "before": "- placeholder/author ", "after": "- todo/fill/author "}],
            "Themes/Minimal.md": [{"line": 5, "before": "- placeholder/author", "after": "- todo/fill/author"}],
        }
        assert asked["error"]["code"] == "elicit_required"
        assert unknown["error"]["code"] == "not_found" and "find_capability" in unknown["error"]["hint"]
        assert unknown["error"]["details"]["suggestions"][0] == "rename_tag"
        assert {p: (root / p).read_text(encoding="utf-8") for p in FILES} == FILES  # nothing changed yet

        token = (
            subprocess.run(
                [sys.executable, "-m", "service", "confirm", asked["error"]["details"]["args_hash"], str(root)],
                capture_output=True,
                text=True,
                timeout=120,
                env=tooling.server_env(),
                check=True,
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        report = tooling.ts_client({"transport": "http", "url": served.url, "calls": [_rename(elicit_token=token)]})
        done = _structured(report["results"][0])
        assert done["result"]["files_changed"] == 2 and done["result"]["lines_changed"] == 2
    for rel, text in FILES.items():
        assert (root / rel).read_text(encoding="utf-8") == text.replace("placeholder/author", "todo/fill/author")
