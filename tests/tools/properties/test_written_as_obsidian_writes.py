"""set_properties / add_tags write new YAML as Obsidian writes properties, so Obsidian does not
rewrite our output on its next save: list items indented `  - item`, a value that needs quotes in
double quotes (`"[[Link]]"`, `"145"`, `""`), dates and dates with a time plain. A note's own
style (unindented lists, single quotes) is kept. Evidence: kepano's vault (written by Obsidian:
`categories:\\n  - "[[Apps]]"`, `episode: "145"`, `artist: ""`, `created: 2023-09-12`) and the
Obsidian Help vault (`aliases:\\n  - …`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

FILES: dict[str, str | bytes] = {
    "Bare.md": "# Bare\n",
    "Scalars.md": "---\ncreated: 2023-09-12\n---\n# Scalars\n",
    "Own.md": "---\naliases:\n- Old\nsource: 'kept'\n---\n# Own\n",
}


async def test_new_properties_are_written_as_obsidian_writes_them(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.ok(
            "set_properties",
            path="bare",
            properties={
                "categories": ["[[Apps]]", "[[Japan]]"],
                "episode": "145",
                "artist": "",
                "type": [],
                "published": "2023-09-29",
                "started": "2024-03-01T09:30:00",
                "rating": 7,
                "done": True,
                "url": "https://obsidian.md/",
                "quote": 'say "hi": now',
            },
        )
        assert vg.read("Bare.md") == (
            '---\ncategories:\n  - "[[Apps]]"\n  - "[[Japan]]"\nepisode: "145"\nartist: ""\ntype: []\n'
            "published: 2023-09-29\nstarted: 2024-03-01T09:30:00\nrating: 7\ndone: true\n"
            "url: https://obsidian.md/\nquote: 'say \"hi\": now'\n---\n# Bare\n"
        )
        out = await vg.ok("get_properties", path="Bare")
        assert out["properties"]["started"] == "2024-03-01T09:30:00" and out["properties"]["episode"] == "145"


async def test_tags_added_to_a_frontmatter_without_a_list_are_indented(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.ok("add_tags", path="Scalars", tags=["#book", "to-read"])
        assert vg.read("Scalars.md") == "---\ncreated: 2023-09-12\ntags:\n  - book\n  - to-read\n---\n# Scalars\n"
        await vg.ok("add_tags", path="Bare", tags=["idea"])
        assert vg.read("Bare.md") == "---\ntags:\n  - idea\n---\n# Bare\n"


async def test_a_notes_own_list_indent_and_quotes_are_kept(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.ok("set_properties", path="Own", properties={"related": ["[[Bare]]"]})
        assert vg.read("Own.md") == "---\naliases:\n- Old\nsource: 'kept'\nrelated:\n- \"[[Bare]]\"\n---\n# Own\n"
