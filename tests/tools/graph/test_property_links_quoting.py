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
    counted = "notes_rewritten" if "notes_rewritten" in done else "files_changed"  # a move counts its notes there
    assert done[counted] == preview[counted] == len(before)
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


async def test_a_name_with_a_comma_leaves_an_unquoted_list_value_alone(make_vault: Callable[..., Path]) -> None:
    # `up: [[Hub]]` (unquoted) is a YAML list of lists, no link: the ',' of the new name would have
    # added an item, and the whole rename was refused; it is now left as written (R2 s64 F3). The
    # refusal of a rewrite that would change a property is checked in tests/unit/graph.
    vault = {**VAULT, "F.md": "---\nup: [[Hub]]\n---\nbody [[Hub]]\n"}
    root = make_vault(vault)
    async with started(root) as vg:
        await vg.indexed()
        await vg.ok("rename_note", path="Hub", new_path="Hub, two", dry_run=False)
        assert vg.read("F.md") == "---\nup: [[Hub]]\n---\nbody [[Hub, two]]\n"


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


UNQUOTED = {"Hub.md": "# Hub\n", "P.md": '---\nup: [[Hub]]\nrel: "[[Hub]]"\n---\nbody [[Hub]]\n'}


async def _backlinks(call: Any) -> list[tuple[str, int, str | None]]:
    out = await call("get_backlinks", path="Hub")
    return [(i["path"], i["line"], i.get("property")) for i in out["items"]]


async def test_an_unquoted_list_value_is_no_link_and_the_rename_goes_through(make_vault: Callable[..., Path]) -> None:
    """`up: [[Hub]]` unquoted is YAML's list [["Hub"]]: get_backlinks lists no link there, and
    rename_note refused the whole move over it (review R2 s64 F3). It is left as written; the
    body link and the quoted property link follow the rename."""
    root = make_vault(UNQUOTED)
    async with started(root) as vg:
        await vg.indexed()
        assert await _backlinks(vg.ok) == [("P.md", 3, "rel"), ("P.md", 5, None)]
        preview = await vg.ok("rename_note", path="Hub", new_path="Hub2", dry_run=True)
        assert [c["line"] for i in preview["items"] for c in i["changes"]] == [3, 5]
        done = await vg.ok("rename_note", path="Hub", new_path="Hub2", dry_run=False)
        assert done["notes_rewritten"] == 1
        assert vg.read("P.md") == '---\nup: [[Hub]]\nrel: "[[Hub2]]"\n---\nbody [[Hub2]]\n'
        await vg.settled()
        note = await vg.ok("read_note", path="P")
        assert note["properties"] == {"up": [["Hub"]], "rel": "[[Hub2]]"}


async def test_over_http_the_rename_leaves_an_unquoted_list_value(make_vault: Callable[..., Path]) -> None:
    root = make_vault(UNQUOTED)
    async with e2e(root) as (url, vg), Client(url) as client:
        await vg.indexed()
        done = await client.call_tool("rename_note", {"path": "Hub", "new_path": "Hub2", "dry_run": False})
        assert not done.is_error, done.structured_content
        assert (root / "P.md").read_text() == '---\nup: [[Hub]]\nrel: "[[Hub2]]"\n---\nbody [[Hub2]]\n'
