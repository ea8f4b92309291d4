"""resources/read of a file that is no note, or of a note too large for one answer (U1, session 80).

resources/list lists the vault's notes ('.md'), and the template says `vault://{vault}/{path}`
names a note, but resources/read answered any file by its path: an image's or a canvas's bytes
came back as `text/markdown` (read_note refuses both: `not_a_note`). And it answered a note
whole, however long: a 60 MB note was read into memory and sent as one 60 MB message, where
read_note refuses anything over `governor.max_response_bytes` (`overflow`) before reading it
whole. Now a file that is no note is -32602 `not_a_note` naming its kind and the tool that reads
it, and a note over the limit is -32602 `overflow` naming its size and the limit; at most the
limit (plus one character) of it is read. Over HTTP with the SDK client, in both protocol eras.

resources/list still listed such a note as any other (R1 s80's note; session 81): a client had no
way to tell it would be refused. It is still listed (it is in the vault), with its `size` as
before, and a `description` saying it is over the limit of one read and how to read it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.conftest import e2e

LIMIT = 4096
FILES: dict[str, str | bytes] = {
    "Welcome.md": "# Welcome\n",
    "Fits.md": "# Fits\n\n" + "word " * 700,  # ~3.5 KB: under the limit
    "Long.md": "# Long\n\n" + "word " * 20_000,  # ~100 KB: over it
    "Wide.md": "é" * 3000,  # 3,000 characters, 6,000 bytes: over it in bytes
    "pic.png": b"\x89PNG\r\n\x1a\n" + b"\x00" * 64,
    "Board.canvas": '{"nodes":[],"edges":[]}',
    "Books.base": "views:\n  - type: table\n",
}


async def refused(c: Client, uri: str) -> MCPError:
    with pytest.raises(MCPError) as caught:
        await c.read_resource(uri)
    return caught.value


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_files_that_are_no_notes_and_notes_over_the_limit_are_refused(
    make_vault: Callable[..., Path], mode: str
) -> None:
    root = make_vault(FILES)
    async with e2e(root, governor={"max_response_bytes": LIMIT}) as (url, _), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        for name, kind in [("pic.png", "image"), ("Board.canvas", "canvas"), ("Books.base", "base")]:
            error = await refused(c, f"vault://main/{name}")
            assert error.error.code == types.INVALID_PARAMS, error.error
            assert error.error.message.startswith("not_a_note:"), error.error
            assert error.error.data == {"uri": f"vault://main/{name}", "code": "not_a_note", "kind": kind}, error.error
        for name, size in [("Long.md", len(FILES["Long.md"])), ("Wide.md", 6000)]:
            error = await refused(c, f"vault://main/{name}")
            assert error.error.code == types.INVALID_PARAMS, error.error
            assert error.error.message.startswith("overflow:"), error.error
            data = error.error.data
            assert data == {"uri": f"vault://main/{name}", "code": "overflow", "bytes": size, "limit": LIMIT}, data
        # a note under the limit is read whole, and the session goes on
        read = await c.read_resource("vault://main/Fits.md")
        content = read.contents[0]
        assert isinstance(content, types.TextResourceContents) and content.text == FILES["Fits.md"]
        listed = {str(r.uri): r for r in (await c.list_resources()).resources}
        assert set(listed) == {f"vault://main/{n}" for n in FILES if n.endswith(".md")}
        # the listing says which notes a read refuses, and their size (session 81)
        for name, size in [("Welcome.md", 10), ("Fits.md", len(FILES["Fits.md"])), ("Long.md", len(FILES["Long.md"]))]:
            assert listed[f"vault://main/{name}"].size == size, listed[f"vault://main/{name}"]
        for name in ("Welcome.md", "Fits.md"):
            assert listed[f"vault://main/{name}"].description is None, listed[f"vault://main/{name}"]
        for name, size in [("Long.md", len(FILES["Long.md"])), ("Wide.md", 6000)]:
            description = listed[f"vault://main/{name}"].description or ""
            assert description.startswith(f"{size} bytes, over the {LIMIT}-byte limit"), description
            assert "read_note" in description, description
