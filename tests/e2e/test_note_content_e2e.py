"""Session 68's note-content fixes (HA), end to end over HTTP with the SDK client in both eras;
each is tested through the dispatch chain beside its fix.

- A new name with a backtick is refused; the link a move would write to it pairs with another
  backtick of its line into inline code (tests/tools/notes/test_backtick_names.py).
- A note whose text alone is more than an answer may hold is refused with `overflow` before it
  is read; read_notes gives it its own error (tests/tools/notes/test_overlong_reads.py).
- A heading line inside a `%%` or HTML comment is no heading: it does not end the section above
  it and no address names it (tests/tools/notes/test_headings_in_comments.py).
- An inline tag added to a CRLF note, and a memory write to a CRLF entity note, keep the note's
  line ends (tests/tools/properties/test_crlf_inline_tags.py, tests/tools/memory/test_crlf_entity_writes.py).
- A note whose lines end in a CR alone is read by those lines (properties, sections) and an edit
  keeps its CR line ends (tests/tools/notes/test_cr_only_notes.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok

FILES = {
    "X.md": "# X\n",
    "Tick.md": "see `code` and [[X]] here\n",
    "Line.md": "x" * 20_000,
    "Mac.md": b"---\rtitle: cr\r---\r# A\r\r## B\r\rbee\r",
    "W.md": "# W\r\n\r\ntext\r\n",
    "Memory/Ann.md": "---\r\nname: Ann\r\nentityType: person\r\n---\r\n# Ann\r\n\r\n## Observations\r\n- tea\r\n",
    "Com.md": "## Top\n\nbody\n\n%%\n## Hidden\nsecret\n%%\n\nstill top\n\n## Real\n",
}
LIMIT = 8192


async def test_note_content_fixes_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(FILES), governor={"max_response_bytes": LIMIT}) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            refused = await error(c, "move_note", path="X", new_path="Y`z")
            assert (refused["code"], refused["details"]["reason"]) == ("path_invalid", "reserved character")
            assert (await error(c, "create_note", path="C`x", content="x"))["code"] == "path_invalid"
            assert h.read("Tick.md") == "see `code` and [[X]] here\n" and not (h.root / "C`x.md").exists()

            refused = await error(c, "read_note", path="Line")
            assert refused["code"] == "overflow" and refused["details"]["bytes"] == 20_000
            [small, line] = (await ok(c, "read_notes", paths=["X", "Line"]))["items"]
            assert small["content"] == "# X\n" and line["error"]["code"] == "overflow"

            top = await ok(c, "read_note", path="Com#Top")
            assert top["content"] == "## Top\n\nbody\n\n%%\n## Hidden\nsecret\n%%\n\nstill top\n"
            assert (await error(c, "read_note", path="Com#Hidden"))["details"]["reason"] == "not_found"

            await ok(c, "add_tags", path="W", tags=["new"], inline=True)
            assert (h.root / "W.md").read_bytes() == b"# W\r\n\r\ntext\r\n#new\r\n"
            await ok(c, "add_observations", observations=[{"entityName": "Ann", "contents": ["coffee"]}])
            ann = (h.root / "Memory/Ann.md").read_bytes()
            assert b"coffee" in ann and ann.count(b"\n") == ann.count(b"\r\n")

            props = await ok(c, "get_properties", path="Mac")
            assert (props["properties"], props["frontmatter_error"]) == ({"title": "cr"}, None)
            assert (await ok(c, "read_note", path="Mac#B"))["content"] == "## B\r\rbee\r"
            await ok(c, "patch_note", path="Mac", heading=["A", "B"], content="more\n")
            assert (h.root / "Mac.md").read_bytes() == b"---\rtitle: cr\r---\r# A\r\r## B\r\rbee\r\rmore\r"
