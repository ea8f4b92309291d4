"""One spelling of a link to a heading, Obsidian's: what it writes when it completes a link to a
heading (its API's `stripHeadingForLink`) has `: # | ^ \\`, `%%`, `[[`, `]]` as spaces and keeps
the rest (`## What's new?` is `[[Guide#What's new?]]`, `## Use `x` here` keeps its code). get_outline's
`link` wrote every punctuation mark as a space ('What s new') and find_broken_links' suggestions a
lone '%' too ('50 done'): both now give `sections.link_text`, and every link either gives back,
written into a note, is found by find_broken_links, listed by get_backlinks as written and read
by read_note at that heading. A wikilink holding inline code keeps it (Obsidian's help writes
`[[#`move`|move]]`): it was read with its code blanked ('Use     here', a link into no heading;
`[[#`move`|move]]` no heading at all); an index built before reads such notes again (0035)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, indexed_before, started
from tests.real_vaults import VAULTS, needs, writable_copy

# (heading as written, the link Obsidian writes to it)
HEADINGS = [
    ("What's new?", "What's new?"),
    ("Step 1: Setup", "Step 1 Setup"),
    ("C# tips", "C tips"),
    ("50% done", "50% done"),
    ("Cost %%note%% hidden", "Cost note hidden"),  # a comment closed on its line
    ("[draft] notes", "draft notes"),  # a lone bracket would end the wikilink: as a space (the same heading)
    ("Use `x` here", "Use `x` here"),
    ("Q&A (draft)", "Q&A (draft)"),
    ("v1.2, final", "v1.2, final"),
    ("dir\\sub", "dir sub"),
    ("x | y", "x y"),
    ("^caret", "caret"),
    ("[[Tools|Kit]] list", "Tools Kit list"),
    ("`move`", "`move`"),
]
GUIDE = "# Guide\n\n" + "".join(f"## {text}\n\nbody of {i}\n\n" for i, (text, _) in enumerate(HEADINGS))


def _links(note: str, links: list[str], suffix: str = "") -> str:
    return "".join(f"- [[{note}#{link}{suffix}]]\n" for link in links)


async def _all_resolve(vg: Harness, note: str, outline: dict[str, Any], source: str) -> None:
    """Each heading's link read back by read_note is its section; written into `source`, no link of
    it is broken and get_backlinks lists each with its subpath as written."""
    for h in outline["headings"]:
        got = await vg.ok("read_note", path=f"{note}#{h['link']}")
        assert got["start_line"] == h["line"], h
    broken = [i for i in (await vg.ok("find_broken_links", limit=1000))["items"] if i["path"] == source]
    assert broken == []
    back = (await vg.ok("get_backlinks", path=note, limit=1000))["items"]
    written = [i.get("subpath") for i in back if i["path"] == source]
    assert written == [h["link"] for h in outline["headings"]]


async def test_get_outline_and_find_broken_links_spell_a_heading_link_alike(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Guide.md": GUIDE})) as vg:
        outline = await vg.ok("get_outline", path="Guide")
        assert [h["link"] for h in outline["headings"]] == ["Guide", *(link for _, link in HEADINGS)]
        links = [h["link"] for h in outline["headings"]]
        await vg.ok("create_note", path="Links", content=_links("Guide", links))
        await vg.ok("create_note", path="Typos", content=_links("Guide", links[1:], suffix=" zz"))
        await vg.settled()
        await _all_resolve(vg, "Guide", outline, "Links.md")
        typos = [i for i in (await vg.ok("find_broken_links", limit=1000))["items"] if i["path"] == "Typos.md"]
        assert [i["suggestions"][0] for i in typos] == links[1:]  # the heading's own link first, as spelt above
        for i in typos:
            assert set(i["suggestions"]) <= set(links)


async def test_links_holding_inline_code_name_their_heading(make_vault: Callable[..., Path]) -> None:
    note = "# Cli\n\n### `move`\n\nmoves\n\n## Use `x` here\n\nx\n\nUse [[#`move`|move]] or `code [[Nope]]`.\n"
    links = "[[Cli#Use `x` here]] and `c` [[Cli#`move`|m]] `[[Cli#in code]]`\n"
    files = {"Cli.md": note, "Links.md": links}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        await _code_links_read(vg)


async def _code_links_read(vg: Harness) -> None:
    assert (await vg.ok("find_broken_links"))["items"] == []  # `[[Nope]]` and `[[Cli#in code]]` are code
    out = await vg.ok("get_outlinks", path="Links")
    assert [(i["path"], i.get("subpath"), i.get("alias")) for i in out["items"]] == [
        ("Cli.md", "Use `x` here", None),
        ("Cli.md", "`move`", "m"),
    ]
    own = await vg.ok("get_outlinks", path="Cli")
    assert [(i["path"], i.get("subpath")) for i in own["items"]] == [("Cli.md", "`move`")]
    read = await vg.ok("read_note", path="Cli#Use `x` here")
    assert read["content"] == "## Use `x` here\n\nx\n\nUse [[#`move`|move]] or `code [[Nope]]`.\n"
    outline = await vg.ok("get_outline", path="Cli")
    assert [h["link"] for h in outline["headings"]] == ["Cli", "`move`", "Use `x` here"]


async def test_an_index_built_before_reads_links_holding_code_again(make_vault: Callable[..., Path]) -> None:
    note = "# Cli\n\n### `move`\n\nmoves\n\n## Use `x` here\n\nx\n\nUse [[#`move`|move]] or `code [[Nope]]`.\n"
    links = "[[Cli#Use `x` here]] and `c` [[Cli#`move`|m]] `[[Cli#in code]]`\n"
    root = make_vault({"Cli.md": note, "Links.md": links})
    await indexed_before(  # the rows as the reading before 0035 wrote them: the code blanked
        root,
        35,
        "UPDATE links SET subpath = 'Use     here' WHERE subpath = 'Use `x` here'",
        "UPDATE links SET subpath = NULL WHERE subpath = '`move`'",
    )
    async with started(root) as vg:
        await vg.indexed()
        await _code_links_read(vg)


@needs(VAULTS / "obsidian-help-en")
async def test_every_heading_link_of_a_real_vault_resolves(tmp_path: Path) -> None:
    """Obsidian's help: every heading holding a character that is not a letter, digit or space
    (315 of its headings), its get_outline link written into a note, reads back and is not broken;
    its own links holding code are not broken; the suggestions for each such link broken by a typo
    are links that are not broken either."""
    root = writable_copy(VAULTS / "obsidian-help-en", tmp_path / "help")
    async with started(root, index={"watch": False}, throttle={"enabled": False}) as vg:  # ~1,500 reads
        await vg.indexed()
        lines: list[str] = []
        checked = 0
        for path in sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md")):
            outline = await vg.ok("get_outline", path=path, limit=1000)
            for h in outline["headings"]:
                odd = any(not (c.isalnum() or c == " ") for c in h["text"])
                if odd and h["link"] is not None:
                    got = await vg.ok("read_note", path=f"{path}#{h['link']}")
                    assert got["start_line"] == h["line"], (path, h)
                    lines.append(f"- [[{path[:-3]}#{h['link']}]]\n")
                    checked += 1
        assert checked > 200, checked
        await vg.ok("create_note", path="ZZ Links", content="".join(lines))
        await vg.settled()
        broken = (await vg.ok("find_broken_links", limit=1000))["items"]
        assert [i for i in broken if i["path"] == "ZZ Links.md"] == []
        code = [i for i in broken if "`" in (i.get("subpath") or "")]
        assert code == []
        cli = (await vg.ok("get_outlinks", path="Extending Obsidian/Obsidian CLI.md", limit=1000))["items"]
        assert ("Extending Obsidian/Obsidian CLI.md", "`move`") in [(i["path"], i.get("subpath")) for i in cli]
        # Each link broken by a typo: every suggestion, written as a link, is not broken, and read_note
        # reads it (or, for a heading text the note repeats, says which lines hold it).
        typos = "".join(line.replace("]]", " zq]]") for line in lines)
        await vg.ok("create_note", path="ZZ Typos", content=typos)
        await vg.settled()
        broken = (await vg.ok("find_broken_links", limit=1000))["items"]
        fixes = sorted({(i["target_path"], s) for i in broken if i["path"] == "ZZ Typos.md" for s in i["suggestions"]})
        assert len(fixes) > checked
        await vg.ok("create_note", path="ZZ Fixed", content="".join(f"- [[{t[:-3]}#{s}]]\n" for t, s in fixes))
        await vg.settled()
        assert [i for i in (await vg.ok("find_broken_links", limit=1000))["items"] if i["path"] == "ZZ Fixed.md"] == []
        for target, suggestion in fixes:
            got = await vg.call("read_note", path=f"{target}#{suggestion}")
            error = got.structured["error"] if got.is_error else {}
            assert not got.is_error or error["details"].get("reason") == "ambiguous", (target, suggestion, error)
