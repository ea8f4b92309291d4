"""A search hit's obsidian_url opens its chunk's heading by the link Obsidian writes to it
(`sections.link_text`, as get_outline's `link`): Obsidian reads the part after '#' as a link's
heading path, so `## C# tips: generics` written as it stands named the heading 'C' and then
' tips: generics' under it. The same anchor in search_semantic, search_hybrid and search_notes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

from tests.semantic.helpers import VAULT, semantic

CODE = "# CSharp\n\n## C# tips: generics\nGeneric type parameters let one list class hold elements of any type.\n"


async def test_a_hit_links_its_heading_as_a_link_to_it_is_written(make_vault: Callable[..., Path]) -> None:
    query = "type parameters so a collection class can hold any element type"
    async with semantic(make_vault({**VAULT, "Code/CSharp.md": CODE})) as h:
        anchor = "%23" + quote("C tips generics", safe="")
        top = (await h.ok("search_semantic", query=query, limit=1))["items"][0]
        assert (top["path"], top["heading"]) == ("Code/CSharp.md", "C# tips: generics")
        assert top["obsidian_url"].endswith(anchor), top["obsidian_url"]
        hybrid = (await h.ok("search_hybrid", query=query, limit=1))["items"][0]
        assert hybrid["obsidian_url"] == top["obsidian_url"]
        notes = (await h.ok("search_notes", query=query, mode="hybrid", limit=1))["items"][0]
        assert notes["obsidian_url"] == top["obsidian_url"]
        read = await h.ok("read_note", path="Code/CSharp#C tips generics")  # the anchor names that heading
        assert read["start_line"] == 3
