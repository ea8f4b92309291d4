"""Bases' link functions count a link written in a frontmatter property as Obsidian does, and as
the index's graph answers do (01633d9): `file.backlinks` holds the notes linking from a property
(get_backlinks lists them too), `file.hasLink` finds a property's link to a missing note, and
`file.links` holds each property link once (it adds the links of the property values itself; the
index's property rows are not added again). Before, file.backlinks counted the body's links only,
so a Base and get_backlinks disagreed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client

from tests.conftest import Harness, e2e, started

VAULT = {
    "Hub.md": "# Hub\n",
    "Other.md": "# Other\n",
    "Prop.md": '---\nup: "[[Hub]]"\nrelated:\n  - "[[Other]]"\n  - "[[Gone]]"\n---\n# Prop\n\nNo body link.\n',
    "Both.md": '---\nup: "[[Hub]]"\n---\nSee [[Hub]] and ![[Other]].\n',
    "Body.md": "Body [[Hub]] twice [[Hub]].\n",
    "Private/Secret.md": '---\nup: "[[Hub]]"\n---\nsecret\n',
}

COLUMNS = """\
formulas:
  back: file.backlinks.length
  links: file.links.length
  embeds: file.embeds.length
  gone: file.hasLink("Gone")
views:
  - type: table
    order: [file.name, file.backlinks, formula.back, formula.links, formula.embeds, formula.gone]
    sort: [{property: file.path, direction: ASC}]
"""


def _table(out: dict[str, Any]) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for row in out["rows"]:
        values = row["values"]
        rows[row["path"]] = {
            "backlinks": sorted(v["value"]["path"] for v in values["file.backlinks"]["value"]),
            **{k: values[f"formula.{k}"]["value"] for k in ("back", "links", "embeds", "gone")},
        }
    return rows


async def _backlinks(vg: Harness, path: str) -> list[str]:
    out = await vg.ok("get_backlinks", path=path)
    return sorted({item["path"] for item in out["items"]})


async def test_file_backlinks_count_property_links_as_get_backlinks(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        table = _table(await vg.ok("query_base", yaml=COLUMNS))
        hub = ["Body.md", "Both.md", "Private/Secret.md", "Prop.md"]
        assert table["Hub.md"]["backlinks"] == hub == await _backlinks(vg, "Hub") and table["Hub.md"]["back"] == 4
        assert table["Other.md"]["backlinks"] == ["Both.md", "Prop.md"] == await _backlinks(vg, "Other")
        assert table["Prop.md"]["backlinks"] == [] and table["Prop.md"]["back"] == 0
        # file.links: each property link once (Hub, Other, Gone), not again from the index's rows
        assert (table["Prop.md"]["links"], table["Prop.md"]["embeds"]) == (3, 0)
        assert (table["Both.md"]["links"], table["Both.md"]["embeds"]) == (2, 1)  # body Hub + property Hub
        assert (table["Body.md"]["links"], table["Body.md"]["embeds"]) == (2, 0)
        assert [p for p, row in table.items() if row["gone"]] == ["Prop.md"]
        linked = await vg.ok("query_base", yaml='filters: file.hasLink(link("Hub"))\n')
        assert sorted(r["path"] for r in linked["rows"]) == hub


async def test_a_denied_note_linking_from_a_property_is_no_backlink(make_vault: Callable[..., Path]) -> None:
    acl = {"prefix_rules": [{"path": "Private", "read": "deny"}]}
    async with started(make_vault(VAULT), acl=acl) as vg:
        await vg.indexed()
        table = _table(await vg.ok("query_base", yaml=COLUMNS))
        assert "Private/Secret.md" not in table
        assert table["Hub.md"]["backlinks"] == ["Body.md", "Both.md", "Prop.md"] == await _backlinks(vg, "Hub")
        assert table["Hub.md"]["back"] == 3


async def test_over_http_a_base_and_get_backlinks_agree(make_vault: Callable[..., Path]) -> None:
    async with e2e(make_vault(VAULT)) as (url, vg), Client(url) as client:
        await vg.indexed()
        base = await client.call_tool("query_base", {"yaml": COLUMNS})
        assert not base.is_error and base.structured_content is not None, base
        back = await client.call_tool("get_backlinks", {"path": "Hub"})
        assert not back.is_error and back.structured_content is not None, back
        linking = sorted({item["path"] for item in back.structured_content["items"]})
        assert _table(base.structured_content)["Hub.md"]["backlinks"] == linking
        assert "Prop.md" in linking and "Private/Secret.md" in linking
