"""The obsidian domain over real HTTP with the SDK client, in both protocol eras: bookmarks,
workspace, canvas and attachments, and an image arriving as MCP image content."""

from __future__ import annotations

import base64
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path

import mcp_types as types
from mcp import Client, StdioServerParameters
from PIL import Image

from tests.conftest import e2e
from tests.e2e.calls import error, ok


def _png() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (64, 48), (10, 120, 200)).save(buf, format="PNG")
    return buf.getvalue()


FILES: dict[str, str | bytes] = {
    "Welcome.md": "# Welcome\n\n![[pics/sky.png]]\n",
    "pics/sky.png": _png(),
    ".obsidian/workspace.json": json.dumps(
        {
            "main": {
                "type": "split",
                "children": [
                    {
                        "type": "tabs",
                        "children": [
                            {"id": "x", "type": "leaf", "state": {"type": "markdown", "state": {"file": "Welcome.md"}}}
                        ],
                    }
                ],
            },
            "active": "x",
            "lastOpenFiles": ["Welcome.md", "pics/sky.png"],
        }
    ),  # fmt: skip
}


async def test_obsidian_files_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(FILES)) as (url, harness):
        await harness.indexed()
        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            added = await ok(client, "add_bookmark", type="file", path="Welcome", subpath="#Welcome")
            listed = await ok(client, "list_bookmarks")
            assert [i["id"] for i in listed["items"]] == [added["item"]["id"]]
            assert listed["items"][0]["position"] == "0" and added["item"]["id"].startswith("file-")
            await ok(client, "add_bookmark", type="search", query="tag:#x", position=0)  # shifts positions
            assert (await error(client, "remove_bookmark", id="0"))["code"] == "note_not_found"
            gone = await ok(client, "remove_bookmark", id=added["item"]["id"])
            assert gone["item"]["subpath"] == "#Welcome" and gone["item"]["position"] == "1"

            space = await ok(client, "get_workspace")
            assert space["active_file"]["path"] == "Welcome.md"
            recent = await ok(client, "list_recent_files")
            assert [i["kind"] for i in recent["items"]] == ["note", "image"]

            node = {"id": "n", "type": "file", "x": 0, "y": 0, "width": 400, "height": 300, "file": "Welcome.md"}
            written = await ok(client, "write_canvas", path="Map", nodes=[node])
            canvas = await ok(client, "read_canvas", path="Map.canvas")
            assert canvas["etag"] == written["etag"] and canvas["nodes"][0]["resolved"]["title"] == "Welcome"
            bad = await error(client, "write_canvas", path="Map2", nodes=[node, node])
            assert bad["code"] == "validation_error" and bad["details"]["reason"] == "invalid_canvas"

            listed_files = await ok(client, "list_attachments", kind="image")
            assert [i["path"] for i in listed_files["items"]] == ["pics/sky.png"]
            result = await client.call_tool("read_attachment", {"path": "pics/sky.png"})
            assert not result.is_error and result.structured_content is not None
            assert result.structured_content["image"]["sent_width"] == 64
            images = [c for c in result.content if isinstance(c, types.ImageContent)]
            assert len(images) == 1 and images[0].mime_type == "image/png"
            assert base64.b64decode(images[0].data) == FILES["pics/sky.png"]
            assert isinstance(result.content[0], types.TextContent)
            assert (await error(client, "read_attachment", path="pics/none.png"))["code"] == "note_not_found"


async def test_an_image_over_stdio(make_vault: Callable[..., Path], mode: str) -> None:
    root = make_vault(FILES)
    params = StdioServerParameters(command=sys.executable, args=["-m", "service", "stdio", str(root)])
    async with Client(params, mode=mode) as client:  # type: ignore[arg-type]
        result = await client.call_tool("read_attachment", {"path": "pics/sky.png", "max_dimension": 32})
        assert not result.is_error and result.structured_content is not None
        [image] = [c for c in result.content if isinstance(c, types.ImageContent)]
        assert Image.open(io.BytesIO(base64.b64decode(image.data))).size == (32, 24)
        space = await ok(client, "get_workspace")
        assert space["active_file"]["path"] == "Welcome.md"
