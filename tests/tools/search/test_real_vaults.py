"""Search facets on real vaults (copied to tmp) against the ground truth published beside them."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.conftest import started
from tests.real_vaults import VAULTS, needs, writable_copy

KEPANO = VAULTS / "kepano-obsidian"
HELP = VAULTS / "obsidian-help-en"


def _frontmatter(path: Path) -> dict[str, object]:
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        return {}
    end = text.find("\n---", 4)
    try:
        data = yaml.safe_load(text[4:end]) if end > 0 else None
    except yaml.YAMLError:  # templates with {{placeholders}}: no rating there anyway
        return {}
    return data if isinstance(data, dict) else {}


@needs(KEPANO)
async def test_kepano_vault_property_keys_counts_and_filters_match_the_files(tmp_path: Path) -> None:
    root = tmp_path / "kepano"
    writable_copy(KEPANO, root)
    stats = json.loads((VAULTS / "kepano-obsidian.stats.json").read_text())
    async with started(root) as vg:
        await vg.indexed()
        keys = {i["key"]: i for i in (await vg.ok("list_properties", limit=2000))["items"]}
        for key, count in stats["top_frontmatter_keys"]:
            assert keys[key]["count"] == count, key
        assert keys["categories"]["type"] == "list"
        assert keys["rating"]["type"] == "number"
        # Ground truth for a numeric filter, read straight from the files.
        expected = sorted(
            p.relative_to(root).as_posix()
            for p in root.rglob("*.md")
            if isinstance(r := _frontmatter(p).get("rating"), (int, float)) and not isinstance(r, bool) and r > 5
        )
        found = await vg.ok("search_properties", filters=[{"key": "rating", "op": ">", "value": 5}], limit=1000)
        assert [i["path"] for i in found["items"]] == expected and expected
        # Wikilink-valued list items are plain strings to property search.
        books = await vg.ok(
            "search_properties", filters=[{"key": "categories", "op": "contains", "value": "[[Books]]"}], limit=1000
        )
        assert books["total"] >= 1
        assert all("[[Books]]" in i["properties"]["categories"] for i in books["items"])
        tagged = await vg.ok("search_notes", mode="properties", properties={"tags": {"op": "exists"}}, limit=200)
        assert tagged["total"] == round(stats["notes_md"] * stats["pct_fm_tags"] / 100)


@needs(HELP)
async def test_help_vault_text_search_finds_the_page_by_its_title(tmp_path: Path) -> None:
    root = tmp_path / "help"
    writable_copy(HELP, root)
    async with started(root) as vg:
        await vg.indexed()
        pages = [("canvas", "Canvas.md"), ("graph view", "Graph view.md"), ("backlinks", "Backlinks.md")]
        for query, expected in pages:
            out = await vg.ok("search_text", query=query, limit=5)
            names = [i["path"].rsplit("/", 1)[-1] for i in out["items"]]
            assert expected in names[:3], (query, names)
        unicode = await vg.ok("search_text", query="obsidian", limit=3)
        assert all(i["snippet"] for i in unicode["items"])
