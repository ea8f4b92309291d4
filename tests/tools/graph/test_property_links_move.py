"""A note that links to a moved note only from its frontmatter properties (`up: "[[Hub]]"`, list
items `- "[[Hub|h]]"`, flow lists) is rewritten by rename_note, move_note and rewrite_links, as
Obsidian rewrites property links on rename; the rest of its YAML is kept byte for byte, the
preview lists these edits as the run makes them, and undo_last_plan restores them (R3 s62 F6:
such a note was never a candidate, the index's links hold the body's links only)."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import Harness, e2e, started

FRONT = (
    "---\n"
    'up: "[[Hub]]"\n'
    "rel:\n"
    '  - "[[Hub|h]]"\n'
    "  - '[[Other]]'\n"
    "related: [\"[[Hub#Part]]\",  '[[Other]]']   # kept as written\n"
    "title: Hub notes, not a link\n"
    "---\n"
    "# F\n\nNo body link.\n"
)
VAULT = {
    "Hub.md": "# Hub\n\n## Part\n",
    "Other.md": "# Other\n",
    "F.md": FRONT,
    "Deep/G.md": "---\nparent: '[[Hub]]'\n---\n",
    "B.md": "Body [[Hub]].\n",
}


def _changed_lines(before: str, after: str) -> list[tuple[int, str, str]]:
    """(1-based line, before, after) of every line that differs (the line count is kept)."""
    a, b = before.splitlines(), after.splitlines()
    assert len(a) == len(b)
    return [(i + 1, x, y) for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]


def _preview_lines(items: list[dict[str, Any]]) -> dict[str, list[tuple[int, str, str]]]:
    return {i["path"]: [(c["line"], c["before"], c["after"]) for c in i["changes"]] for i in items}


async def _check(vg: Harness, tool: str, args: dict[str, Any], new_name: str) -> None:
    before = {p: vg.read(p) for p in ("F.md", "Deep/G.md", "B.md")}
    preview = await vg.ok(tool, **args, dry_run=True)
    planned = _preview_lines(preview["items"])
    assert {"F.md", "Deep/G.md", "B.md"} <= set(planned), planned
    token = None
    first = await vg.call(tool, **args, dry_run=False)
    if first.is_error:  # a move across folders asks a human; the request names the notes it changes
        assert first.structured is not None and first.structured["error"]["code"] == "elicit_required"
        token = await vg.token_for(tool, **args, dry_run=False)
        done = await vg.ok(tool, **args, dry_run=False, elicit_token=token)
    else:
        done = first.structured
        assert done is not None
    assert done["files_changed"] == preview["files_changed"]
    for path, text in before.items():
        now = vg.read(path)
        assert _changed_lines(text, now) == planned[path], "".join(difflib.unified_diff([text], [now]))
    f = vg.read("F.md")
    assert f == (
        FRONT.replace('"[[Hub]]"', f'"[[{new_name}]]"')
        .replace('"[[Hub|h]]"', f'"[[{new_name}|h]]"')
        .replace('"[[Hub#Part]]"', f'"[[{new_name}#Part]]"')
    )
    assert vg.read("Deep/G.md") == f"---\nparent: '[[{new_name}]]'\n---\n"
    await vg.settled()
    undone = await vg.confirmed("undo_last_plan")
    assert undone["conflicts"] == [], undone
    assert {p: vg.read(p) for p in before} == before


@pytest.mark.parametrize(
    ("tool", "args", "new_name"),
    [
        ("rename_note", {"path": "Hub", "new_path": "Hub2"}, "Hub2"),
        ("move_note", {"path": "Hub", "new_path": "Archive/Center"}, "Center"),
    ],
)
async def test_property_links_move_with_the_note(
    make_vault: Callable[..., Path], tool: str, args: dict[str, Any], new_name: str
) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        await _check(vg, tool, args, new_name)


async def test_rewrite_links_rewrites_property_links(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({**VAULT, "Hub2.md": "# Hub2\n"})) as vg:
        await vg.indexed()
        preview = await vg.ok("rewrite_links", old_target="Hub", new_target="Hub2")
        assert {"F.md", "Deep/G.md", "B.md"} <= {i["path"] for i in preview["items"]}
        await vg.confirmed("rewrite_links", old_target="Hub", new_target="Hub2", dry_run=False)
        assert '"[[Hub2|h]]"' in vg.read("F.md") and vg.read("Deep/G.md") == "---\nparent: '[[Hub2]]'\n---\n"


async def test_over_http_a_rename_rewrites_property_links(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    async with e2e(root) as (url, vg), Client(url) as client:
        await vg.indexed()
        args = {"path": "Hub", "new_path": "Hub2"}
        preview = await client.call_tool("rename_note", {**args, "dry_run": True})
        assert not preview.is_error and preview.structured_content is not None, preview
        planned = _preview_lines(preview.structured_content["items"])
        before = (root / "F.md").read_text()
        done = await client.call_tool("rename_note", {**args, "dry_run": False})
        assert not done.is_error, done.structured_content
        assert _changed_lines(before, (root / "F.md").read_text()) == planned["F.md"]
        assert (root / "F.md").read_text() == FRONT.replace("[[Hub", "[[Hub2")


async def test_names_with_a_final_sigma_or_like_wildcards_are_found(make_vault: Callable[..., Path]) -> None:
    # the few names of a move are matched in SQL first (LIKE on the lower-cased value): a final
    # sigma (folded to σ in names) and `_` / `%` in a name must neither miss nor over-match
    vault = {
        "Σίσυφος.md": "# s\n",
        "a_b%c.md": "# w\n",
        "axbyc.md": "# decoy\n",
        "P.md": '---\nup: "[[ΣΊΣΥΦΟΣ]]"\nx: "[[a_b%c|w]]"\n---\n',
        "Q.md": '---\ny: "[[axbyc]]"\n---\n',
    }
    async with started(make_vault(vault)) as vg:
        await vg.indexed()
        out = await vg.ok("rename_note", path="Σίσυφος", new_path="Sisyphus", dry_run=True)
        assert [i["path"] for i in out["items"]] == ["P.md"], out
        out = await vg.ok("rename_note", path="a_b%c", new_path="abc", dry_run=True)
        assert [i["path"] for i in out["items"]] == ["P.md"], out
        await vg.ok("rename_note", path="a_b%c", new_path="abc", dry_run=False)
        assert vg.read("P.md") == '---\nup: "[[ΣΊΣΥΦΟΣ]]"\nx: "[[abc|w]]"\n---\n' and vg.read("Q.md") == vault["Q.md"]
