"""rename_note / rewrite_links write a property link's new target for the YAML scalar it sits in:
`parent: '[[Hub]]'` renamed to "Hub's plan" reads `'[[Hub''s plan]]'` (R1 s63 F2: the `'` ended
the scalar, the note's frontmatter no longer parsed and read_note reported no properties, while
the rename answered success). The preview shows the lines the run writes; the written link is
found again by the next rename; a rewrite whose frontmatter would not read back refuses the whole
call and writes nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from mcp import Client

from tests.conftest import Harness, e2e, started

VAULT = {
    "Hub.md": "# Hub\n",
    "S.md": "---\nparent: '[[Hub]]'\ntitle: 'it''s S'\n---\nbody\n",
    "L.md": "---\nrel:\n  - '[[Hub|h]]'\n  - \"[[Hub#Part]]\"\nflow: ['[[Hub]]', x]\n---\n",
    "P.md": "---\nk: see [[Hub]] now # plain\n---\n",
    "B.md": "Body [[Hub]].\n",
}
PROPS = {
    "S.md": {"parent": "[[{n}]]", "title": "it's S"},
    "L.md": {"rel": ["[[{n}|h]]", "[[{n}#Part]]"], "flow": ["[[{n}]]", "x"]},
    "P.md": {"k": "see [[{n}]] now"},
}


def _props(name: str) -> dict[str, Any]:
    def fill(v: Any) -> Any:
        return [fill(x) for x in v] if isinstance(v, list) else v.replace("{n}", name)

    return {p: {k: fill(v) for k, v in d.items()} for p, d in PROPS.items()}


def _changed(before: str, after: str) -> list[tuple[int, str, str]]:
    a, b = before.split("\n"), after.split("\n")
    return [(i + 1, x, y) for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]


async def _applies_as_previewed(vg: Harness, tool: str, **args: Any) -> None:
    before = {p: vg.read(p) for p in VAULT if p != "Hub.md"}
    preview = await vg.ok(tool, **args, dry_run=True)
    planned = {i["path"]: [(c["line"], c["before"], c["after"]) for c in i["changes"]] for i in preview["items"]}
    assert set(planned) == set(before), planned
    first = await vg.call(tool, **args, dry_run=False)
    if first.is_error:  # rewrite_links asks a human first
        assert first.structured is not None and first.structured["error"]["code"] == "elicit_required", first
        done = await vg.confirmed(tool, **args, dry_run=False)
    else:
        assert first.structured is not None
        done = first.structured
    assert done["files_changed"] == preview["files_changed"] == len(before)
    for path, text in before.items():
        assert _changed(text, vg.read(path)) == planned[path], path


async def _properties(vg: Harness) -> dict[str, Any]:
    await vg.settled()
    out = {}
    for path in PROPS:
        note = await vg.ok("read_note", path=path)
        assert note["frontmatter_error"] is None, note
        out[path] = note["properties"]
    return out


async def test_rename_to_a_name_with_a_quote_keeps_every_property(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        await _applies_as_previewed(vg, "rename_note", path="Hub", new_path="Hub's plan")
        assert vg.read("S.md") == "---\nparent: '[[Hub''s plan]]'\ntitle: 'it''s S'\n---\nbody\n"
        assert vg.read("L.md").startswith("---\nrel:\n  - '[[Hub''s plan|h]]'\n  - \"[[Hub's plan#Part]]\"\n")
        assert await _properties(vg) == _props("Hub's plan")
        # the next rename finds the links written with YAML's '' and puts them back plain
        await _applies_as_previewed(vg, "rename_note", path="Hub's plan", new_path="Hub")
        assert {p: vg.read(p) for p in VAULT} == VAULT


async def test_rewrite_links_to_a_name_with_a_quote(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({**VAULT, "Ann's.md": "# A\n"})) as vg:
        await vg.indexed()
        await _applies_as_previewed(vg, "rewrite_links", old_target="Hub", new_target="Ann's")
        assert vg.read("S.md").startswith("---\nparent: '[[Ann''s]]'\n")
        assert await _properties(vg) == _props("Ann's")


async def test_a_rename_that_would_break_a_property_is_refused_whole(make_vault: Callable[..., Path]) -> None:
    # `up: [[Hub]]` (unquoted) is a YAML list of lists: the ',' of the new name would add an item
    vault = {**VAULT, "F.md": "---\nup: [[Hub]]\n---\nbody [[Hub]]\n"}
    root = make_vault(vault)
    async with started(root) as vg:
        await vg.indexed()
        for dry_run in (True, False):
            out = await vg.call("rename_note", path="Hub", new_path="Hub, two", dry_run=dry_run)
            assert out.is_error and out.structured is not None, out
            error = out.structured["error"]
            assert error["code"] == "validation_error" and error["details"]["path"] == "F.md", error
        assert {p: vg.read(p) for p in vault} == vault and not (root / "Hub, two.md").exists()


async def test_over_http_the_rename_keeps_a_single_quoted_property(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    async with e2e(root) as (url, vg), Client(url) as client:
        await vg.indexed()
        done = await client.call_tool("rename_note", {"path": "Hub", "new_path": "Hub's plan", "dry_run": False})
        assert not done.is_error, done.structured_content
        assert (root / "S.md").read_text() == "---\nparent: '[[Hub''s plan]]'\ntitle: 'it''s S'\n---\nbody\n"
        await vg.settled()
        note = await client.call_tool("read_note", {"path": "S"})
        assert not note.is_error and note.structured_content is not None
        assert note.structured_content["frontmatter_error"] is None
        assert note.structured_content["properties"] == {"parent": "[[Hub's plan]]", "title": "it's S"}
