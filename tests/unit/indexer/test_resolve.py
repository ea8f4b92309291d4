"""Link resolution as the index records it (links.target_path), Obsidian's rules end to end:
exact vault path, `.md` optional, case-insensitive, shortest unique name, relative Markdown links,
non-Markdown targets, and unresolved links that resolve when their target appears."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Harness, started

SOURCE = "Projects/Alpha.md"
VAULT: dict[str, str | bytes] = {
    SOURCE: (
        "[[Projects/Sub/Idea]] [[Projects/Sub/Idea.md]] [[projects/sub/IDEA]]\n"
        "[[Unique Name]] [[unique name]] [[Idea]] [[Beta]]\n"
        "[rel](Sub/Idea.md) [up](../Top.md) [dot](./Beta.md) [enc](../Deep/Folder/Unique%20Name.md)\n"
        "[[diagram.pdf]] ![[image.png]] ![[image]] [[Missing]] [gone](Nowhere.md)\n"
        "[web](https://example.com/Top.md)\n"
    ),
    "Projects/Beta.md": "# Beta\n",
    "Projects/Sub/Idea.md": "# Idea (deep)\n",
    "Archive/Idea.md": "# Idea (archive)\n",
    "Deep/Folder/Unique Name.md": "# Unique\n",
    "Top.md": "# Top\n",
    "assets/diagram.pdf": b"%PDF-1.4\n",
    "assets/image.png": b"\x89PNG\r\n",
}


async def _targets(vg: Harness, source: str = SOURCE) -> list[tuple[str, str | None]]:
    rows = await vg.app.services.db.fetchall(
        "SELECT l.target_raw, l.target_path FROM links l JOIN notes n ON n.id = l.src_id"
        " WHERE n.path = ? ORDER BY l.line, l.id",
        (source,),
    )
    return [(str(r[0]), None if r[1] is None else str(r[1])) for r in rows]


@pytest.fixture
async def vg(make_vault: Callable[..., Path]):  # type: ignore[no-untyped-def]
    async with started(make_vault(VAULT), index={"watch": False}) as harness:
        await harness.indexed()
        yield harness


async def test_wikilinks_resolve_by_path_case_insensitively_with_or_without_md(vg: Harness) -> None:
    targets = dict(await _targets(vg))
    for raw in ("Projects/Sub/Idea", "Projects/Sub/Idea.md", "projects/sub/IDEA"):
        assert targets[raw] == "Projects/Sub/Idea.md"


async def test_bare_names_resolve_to_the_unique_or_closest_file(vg: Harness) -> None:
    targets = dict(await _targets(vg))
    assert targets["Unique Name"] == targets["unique name"] == "Deep/Folder/Unique Name.md"
    # Two files named Idea, neither beside the source: the shortest path wins.
    assert targets["Idea"] == "Archive/Idea.md"
    # Same folder as the source.
    assert targets["Beta"] == "Projects/Beta.md"


async def test_markdown_links_are_relative_to_the_linking_note_and_url_decoded(vg: Harness) -> None:
    targets = dict(await _targets(vg))
    assert targets["Sub/Idea.md"] == "Projects/Sub/Idea.md"
    assert targets["../Top.md"] == "Top.md"
    assert targets["./Beta.md"] == "Projects/Beta.md"
    assert targets["../Deep/Folder/Unique Name.md"] == "Deep/Folder/Unique Name.md"
    assert all("example.com" not in raw for raw, _ in await _targets(vg))  # URLs are not vault links


async def test_non_markdown_targets_resolve_to_attachments(vg: Harness) -> None:
    targets = dict(await _targets(vg))
    assert targets["diagram.pdf"] == "assets/diagram.pdf"
    assert targets["image.png"] == "assets/image.png"
    assert targets["image"] is None  # only notes may drop their extension


async def test_missing_targets_stay_unresolved_until_created_then_break_again(vg: Harness) -> None:
    assert dict(await _targets(vg))["Missing"] is None
    assert dict(await _targets(vg))["Nowhere.md"] is None
    status = await vg.ok("index_status")
    assert status["links"]["unresolved"] == 3  # Missing, Nowhere.md, image
    await vg.ok("create_note", path="Elsewhere/Missing", content="# now here\n")
    await vg.ok("create_note", path="Projects/Nowhere", content="# relative target\n")
    targets = dict(await _targets(vg))
    assert targets["Missing"] == "Elsewhere/Missing.md"
    assert targets["Nowhere.md"] == "Projects/Nowhere.md"
    assert (await vg.ok("index_status"))["links"]["unresolved"] == 1
    await vg.ok("delete_note", path="Elsewhere/Missing")
    assert dict(await _targets(vg))["Missing"] is None
    assert (await vg.ok("index_status"))["links"]["unresolved"] == 2


async def test_a_closer_file_takes_over_a_name_when_it_appears(vg: Harness) -> None:
    assert dict(await _targets(vg))["Idea"] == "Archive/Idea.md"
    await vg.ok("create_note", path="Projects/Idea", content="# Idea beside Alpha\n")
    assert dict(await _targets(vg))["Idea"] == "Projects/Idea.md"


async def test_a_closer_file_added_while_stopped_takes_over_on_restart(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        assert dict(await _targets(vg))["Idea"] == "Archive/Idea.md"
    (root / "Projects" / "Idea.md").write_text("# Idea beside Alpha\n", encoding="utf-8")
    async with started(root, index={"watch": False}) as vg:
        await vg.indexed()
        assert dict(await _targets(vg))["Idea"] == "Projects/Idea.md"


async def test_unresolved_links_of_any_case_and_script_resolve_when_their_file_appears(
    make_vault: Callable[..., Path],
) -> None:
    # The SQL pre-filter folds ASCII case only: links with other characters must still come through.
    links = "[[MIXED Case]] [[Über Ärger]] [[Dir/Deep Name]] [[Other]]\n"
    async with started(make_vault({"Src.md": links}), index={"watch": False}) as vg:
        await vg.indexed()
        assert all(target is None for _, target in await _targets(vg, "Src.md"))
        await vg.ok("create_note", path="a/mixed case", content="x\n")
        await vg.ok("create_note", path="b/über ärger", content="x\n")
        await vg.ok("create_note", path="Dir/deep name", content="x\n")
        targets = dict(await _targets(vg, "Src.md"))
    assert targets["MIXED Case"] == "a/mixed case.md"
    assert targets["Über Ärger"] == "b/über ärger.md"
    assert targets["Dir/Deep Name"] == "Dir/deep name.md"
    assert targets["Other"] is None
