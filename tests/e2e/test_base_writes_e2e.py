"""Obsidian Bases written through the note tools, end to end over HTTP with the SDK client in both
eras (dispatch-chain tests: tests/tools/notes/test_base_files.py): write_note makes a `.base`
file (never a `.base.md` note) that query_base reads back, a malformed one is bases_syntax_error
with nothing written, a replace needs the etag read_note (or read_attachment) gives or a
confirmation, read_note reads the YAML back, append answers not_a_note, query_base takes an embed of one view
(`![[Library.base#Old]]`), rename_note / delete_note take a base,
and a note's embed of a base made after it resolves."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error, ok
from tests.e2e.test_plan_previews_e2e import _token
from tests.tools.notes.test_base_files import READING
from tests.tools.obsidian.bases_vault import BASES_VAULT


async def test_bases_written_with_the_note_tools_over_http(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(BASES_VAULT)) as (url, h):
        await h.indexed()
        async with Client(url, mode=mode) as c:  # type: ignore[arg-type]
            await ok(c, "write_note", path="Hub.md", content="![[To read.base]]\n")  # the embed first
            made = await ok(c, "write_note", path="Lists/To read.base", content=READING)
            assert made["path"] == "Lists/To read.base" and h.read("Lists/To read.base") == READING
            assert not (h.root / "Lists" / "To read.base.md").exists()
            broken = await ok(c, "find_broken_links")  # the embed resolves to the base made after it
            assert "To read.base" not in [i["target"] for i in broken["items"]], broken
            [link] = (await ok(c, "get_outlinks", path="Hub"))["items"]
            assert (link["path"], link["resolved"]) == ("Lists/To read.base", True)
            out = await ok(c, "query_base", path="To read")
            assert [r["values"]["file.name"]["value"] for r in out["rows"]] == ["Dune.md", "Foundation.md", "Emma.md"]
            before = h.snapshot()
            bad = await error(c, "create_note", path="Bad.base", content="views:\n  - name: T\n    filters: 'x >'\n")
            assert bad["code"] == "bases_syntax_error" and bad["details"]["line"] == 3
            assert h.changed_since(before) == set()
            ask = await error(c, "write_note", path="Lists/To read.base", content="views: []\n", mode="overwrite")
            assert ask["code"] == "elicit_required"
            etag = (await ok(c, "read_attachment", path="Lists/To read.base"))["etag"]
            await ok(
                c, "write_note", path="Lists/To read.base", content="views: []\n", mode="overwrite", expected_etag=etag
            )
            assert h.read("Lists/To read.base") == "views: []\n"
            wrong = await error(c, "append_note", path="New.base", content="x", create_if_missing=True)
            assert wrong["code"] == "not_a_note" and wrong["details"]["kind"] == "base"
            back = await ok(c, "read_note", path="To read.base")  # the YAML written, with the etag write_note takes
            assert (back["path"], back["content"]) == ("Lists/To read.base", "views: []\n")
            await ok(
                c, "write_note", path="To read.base", content=READING, mode="overwrite", expected_etag=back["etag"]
            )
            assert h.read("Lists/To read.base") == READING
            view = await error(c, "read_note", path="![[Library.base#Old]]")
            assert view["code"] == "validation_error" and "query_base" in view["hint"]
            old = await ok(c, "query_base", path="![[Library.base#Old]]")  # an embed of one view
            assert old["view"] == "Old" and old["total"] == 1
            shelf = await ok(c, "rename_note", path="Library.base", new_path="Shelf.base")
            assert shelf["path"] == "Shelf.base"
            gone = await ok(c, "delete_note", path="Lists/To read.base")
            assert gone["trash_path"] and not (h.root / "Lists" / "To read.base").exists()
            ask = await error(c, "delete_note", path="Shelf.base", permanent=True)
            assert ask["code"] == "elicit_required"
            await ok(c, "delete_note", path="Shelf.base", permanent=True, elicit_token=await _token(h, ask))
            assert not (h.root / "Shelf.base").exists()
