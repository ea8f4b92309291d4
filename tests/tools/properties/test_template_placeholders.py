"""Property edits of a note whose frontmatter holds template placeholders as whole values
(`created: {{date}}`, as Obsidian's template folders do): the placeholder lines are kept byte
for byte, and read as their text. ruamel read `{{date}}` as a mapping keyed by a mapping, so
get_properties showed a key "ordereddict([('date', None)])", and every edit of another property
(add_tags, set_properties, rename_tag, ...) wrote the line back as `{{date: null}: null}`, after
which no YAML reader took the frontmatter and the note lost its properties and tags."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

TEMPLATE = (
    '---\ncategories:\n  - "[[Books]]"\ncreated: {{date}}\nauthor: []\n'
    "tags:\n  - books\n  - {{tag}}\n---\n# {{title}}\n"
)


async def test_property_edits_keep_template_placeholders_as_written(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Templates/Book template.md": TEMPLATE})) as vg:
        await vg.indexed()
        props = await vg.ok("get_properties", path="book template")
        assert props["properties"]["created"] == "{{date}}" and props["properties"]["tags"] == ["books", "{{tag}}"]

        await vg.ok("add_tags", path="book template", tags=["reading"])
        text = vg.read("Templates/Book template.md")
        assert text == TEMPLATE.replace("  - {{tag}}\n", "  - {{tag}}\n  - reading\n"), text

        await vg.ok("set_properties", path="book template", properties={"author": ["Ann"], "rating": 4})
        text = vg.read("Templates/Book template.md")
        assert "created: {{date}}\n" in text and "  - {{tag}}\n" in text and "rating: 4\n" in text, text
        note = await vg.ok("read_note", path="book template")
        assert note.get("frontmatter_error") is None, note
        assert note["properties"]["created"] == "{{date}}" and note["properties"]["rating"] == 4

        preview = await vg.ok("rename_tag", old="books", new="library")
        assert all("{{date:" not in str(c) for c in preview.get("changes", [])), preview
        await vg.confirmed("rename_tag", old="books", new="library", dry_run=False)
        text = vg.read("Templates/Book template.md")
        assert "created: {{date}}\n" in text and "  - library\n  - {{tag}}\n" in text, text

        await vg.ok("set_properties", path="book template", properties={"created": "2026-12-02"})
        assert "created: 2026-12-02\n" in vg.read("Templates/Book template.md")
        await vg.settled()
        found = await vg.ok("search_properties", filters=[{"key": "rating", "op": "==", "value": 4}])
        assert [i["path"] for i in found["items"]] == ["Templates/Book template.md"], found
