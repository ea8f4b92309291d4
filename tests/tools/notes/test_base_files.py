"""Obsidian Bases `.base` files through the note tools (`service.tools.notes.base_files`).

Before: no tool wrote a base. write_note / create_note with 'Reading list.base' made a Markdown
note 'Reading list.base.md' (`with_md`), which query_base never found (note_not_found) and
Obsidian lists as a note; malformed YAML was written as it came; append_note with
create_if_missing and bulk_create_notes did the same; delete_note refused a base
('an attachment, not a note'). Now create_note and write_note write the `.base` file itself,
after the parser query_base uses (and a key twice, which Obsidian's YAML reader refuses) found
nothing wrong (`bases_syntax_error`, nothing written, no confirmation asked); what is written is
what query_base reads back. Replacing one follows the notes' rules (etag or confirmation), a
plan's undo takes a written base back, delete_note trashes one, and the tools that edit part of a
note or make notes only answer `not_a_note` (kind base) instead of a `.base.md` note.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from tests.conftest import Harness, started
from tests.tools.obsidian.bases_vault import BASES_VAULT

READING = """\
filters:
  and:
    - file.hasTag("book")
    - 'type == "book"'
formulas:
  stars: '"★".repeat(rating)'
properties:
  formula.stars:
    displayName: Stars
views:
  - type: table
    name: Reading list
    order: [file.name, rating, formula.stars]
    sort:
      - property: rating
        direction: DESC
    limit: 3
  - type: cards
    name: Unread
    filters: '!read'
    order: [file.name]
"""


@pytest.fixture
async def lib(make_vault: Callable[..., Path]) -> AsyncIterator[Harness]:
    files = {**BASES_VAULT, "Home.md": "My shelf: ![[Library.base]], old ones ![[Library.base#Old]]\n"}
    async with started(make_vault(files)) as harness:
        await harness.indexed()
        yield harness


def names(out: dict[str, object]) -> list[str]:
    return [row["values"]["file.name"]["value"] for row in out["rows"]]  # type: ignore[attr-defined]


@pytest.mark.covers("write_note", "success")
async def test_write_note_makes_a_base_query_base_reads_back(lib: Harness) -> None:
    out = await lib.ok("write_note", path="Lists/To read.base", content=READING)
    assert out["path"] == "Lists/To read.base" and out["created"] is True
    assert out["title"] == "To read" and out["obsidian_url"].startswith("obsidian://open")
    assert lib.read("Lists/To read.base") == READING
    assert not (lib.root / "Lists" / "To read.base.md").exists()
    table = await lib.ok("query_base", path="To read")  # by its name, as ![[To read.base]] names it
    assert table["views"] == ["Reading list", "Unread"] and table["view_type"] == "table"
    assert names(table) == ["Dune.md", "Foundation.md", "Emma.md"] and table["matched"] == 5
    assert [c["name"] for c in table["columns"]] == ["file.name", "rating", "Stars"]
    assert table["rows"][0]["values"]["formula.stars"]["value"] == "★★★★★"
    cards = await lib.ok("query_base", path="Lists/To read.base", view="Unread")
    assert cards["view_type"] == "cards" and sorted(names(cards)) == ["Draft.md", "Foundation.md", "Secret.md"]


@pytest.mark.covers("create_note", "success")
async def test_create_note_makes_a_base_and_numbers_a_taken_name(lib: Harness) -> None:
    out = await lib.ok("create_note", path="[[Picks.base]]", content=READING)
    assert out["path"] == "Picks.base" and lib.read("Picks.base") == READING
    err = await lib.err("create_note", "already_exists", path="Picks.base", content=READING)
    assert err["details"]["path"] == "Picks.base"
    again = await lib.ok("create_note", path="Picks.base", content=READING, if_exists="unique")
    assert again["path"] == "Picks 1.base" and lib.read("Picks 1.base") == READING
    empty = await lib.ok("create_note", path="Everything.base", content="")  # Obsidian's new base: every file
    assert empty["size"] == 0 and (await lib.ok("query_base", path="Everything.base"))["total"] > 5


@pytest.mark.parametrize(
    ("content", "line", "what"),
    [
        ("filters:\n  and: [x\nviews: []\n", 3, "invalid YAML"),
        ("views:\n  - type: table\n    name: T\n    filters: 'rating >'\n", 4, "unexpected end"),
        ("formulas:\n  a: formula.b\n  b: formula.a\n", 2, "circular"),
        ("views:\n  - name: T\n    summaries: {rating: Averge}\n", 3, "unknown summary"),
        ("views:\n  - name: A\nformulas: {}\nviews:\n  - name: B\n", 4, "appears twice"),
        ("```base\nviews:\n  - name: T\n```\n", 1, "code block"),
        ("- just\n- a list\n", 1, "expected a mapping"),
    ],
)
async def test_a_malformed_base_is_refused_before_anything_is_written(
    lib: Harness, content: str, line: int, what: str
) -> None:
    before = lib.snapshot()
    for tool, args in (
        ("write_note", {"path": "Bad.base", "content": content}),
        ("create_note", {"path": "Bad.base", "content": content}),
        ("write_note", {"path": "Library.base", "content": content, "mode": "overwrite"}),  # no confirmation asked
        ("create_note", {"path": "Library.base", "content": content, "if_exists": "overwrite"}),
    ):
        err = await lib.err(tool, "bases_syntax_error", **args)
        assert what in err["message"] and err["details"]["line"] == line, err
    assert lib.changed_since(before) == set()


async def test_replacing_a_base_needs_its_etag_or_a_confirmation(lib: Harness) -> None:
    err = await lib.err("write_note", "elicit_required", path="Library.base", content=READING, mode="overwrite")
    assert "Library.base" in str(err["details"])
    etag = (await lib.ok("read_attachment", path="Library.base"))["etag"]
    out = await lib.ok("write_note", path="Library.base", content=READING, mode="overwrite", expected_etag=etag)
    assert out["created"] is False and lib.read("Library.base") == READING
    await lib.err(
        "write_note", "conflict", path="Library.base", content="views: []\n", expected_etag=etag, mode="overwrite"
    )
    confirmed = await lib.confirmed("write_note", path="Library.base", content="views: []\n", mode="overwrite")
    assert confirmed["etag"] != out["etag"] and lib.read("Library.base") == "views: []\n"
    err = await lib.err("write_note", "validation_error", path="Library.base", content="limit: 2\n", mode="append")
    assert err["details"]["field"] == "mode"
    err = await lib.err("create_note", "validation_error", path="X.base", content="", frontmatter={"a": 1})
    assert err["details"]["field"] == "frontmatter"


async def test_note_only_tools_answer_not_a_note_for_a_base(lib: Harness) -> None:
    before = lib.snapshot()
    calls: list[tuple[str, dict[str, object]]] = [
        ("append_note", {"path": "Library.base", "content": "x"}),
        ("append_note", {"path": "New.base", "content": "x", "create_if_missing": True}),
        ("prepend_note", {"path": "Library.base", "content": "x"}),
        ("patch_note", {"path": "Library.base", "anchor": "All", "content": "Y", "position": "replace"}),
        ("bulk_create_notes", {"notes": [{"path": "B.base", "content": "views: []\n"}]}),
        ("copy_note", {"path": "Home", "new_path": "Home.base"}),
    ]
    for tool, args in calls:
        err = await lib.err(tool, "not_a_note", **args)
        assert err["details"]["kind"] == "base" and "write_note" in err["hint"], (tool, err)
        assert "read_note" in err["hint"], (tool, err)  # where its text and etag come from
    assert lib.changed_since(before) == set()


async def test_read_note_reads_a_base_back_with_the_etag_write_note_takes(lib: Harness) -> None:
    """read_note of a base answered not_a_note while write_note / create_note write one: the YAML
    a user wrote could not be read back with the note tools (read_attachment gave it). Now read_note
    and read_notes read it: its text and the etag a later write_note expected_etag takes."""
    made = await lib.ok("write_note", path="Lists/To read.base", content=READING)
    out = await lib.ok("read_note", path="To read.base")  # by its name, as query_base finds it
    assert (out["path"], out["title"], out["content"], out["etag"]) == (
        "Lists/To read.base",
        "To read",
        READING,
        made["etag"],
    )
    assert (out["properties"], out["tags"], out["links"], out["frontmatter_error"]) == ({}, [], [], None)
    assert (out["start_line"], out["end_line"], out["total_lines"]) == (1, 21, 21)
    part = await lib.ok("read_note", path="[[Lists/To read.base]]", start_line=2, end_line=3)
    assert part["content"] == '  and:\n    - file.hasTag("book")\n' and part["etag"] == made["etag"]
    assert (await lib.ok("read_note", path="To read.base", part="body"))["content"] == READING
    both = await lib.ok("read_notes", paths=["Library.base", "To read.base", "Library.base#Old"])
    assert [i["path"] for i in both["items"]] == ["Library.base", "Lists/To read.base", "Library.base#Old"]
    assert both["items"][0]["content"] == lib.read("Library.base") and both["items"][1]["etag"] == made["etag"]
    assert both["items"][2]["error"]["code"] == "validation_error"
    written = await lib.ok(
        "write_note", path="To read.base", content="views: []\n", mode="overwrite", expected_etag=out["etag"]
    )
    assert written["created"] is False and lib.read("Lists/To read.base") == "views: []\n"
    before = lib.snapshot()
    for args, field in (
        ({"path": "![[Library.base#Old]]"}, "path"),  # a view: query_base reads it
        ({"path": "Library.base", "heading": ["All"]}, "heading"),  # a YAML comment is no heading
        ({"path": "Library.base", "part": "frontmatter"}, "part"),
    ):
        err = await lib.err("read_note", "validation_error", **args)
        assert err["details"]["field"] == field, err
    await lib.err("read_note", "note_not_found", path="Nope.base")
    for tool in ("note_info", "get_outline"):  # facts of a note's kind: not a base's
        err = await lib.err(tool, "not_a_note", path="Library.base")
        assert err["details"]["kind"] == "base" and "read_note" in err["hint"], (tool, err)
    assert lib.changed_since(before) == set()


@pytest.mark.covers("delete_note", "success")
async def test_delete_note_trashes_a_base_and_asks_before_deleting_one_for_good(lib: Harness) -> None:
    await lib.ok("write_note", path="Gone.base", content=READING)
    out = await lib.ok("delete_note", path="Gone.base")
    assert out["path"] == "Gone.base" and out["trash_path"] and not (lib.root / "Gone.base").exists()
    await lib.err("delete_note", "elicit_required", path="Library.base", permanent=True)
    assert (lib.root / "Library.base").exists()
    done = await lib.confirmed("delete_note", path="Library.base", permanent=True)
    assert done["permanent"] is True and not (lib.root / "Library.base").exists()
    await lib.err("delete_note", "note_not_found", path="Library.base")


async def test_moving_a_base_rewrites_its_embeds(lib: Harness) -> None:
    out = await lib.ok("rename_note", path="Library.base", new_path="Shelf.base")
    assert (
        out["path"] == "Shelf.base"
        and lib.read("Home.md") == "My shelf: ![[Shelf.base]], old ones ![[Shelf.base#Old]]\n"
    )
    assert (await lib.ok("query_base", path="Shelf"))["total"] == 5


async def test_undo_last_plan_takes_a_written_base_back(lib: Harness) -> None:
    old = lib.read("Library.base")
    steps = [
        {"id": "new", "tool": "write_note", "args": {"path": "Plan.base", "content": READING}},
        {"id": "old", "tool": "write_note", "args": {"path": "Library.base", "content": READING, "mode": "overwrite"}},
    ]
    token = await lib.token_for("execute_plan", plan={"goal": "bases", "steps": steps})
    run = await lib.ok("execute_plan", plan={"goal": "bases", "steps": steps}, elicit_token=token)
    assert run["status"] == "done", run
    assert lib.read("Plan.base") == READING == lib.read("Library.base")
    undone = await lib.confirmed("undo_last_plan")
    assert sorted(undone["restored"]) == ["Library.base", "Plan.base"], undone
    assert lib.read("Library.base") == old and not (lib.root / "Plan.base").exists()


async def test_moving_a_note_a_base_names_leaves_the_base_as_written(lib: Harness) -> None:
    """As Obsidian: a filter's text is no link, and a move rewrites links only (a rewrite of the
    quoted strings of every base would change texts that only look like paths)."""
    base = 'filters: file.inFolder("Books")\nviews:\n  - {type: table, name: T, filters: file.hasLink("Dune")}\n'
    await lib.ok("write_note", path="Links.base", content=base)
    before = sorted(names(await lib.ok("query_base", path="Links.base")))
    assert before == ["Emma.md", "Foundation.md"]
    await lib.confirmed("move_note", path="Books/Dune.md", new_path="Archive/Dune.md")
    assert lib.read("Links.base") == base
    assert sorted(names(await lib.ok("query_base", path="Links.base"))) == before  # [[Dune]] still finds it


async def test_query_base_takes_an_embed_of_a_view(lib: Harness) -> None:
    """`![[Library.base#Old]]` shows the view Old (Obsidian's embed syntax); query_base took the
    '#Old' for a section of a note and answered validation_error (section_not_supported)."""
    for path in ("Library.base#Old", "![[Library.base#Old]]", "[[Library.base#Old|old books]]", "Library.base#Old "):
        out = await lib.ok("query_base", path=path)
        assert out["view"] == "Old" and names(out) == ["Emma.md"], path
    assert (await lib.ok("query_base", path="[[Library.base|shelf]]"))["view"] == "All"
    assert (await lib.ok("query_base", path="Library.base#Old", view="By genre"))["view"] == "By genre"


async def test_a_base_moves_by_its_name_alone(make_vault: Callable[..., Path]) -> None:
    """rename_note 'Shelf.base' finds Views/Shelf.base as `![[Shelf.base]]` does (it answered
    not_a_note: only a path found a base to move)."""
    files = {"Views/Shelf.base": "views:\n  - {type: table, name: A}\n", "Home.md": "![[Shelf.base#A]]\n"}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        out = await vg.ok("rename_note", path="Shelf.base", new_path="Books.base")
        assert out["path"] == "Views/Books.base" and vg.read("Home.md") == "![[Books.base#A]]\n"
        moved = await vg.confirmed("move_note", path="[[Books.base]]", new_path="Archive/")
        assert moved["path"] == "Archive/Books.base" and vg.read("Home.md") == "![[Books.base#A]]\n"


async def test_a_plan_previews_the_base_the_call_writes(lib: Harness) -> None:
    """validate_plan named 'Library.base 1.md' for create_note if_exists='unique' of a taken base
    (the tool makes 'Library 1.base'), and a base named alone by the path as written, not the file."""
    await lib.ok("write_note", path="Views/Shelf.base", content="views: []\n")
    steps = [
        {"id": "a", "tool": "create_note", "args": {"path": "Library.base", "content": "", "if_exists": "unique"}},
        {"id": "b", "tool": "write_note", "args": {"path": "Shelf.base", "content": "", "mode": "overwrite"}},
    ]
    checked = await lib.ok("validate_plan", plan={"goal": "bases", "steps": steps})
    assert checked["effects"]["files_created"] == ["Library 1.base"], checked
    assert checked["effects"]["files_modified"] == ["Views/Shelf.base"], checked
    run = await lib.confirmed("execute_plan", plan={"goal": "bases", "steps": steps})
    assert run["status"] == "done" and (lib.root / "Library 1.base").exists()
    assert lib.read("Views/Shelf.base") == ""


async def test_a_base_in_a_folder_the_caller_may_not_write_or_read(make_vault: Callable[..., Path]) -> None:
    """The path rules of every note write: a base in a folder the ACL keeps from writing is
    acl_denied with nothing written; one the caller may not read is not found by its name."""
    rules = {"prefix_rules": [{"path": "Locked", "write": "deny"}, {"path": "Private", "read": "deny"}]}
    files = {"Locked/Old.base": "views: []\n", "Private/Hidden.base": "views: []\n"}
    async with started(make_vault(files), acl=rules) as vg:
        await vg.indexed()
        before = vg.snapshot()
        await vg.err("write_note", "acl_denied", path="Locked/New.base", content=READING)
        await vg.err("write_note", "acl_denied", path="Old.base", content=READING, mode="overwrite")
        await vg.err("delete_note", "acl_denied", path="Locked/Old.base")
        err = await vg.err("delete_note", "note_not_found", path="Hidden.base")
        assert "Private" not in str(err)
        assert vg.changed_since(before) == set()


async def test_a_base_past_the_size_query_base_takes_inline_is_refused(lib: Harness) -> None:
    big = "formulas:\n" + "".join(f"  f{i}: price * {i}\n" for i in range(12_000))
    before = lib.snapshot()
    err = await lib.err("write_note", "validation_error", path="Big.base", content=big)
    assert err["details"]["max_chars"] == 200_000 and err["details"]["chars"] == len(big)
    assert lib.changed_since(before) == set()


async def test_validate_plan_foresees_a_malformed_base(lib: Harness) -> None:
    """A plan writing a malformed base was valid and its run failed at that step (the check ran in
    the handler only); the base's check is the tools' static check now."""
    bad = {"id": "bad", "tool": "write_note", "args": {"path": "Bad.base", "content": "views:\n  - name: [x\n"}}
    made = {"id": "made", "tool": "create_note", "args": {"path": "Ok.base", "content": "views: []\n"}}
    checked = await lib.ok("validate_plan", plan={"goal": "bases", "steps": [made, bad]})
    assert checked["valid"] is False, checked
    assert [(p["code"], p["step"]) for p in checked["problems"]] == [("bases_syntax_error", "bad")], checked


async def test_a_long_base_is_checked_off_the_event_loop(lib: Harness, monkeypatch: pytest.MonkeyPatch) -> None:
    from service.tools.notes import base_files

    threads: list[str] = []
    check = base_files.check_base_write

    def recording(*args: object, **kwargs: object) -> None:
        threads.append(threading.current_thread().name)
        check(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(base_files, "check_base_write", recording)
    long = "formulas:\n" + "".join(f"  f{i}: price * {i}\n" for i in range(5_000))  # ~100,000 characters
    await lib.ok("write_note", path="Long.base", content=long)
    await lib.ok("write_note", path="Short.base", content=READING)
    assert threads[0] != threading.main_thread().name and threads[1] == threading.main_thread().name, threads


async def test_a_dry_run_vault_previews_the_base_the_call_writes(make_vault: Callable[..., Path]) -> None:
    """A dry-run vault's preview of write_note 'Shelf.base' named 'Shelf.base' (find_note found
    no note, the path as written) while the call writes Views/Shelf.base, as query_base finds it;
    a malformed base is refused as the call refuses it."""
    root = make_vault({"Views/Shelf.base": "views: []\n"})
    async with started(root, vaults=[{"id": "main", "path": root, "write_mode": "dry-run"}]) as vg:
        await vg.indexed()
        before = vg.snapshot()
        out = await vg.ok("write_note", path="Shelf.base", content=READING, mode="overwrite", expected_etag="x")
        assert out["dry_run"] is True and out["effects"]["files_modified"] == ["Views/Shelf.base"], out
        await vg.err("write_note", "bases_syntax_error", path="New.base", content="views: [\n")
        assert vg.changed_since(before) == set()


@pytest.mark.covers("copy_note", "success")
async def test_copy_note_copies_a_base(lib: Harness) -> None:
    """copy_note answered not_a_note ('an attachment') for a base: the way to start a new base
    from one that works was to read it and write it again."""
    old = lib.read("Library.base")
    step = {"id": "cp", "tool": "copy_note", "args": {"path": "Library.base", "new_path": "Films"}}
    checked = await lib.ok("validate_plan", plan={"goal": "copy", "steps": [step]})
    assert checked["effects"]["files_created"] == ["Films.base"], checked
    out = await lib.ok("copy_note", path="Library.base", new_path="Films")  # the name alone: a base
    assert out["path"] == "Films.base" and lib.read("Films.base") == old
    assert (await lib.ok("query_base", path="Films"))["views"][0] == "All"
    into = await lib.ok("copy_note", path="[[Library.base]]", new_path="Copies/")
    assert into["path"] == "Copies/Library.base" and lib.read("Copies/Library.base") == old
    before = lib.snapshot()
    err = await lib.err("copy_note", "validation_error", path="Library.base", new_path="Films.md")
    assert err["details"]["field"] == "new_path"
    await lib.err("copy_note", "already_exists", path="Library.base", new_path="Films.base")
    await lib.err("copy_note", "elicit_required", path="Library.base", new_path="Films.base", overwrite=True)
    assert lib.changed_since(before) == set()
