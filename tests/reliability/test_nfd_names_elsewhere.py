"""Names the disk spells in NFD (macOS, iCloud, Syncthing) beyond reading and writing a note
(tests/reliability/test_nfd_names.py): a plan that edited such a note is undone, a context
bundle cites its lines, ocr_bulk reads such an image (and never takes it for gone), the memory
tools' previews name an entity note's NFC path, a bookmark of such a note exists. Each of these
joined the vault root and the NFC path, so the file read as absent (`service.vault.spelling`)."""

from __future__ import annotations

import json
import os
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harness, started

NFC_NOTE = "R\u00e9sum\u00e9.md"
NFD_NOTE = unicodedata.normalize("NFD", NFC_NOTE)
NFC_FOLDER = "Caf\u00e9"
NFD_FOLDER = unicodedata.normalize("NFD", NFC_FOLDER)


def _names(root: Path) -> list[bytes]:
    """Every name under `root` as the disk spells it (bytes), the server's own folder left out."""
    out = []
    for here, dirs, files in os.walk(os.fsencode(root)):
        dirs[:] = [d for d in dirs if d != b".vaultgate"]
        out += [os.path.relpath(os.path.join(here, n), os.fsencode(root)) for n in dirs + files]
    return sorted(out)


def _contents(root: Path) -> dict[bytes, bytes | None]:
    """Every name under `root` as the disk spells it (bytes), with a file's bytes (a folder: None)."""
    out: dict[bytes, bytes | None] = {}
    base = os.fsencode(root)
    for rel in _names(root):
        full = os.path.join(base, rel)
        out[rel] = Path(os.fsdecode(full)).read_bytes() if os.path.isfile(full) else None
    return out


# [ocr] timeout_s (per image, default 60 s) past which a reading is compute_budget_exceeded: one small
# PNG took longer in a full -n 2 run at load 11-19 on 2 cores (both OCR tests here failed so; the
# same two images cost 9.4 s of CPU in onnxruntime). The tests are about names, not speed.
OCR_UNDER_LOAD = {"timeout_s": 600.0}


async def test_a_plan_that_edited_notes_named_in_nfd_is_undone_to_the_same_names_and_bytes(
    make_vault: Callable[..., Path],
) -> None:
    root = make_vault({NFD_NOTE: "# CV\n\nIntro.\n", f"{NFD_FOLDER}/Menu.md": "# Menu\n", "Home.md": "# Home\n"})
    before = _contents(root)
    plan = {
        "goal": "edit the notes",
        "steps": [
            {"id": "cv", "tool": "append_note", "args": {"path": NFC_NOTE, "content": "added to the CV"}},
            {"id": "menu", "tool": "append_note", "args": {"path": f"{NFC_FOLDER}/Menu.md", "content": "dessert"}},
            {"id": "tags", "tool": "add_tags", "args": {"path": NFC_NOTE, "tags": ["job"]}},
            {"id": "home", "tool": "delete_note", "args": {"path": "Home.md"}},
        ],
    }
    async with started(root) as vg:
        await vg.indexed()
        run = await vg.ok("execute_plan", plan=plan)
        assert run["status"] == "done", run
        assert "added to the CV" in (root / NFD_NOTE).read_text(encoding="utf-8")
        undone = await vg.confirmed("undo_last_plan")  # read the NFD note as absent: io_error
        assert undone["conflicts"] == [] and {NFC_NOTE, f"{NFC_FOLDER}/Menu.md", "Home.md"} <= set(undone["restored"])
    assert _contents(root) == before


async def test_a_context_bundle_cites_the_lines_of_a_note_named_in_nfd(make_vault: Callable[..., Path]) -> None:
    from tests.semantic.helpers import semantic

    text = "# CV\n\nIntro.\n\n## Skills\n\nPiloting zeppelins over the northern glaciers.\n"
    async with semantic(make_vault({NFD_NOTE: text, "Home.md": "# Home\n\nNothing here.\n"})) as h:
        out = await h.ok("context_for_query", query="zeppelin glacier piloting", max_tokens=500)
    [passage] = [p for p in out["passages"] if "zeppelins" in p["text"]]
    assert passage["path"] == NFC_NOTE
    assert passage["lines"] is not None, passage  # the file read as absent: no lines
    assert text.splitlines()[passage["lines"]["end"] - 1].startswith("Piloting zeppelins")


@pytest.mark.timeout(600)  # OCR_UNDER_LOAD
async def test_ocr_bulk_reads_an_image_named_in_nfd_and_never_takes_it_for_gone(
    make_vault: Callable[..., Path],
) -> None:
    from tests.tools.obsidian.ocr_images import available, text_png

    if not available():
        pytest.skip("rapidocr-onnxruntime is not installed")
    image = unicodedata.normalize("NFD", "Scans/Re\u00e7u.png")
    files: dict[str, str | bytes] = {
        image: text_png("Quarterly invoice 4711"),
        "Trips.md": "# Trips\n\n![[Re\u00e7u.png]]\n",
    }
    root = make_vault(files)

    async def bulk(vg: Harness) -> dict[str, Any]:
        job: dict[str, Any] = (await vg.ok("ocr_bulk", action="start", wait=True))["job"]
        assert job["status"] == "done", job
        await vg.settled()
        return job

    async with started(root, ocr=OCR_UNDER_LOAD) as vg:
        await vg.indexed()
        job = await bulk(vg)
        assert (job["read"], job["failed"], job["failures"]) == (1, 0, []), job  # was note_not_found
        hits = await vg.ok("search_text", query="quarterly invoice")
        assert [i["path"] for i in hits["items"]] == ["Trips.md"]
    # A caller who may not see Scans/ lists no image there: the image's reading stays, as it
    # does for any file still on disk (it was taken for deleted, and the text left Trips.md).
    denied = {"prefix_rules": [{"path": "Scans", "read": "deny", "write": "deny"}]}
    async with started(root, acl=denied, ocr=OCR_UNDER_LOAD) as vg:
        await vg.indexed()
        assert (await bulk(vg))["total"] == 0
        hits = await vg.ok("search_text", query="quarterly invoice")
        assert [i["path"] for i in hits["items"]] == ["Trips.md"]


@pytest.mark.parametrize("folder", ["Memory", NFC_FOLDER])
async def test_memory_previews_name_the_nfc_path_of_an_entity_note_named_in_nfd(
    make_vault: Callable[..., Path], folder: str
) -> None:
    """An entity note spelled NFD in the memory folder, and (in a memory folder spelled NFD) an
    entity renamed by hand in its frontmatter: the plan's effects name the note the tools change."""
    async with started(make_vault({"Home.md": "# Home\n"}), memory={"folder": folder}) as vg:
        for name in ("Ren\u00e9e", "Zo\u00eb"):
            await vg.ok("create_entities", entities=[{"name": name, "entityType": "person", "observations": ["tea"]}])
        renamed = vg.root / folder / "Zo\u00eb.md"
        renamed.write_text(renamed.read_text(encoding="utf-8").replace("Zo\u00eb", "Zo\u00e9"), encoding="utf-8")
        os.rename(vg.root / folder, vg.root / unicodedata.normalize("NFD", folder))
        spelled = vg.root / unicodedata.normalize("NFD", folder)
        os.rename(spelled / "Ren\u00e9e.md", spelled / unicodedata.normalize("NFD", "Ren\u00e9e.md"))
        paths = {}
        for name in ("Ren\u00e9e", "Zo\u00e9"):
            [entity] = (await vg.ok("open_nodes", names=[name]))["entities"]
            paths[name] = entity["path"]
            step = {"entityName": name, "contents": ["coffee"]}
            plan = {
                "goal": "remember",
                "steps": [{"id": "a", "tool": "add_observations", "args": {"observations": [step]}}],
            }
            dry = await vg.ok("execute_plan", plan=plan, dry_run=True)
            assert dry["effects"]["files_modified"] == [paths[name]], (name, dry["effects"])
        assert paths == {"Ren\u00e9e": f"{folder}/Ren\u00e9e.md", "Zo\u00e9": f"{folder}/Zo\u00eb.md"}


async def test_a_bookmark_or_recent_file_named_in_nfd_exists(make_vault: Callable[..., Path]) -> None:
    bookmarks = json.dumps({"items": [{"type": "file", "path": NFC_NOTE}, {"type": "folder", "path": NFC_FOLDER}]})
    files = {
        NFD_NOTE: "# CV\n",
        f"{NFD_FOLDER}/Menu.md": "# Menu\n",
        ".obsidian/bookmarks.json": bookmarks,
        ".obsidian/workspace.json": json.dumps({"main": {"type": "split"}, "lastOpenFiles": [NFC_NOTE]}),
    }
    async with started(make_vault(files)) as vg:
        items = (await vg.ok("list_bookmarks"))["items"]
        recent = (await vg.ok("list_recent_files"))["items"]
    assert [(i["path"], i["exists"]) for i in items] == [(NFC_NOTE, True), (NFC_FOLDER, True)]
    assert [(i["path"], i["exists"]) for i in recent] == [(NFC_NOTE, True)]


async def test_a_dry_run_preview_knows_a_note_and_a_folder_named_in_nfd(make_vault: Callable[..., Path]) -> None:
    """`write_mode = "dry-run"` answers with the call's effects: overwriting the NFD note modifies
    it, and a note created in the NFD folder makes no new folder (both read as absent before)."""
    root = make_vault({NFD_NOTE: "# CV\n", f"{NFD_FOLDER}/Menu.md": "# Menu\n"})
    async with started(root, vaults=[{"id": "main", "path": root, "write_mode": "dry-run"}]) as vg:
        over = (await vg.ok("write_note", path=NFC_NOTE, content="new", mode="overwrite"))["effects"]
        new = (await vg.ok("create_note", path=f"{NFC_FOLDER}/New.md", content="# New\n"))["effects"]
    assert (over["files_modified"], over["files_created"]) == ([NFC_NOTE], [])
    assert (new["files_created"], new["folders_created"]) == ([f"{NFC_FOLDER}/New.md"], [])


async def test_a_base_lists_an_attachment_named_in_nfd(make_vault: Callable[..., Path]) -> None:
    image = unicodedata.normalize("NFD", "Re\u00e7u.png")
    async with started(make_vault({"Home.md": "# Home\n", image: "not really a png"})) as vg:
        await vg.indexed()
        out = await vg.ok(
            "query_base", yaml='filters: file.ext == "png"\nviews:\n  - type: table\n    order: [file.name]\n'
        )
    assert [row["values"]["file.name"]["value"] for row in out["rows"]] == ["Re\u00e7u.png"]


@pytest.mark.timeout(600)  # OCR_UNDER_LOAD
async def test_ocr_attachment_finds_an_image_by_a_name_spelled_in_nfd(make_vault: Callable[..., Path]) -> None:
    """An embed name a macOS client sends in NFD ('Reçu.png', '![[Reçu.png]]') names the image
    the NFC spelling names (H6 #9: note_not_found; only the full vault path was normalized)."""
    from tests.tools.obsidian.ocr_images import available, text_png

    if not available():
        pytest.skip("rapidocr-onnxruntime is not installed")
    name = "Re\u00e7u.png"
    nfd = unicodedata.normalize("NFD", name)
    root = make_vault({f"Scans/{nfd}": text_png("Quarterly invoice 4711"), "Trips.md": f"# Trips\n\n![[{name}]]\n"})
    async with started(root, ocr=OCR_UNDER_LOAD) as vg:
        await vg.indexed()
        for spelled in (name, nfd, f"![[{nfd}]]", f"[[{nfd}|the receipt]]", f"Scans/{nfd}"):
            out = await vg.ok("ocr_attachment", path=spelled)
            assert out["path"] == f"Scans/{name}", spelled
            assert [i["path"] for i in out["embedded_by"]] == ["Trips.md"]
