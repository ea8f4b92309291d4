"""query_base finds a `.base` file by its bare name, as Obsidian's `![[Books.base]]` does (issue 41
item 6): the same rule as every other name — a path as written, else the one readable file whose
name (or path tail) fits, in any letter case; several → ambiguous_note, none → note_not_found."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import started
from tests.tools.obsidian.bases_vault import BASES_VAULT, LIBRARY_BASE


async def test_a_base_file_is_found_by_its_bare_name(make_vault: Callable[..., Path]) -> None:
    files = {k: v for k, v in BASES_VAULT.items() if k != "Library.base"}
    files["Bases/Shelf.base"] = LIBRARY_BASE
    files["Other/Twice.base"] = LIBRARY_BASE
    files["More/Twice.base"] = LIBRARY_BASE
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        full = await vg.ok("query_base", path="Bases/Shelf.base")
        for name in ("Shelf.base", "shelf.BASE", "[[Shelf.base]]", "![[Shelf.base]]", "Bases/Shelf.base"):
            out = await vg.ok("query_base", path=name)
            assert out["rows"] == full["rows"], name
        error = await vg.err("query_base", "ambiguous_note", path="Twice.base")
        assert sorted(error["details"]["candidates"]) == ["More/Twice.base", "Other/Twice.base"]
        assert (await vg.ok("query_base", path="Other/Twice.base"))["rows"] == full["rows"]
        await vg.err("query_base", "note_not_found", path="Nowhere.base")
        for name in ("Shelf", "shelf", "Bases/Shelf", "[[Shelf]]"):  # no note of that name: the .base file
            assert (await vg.ok("query_base", path=name))["rows"] == full["rows"], name
        missing = await vg.err("query_base", "note_not_found", path="Nowhere")
        assert "Nowhere.base" not in missing["message"]  # the note's answer, not the retry's
        await vg.err("query_base", "ambiguous_note", path="Twice")
        await vg.err("query_base", "note_not_found", path="Nowhere|x")  # the note's answer, not the retry's


async def test_a_base_file_the_caller_may_not_read_is_not_found_by_name(make_vault: Callable[..., Path]) -> None:
    files = {k: v for k, v in BASES_VAULT.items() if k != "Library.base"}
    files["Private/Shelf.base"] = LIBRARY_BASE
    acl = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}
    async with started(make_vault(files), acl=acl) as vg:
        await vg.indexed()
        await vg.err("query_base", "note_not_found", path="Shelf.base")
        await vg.err("query_base", "note_not_found", path="Shelf")  # by bare name: nothing told either


async def test_a_folder_named_like_a_base_file_does_not_hide_it(make_vault: Callable[..., Path]) -> None:
    files = {k: v for k, v in BASES_VAULT.items() if k != "Library.base"}
    files["Bases/Shelf.base"] = LIBRARY_BASE
    files["Shelf/Some book.md"] = "# Some book\n"  # a folder 'Shelf' beside Bases/Shelf.base
    files["Empty/x.md"] = "x\n"
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        full = await vg.ok("query_base", path="Bases/Shelf.base")
        for name in ("Shelf", "[[Shelf]]", "shelf"):
            assert (await vg.ok("query_base", path=name))["rows"] == full["rows"], name
        folder = await vg.err("query_base", "not_a_note", path="Empty")  # no .base of that name: the folder's answer
        assert folder["details"]["kind"] == "folder"


async def test_a_note_without_a_base_block_names_the_bases_meant(make_vault: Callable[..., Path]) -> None:
    """`books` names the category note Categories/Books.md (a note wins over Books.base), which only
    embeds ![[Books.base]]: the refusal ('has 0 ```base block(s)') named no base to query, with the
    generic 'check the arguments against the input schema' hint."""
    files = {k: v for k, v in BASES_VAULT.items() if k != "Library.base"}
    files["Bases/Books.base"] = LIBRARY_BASE
    files["Bases/Shelf.base"] = LIBRARY_BASE
    files["Private/Hidden.base"] = LIBRARY_BASE
    files["Categories/Books.md"] = "---\ntags: [categories]\n---\n\n![[Shelf.base|the shelf]]\n![[Hidden.base]]\n"
    files["Categories/Plain.md"] = "No base here.\n"
    acl = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}
    async with started(make_vault(files), acl=acl) as vg:
        await vg.indexed()
        error = await vg.err("query_base", "validation_error", path="books")
        assert error["details"]["bases"] == ["Bases/Shelf.base", "Bases/Books.base"]  # embedded first
        assert "details.bases" in error["hint"]
        full = await vg.ok("query_base", path="Bases/Shelf.base")
        assert (await vg.ok("query_base", path=error["details"]["bases"][0]))["rows"] == full["rows"]
        plain = await vg.err("query_base", "validation_error", path="plain")
        assert plain["details"]["bases"] == [] and "details.bases" not in (plain["hint"] or "")


async def test_a_note_embedding_thousands_of_missing_bases_looks_up_a_bounded_few(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The refusal looked up every `![[x.base]]` the note embeds until five were found: 3,000
    embeds of missing bases were 3,001 lookups for one error answer."""
    from service.tools.context import ToolContext

    files = {k: v for k, v in BASES_VAULT.items() if k != "Library.base"}
    files["Bases/Books.base"] = LIBRARY_BASE
    files["Many.md"] = "".join(f"![[gone{n}.base]]\n" for n in range(3000)) + "![[gone0.base]]\n"
    looked: list[str] = []
    find_file = ToolContext.find_file

    async def counted(self: ToolContext, name: str, *args: Any, **kwargs: Any) -> Any:
        looked.append(name)
        return await find_file(self, name, *args, **kwargs)

    monkeypatch.setattr(ToolContext, "find_file", counted)
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        looked.clear()
        error = await vg.err("query_base", "validation_error", path="many")
        assert error["details"]["bases"] == []
        tried = [n for n in looked if n.endswith(".base")]
        assert len(tried) <= 21 and tried[-1] == "many.base" and len(set(tried)) == len(tried), tried
