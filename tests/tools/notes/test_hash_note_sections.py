"""A section of a note named with '#' or inside a '#' folder is reachable: the longest text before
a later '#' that names a note is that note, the rest its section (R1 s63 F3: after a0a538d
`Home#Contribute/Guide#Setup` was note_not_found, a new note in the '#' folder, and `Plan#2#Intro`
read Plan.md's heading "2 > Intro"). A new note in a '#' folder and `Note#A#B` of a note named
without '#' read as before; bracketed links keep Obsidian's first-'#' split."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e, started

VAULT = {
    "Home.md": "# Home\n\n## Contribute\n\nhome contribute section\n",
    "Home#Contribute/Guide.md": "# Guide\n\n## Setup\n\nguide setup section\n",
    "Plan.md": "# Plan\n\n## 2\n\nplan two\n\n### Intro\n\nplan nested\n",
    "Plan#2.md": "# P2\n\n## Intro\n\nplan2 intro\n",
    "Solo.md": "# Solo\n\n## A\n\n### B\n\nsolo nested\n",
}


async def test_sections_of_notes_named_with_a_hash(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()

        async def read(path: str) -> tuple[str, str]:
            out = await vg.ok("read_note", path=path)
            return out["path"], out["content"]

        assert await read("Home#Contribute/Guide#Setup") == (
            "Home#Contribute/Guide.md",
            "## Setup\n\nguide setup section\n",
        )
        assert await read("Plan#2#Intro") == (
            "Plan#2.md",
            "## Intro\n\nplan2 intro\n",
        )  # the file wins, as for 'Plan#2'
        assert (await read("Plan#2"))[0] == "Plan#2.md"
        assert await read("Solo#A#B") == ("Solo.md", "### B\n\nsolo nested\n")  # nested headings, as before
        assert (await read("[[Plan#2#Intro]]"))[1] == "### Intro\n\nplan nested\n"  # a link: Obsidian's split
        await vg.err("read_note", "not_a_note", path="Home#Contribute")  # the folder, as a0a538d made it
        # a new note in the '#' folder is still that path, with Home.md beside the folder
        created = await vg.ok("create_note", path="Home#Contribute/new", content="new\n")
        assert created["path"] == "Home#Contribute/new.md" and vg.read("Home#Contribute/new.md") == "new\n"


async def test_over_http_a_section_of_a_note_in_a_hash_folder(make_vault: Callable[..., Path]) -> None:
    async with e2e(make_vault(VAULT)) as (url, vg), Client(url) as client:
        await vg.indexed()
        out = await client.call_tool("read_note", {"path": "Home#Contribute/Guide#Setup"})
        assert not out.is_error and out.structured_content is not None, out
        assert out.structured_content["path"] == "Home#Contribute/Guide.md"
        assert out.structured_content["content"] == "## Setup\n\nguide setup section\n"
