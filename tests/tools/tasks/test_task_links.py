"""Links in `filter|sort|group by function` (Tasks 7.21.0, docs/Getting Started/Links.md, Scripting/
Task Properties.md, the demo vault's How To/Access links.md): `task.outlinks` (the links on the
task's line), `task.file.outlinks` / `outlinksInBody` / `outlinksInProperties`, each a Link with
`originalMarkdown`, `markdown`, `destination`, `destinationPath` (resolved as the index resolves
links: null when broken), `displayText` and `linksTo(...)`. Before session 76 every one of these
was query_syntax_error ('task.outlinks is not a field this server provides'); `.sort()` of an array
(the demo's `group by function task.outlinks.map(link => link.markdown).sort().join(' · ')`) too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, started

FILES = {
    "Projects/Plan.md": (
        '---\nup: "[[Hub]]"\n---\n# Plan\n\nSee [[Notes/Ref|the ref]] and ![[Pic.png]].\n\n## Work\n\n'
        "- [ ] call [[Ann]] about [budget](Finance/Budget%202026.md#Q1) 📅 2026-12-03\n"
        "- [ ] read [[#Work]] then [[Ref#Part A#Sub]]\n"
        "- [ ] fix [[Missing note]]\n"
        "- [ ] plain task\n"
    ),
    "People/Ann.md": "# Ann\n",
    "Notes/Ref.md": "# Ref\n## Part A\n### Sub\n",
    "Finance/Budget 2026.md": "# Q1\n",
    "Hub.md": "# Hub\n",
    "Loose.md": "- [ ] no links here\n",
}


async def grouped(vg: Harness, query: str) -> list[tuple[list[str], int]]:
    out = await vg.ok("tasks_filter", query=query, today="2026-12-02")
    return [(g["names"], g["count"]) for g in out["groups"]]


async def described(vg: Harness, query: str) -> list[str]:
    out: dict[str, Any] = await vg.ok("tasks_filter", query=query, today="2026-12-02")
    return [i["description"] for i in out["items"]]


async def test_task_outlinks_as_the_plugin_documents(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        found = await described(vg, "filter by function task.outlinks.length > 0")
        assert sorted(found) == [
            "call [[Ann]] about [budget](Finance/Budget%202026.md#Q1)",
            "fix [[Missing note]]",
            "read [[#Work]] then [[Ref#Part A#Sub]]",
        ]
        broken = "filter by function task.outlinks.some(link => link.destinationPath === null)"
        assert await described(vg, broken) == ["fix [[Missing note]]"]
        query = (
            "filter by function task.outlinks.length > 0\n"
            "group by function task.outlinks.map(link => link.markdown).sort().join(' · ')"
        )
        assert await grouped(vg, query) == [
            (["[[Ann]] · [budget](Finance/Budget%202026.md#Q1)"], 1),
            (["[[Missing note]]"], 1),
            (["[[Projects/Plan.md#Work|Work]] · [[Ref#Part A#Sub]]"], 1),
        ]
        query = (
            "filter by function task.outlinks.length > 0\n"
            "group by function task.outlinks.map(link => link.destinationPath).sort().join(' · ')"
        )
        assert await grouped(vg, query) == [
            (["Finance/Budget 2026.md · People/Ann.md"], 1),
            (["Notes/Ref.md · Projects/Plan.md"], 1),
            (["null"], 1),
        ]
        query = "group by function task.outlinks.map(link => link.destination + ' = ' + link.displayText)"
        names = [n for n, _ in await grouped(vg, query)]
        assert ["#Work = Work"] in names and ["Ref#Part A#Sub = Ref > Part A > Sub"] in names
        assert ["Finance/Budget 2026.md#Q1 = budget"] in names and ["(no group)"] in names
        query = "group by function task.outlinks.map(link => link.originalMarkdown)"
        assert ["[budget](Finance/Budget%202026.md#Q1)"] in [n for n, _ in await grouped(vg, query)]


async def test_links_to_and_file_links(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        for name in ("'Ann'", "'Ann.md'", "'People/Ann'"):
            query = f"filter by function task.outlinks.some(link => link.linksTo({name}))"
            assert await described(vg, query) == (["call [[Ann]] about [budget](Finance/Budget%202026.md#Q1)"]
                                                  if name != "'People/Ann'" else [])  # fmt: skip
        own = "filter by function task.outlinks.some(link => link.linksTo(task.file))"
        assert await described(vg, own) == ["read [[#Work]] then [[Ref#Part A#Sub]]"]
        in_file = "filter by function task.file.outlinks.length > 0"
        assert len(await described(vg, in_file)) == 4  # Plan.md's four tasks; Loose.md has no link
        query = "filter by function task.file.path === 'Projects/Plan.md'\nlimit 1\n" + (
            "group by function task.file.outlinksInProperties.map(l => l.originalMarkdown + '>' + l.destinationPath)"
        )
        assert await grouped(vg, query) == [(["[[Hub]]>Hub.md"], 1)]
        query = "limit 1\nfilter by function task.file.path === 'Projects/Plan.md'\n" + (
            "group by function task.file.outlinksInBody.map(l => l.displayText).join(',')"
        )
        shown = "the ref,Ann,budget,Work,Ref > Part A > Sub,Missing note"  # the embed ![[Pic.png]] is none
        assert await grouped(vg, query) == [([shown], 1)]
        query = "limit 1\nfilter by function task.file.path === 'Projects/Plan.md'\n" + (
            "group by function task.file.outlinks.map(l => l.displayText).join(',')"
        )
        assert await grouped(vg, query) == [(["Hub," + shown], 1)]


async def test_bad_link_expressions_are_refused(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        query = "filter by function task.outlinks.some(l => l.linksTo(3))"
        assert "linksTo() takes" in (await vg.err("tasks_filter", "query_syntax_error", query=query))["message"]
        query = "filter by function task.file.outlinkz.length > 0"
        assert "outlinksInBody" in (await vg.err("tasks_filter", "query_syntax_error", query=query))["message"]


async def test_a_link_to_a_note_the_caller_may_not_read_is_unresolved(make_vault: Callable[..., Path]) -> None:
    """As every graph tool shows it: `destinationPath` null, `linksTo(task.file)` false; the link's
    text as written is the caller's (their own note's)."""
    files = {"Open.md": "- [ ] ask [[Secret]] and [[Open]]\n", "Private/Secret.md": "# Secret\n"}
    acl = {"prefix_rules": [{"path": "Private", "read": "deny"}]}
    async with started(make_vault(files), acl=acl) as vg:
        await vg.indexed()
        query = "group by function task.outlinks.map(l => l.destination + ':' + l.destinationPath).join(' ')"
        assert await grouped(vg, query) == [(["Secret:null Open:Open.md"], 1)]
    async with started(make_vault(files)) as vg:  # without the rule: resolved
        await vg.indexed()
        assert await grouped(vg, query) == [(["Secret:Private/Secret.md Open:Open.md"], 1)]


async def test_links_to_the_query_s_note(make_vault: Callable[..., Path]) -> None:
    """The demo vault's 'Tasks lines that link to the file containing the query' (How To/Access
    links.md), both versions: `link.linksTo(query.file)` (was query_syntax_error: 'query' is not a
    name this server knows) and `link.destinationPath === query.file.path`."""
    async with started(make_vault(FILES)) as vg:
        await vg.indexed()
        for test in ("link.linksTo(query.file)", "link.destinationPath === query.file.path"):
            query = f"filter by function task.outlinks.some(link => {test})"
            out = await vg.ok("tasks_filter", query=query, file="People/Ann", today="2026-12-02")
            assert [i["description"] for i in out["items"]] == [
                "call [[Ann]] about [budget](Finance/Budget%202026.md#Q1)"
            ]
            out = await vg.ok("tasks_filter", query=query, file="Hub", today="2026-12-02")
            assert out["items"] == []  # Hub is linked from Plan.md's properties, not from a task's line
        query = "filter by function task.outlinks.some(link => link.linksTo(query.file))"
        err = await vg.err("tasks_filter", "query_syntax_error", query=query)
        assert "give it as `file`" in err["message"]
