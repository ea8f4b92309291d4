"""An edit of a note stored as cp1252 or UTF-16 (with its byte-order mark) keeps that encoding:
append_note, prepend_note, patch_note, write_note's append mode, append_to_periodic_note,
set_properties, replace_text and a move's link rewrite each wrote the decoded text back as UTF-8
(`Café` in cp1252, `Caf\\xe9`, became `Caf\\xc3\\xa9`; a UTF-16 note lost its encoding and mark).
They now share the write path's `decoding.encode_edit`. A text the note's encoding cannot hold (an
emoji into a cp1252 note) is refused with `validation_error` (reason `unrepresentable`, naming the
encoding and the character) and the note keeps its bytes; write_note's overwrite, which replaces
the whole note, saves UTF-8. A plan's undo puts the note's own bytes back."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

LATIN = "Café\r\n\r\n## Plan\r\nsee [[Old]]\r\n"
WIDE = b"\xff\xfe" + "Été\n\n## Plan\nsee [[Old]]\n".encode("utf-16-le")


def cp1252(text: str) -> bytes:
    return text.encode("cp1252")


def utf16(text: str) -> bytes:
    return b"\xff\xfe" + text.encode("utf-16-le")


async def test_edits_keep_a_cp1252_or_utf16_notes_encoding(make_vault: Callable[..., Path]) -> None:
    vault = {"L.md": cp1252(LATIN), "W.md": WIDE, "Old.md": "old\n", "2026-03-01.md": cp1252("Lundi é\n")}
    async with started(make_vault(vault)) as vg:
        await vg.indexed()
        latin, wide = vg.root / "L.md", vg.root / "W.md"
        await vg.ok("append_note", path="L.md", content="- naïve")
        want = LATIN + "- naïve"
        assert latin.read_bytes() == cp1252(want)
        await vg.ok("prepend_note", path="L.md", content="Déjà")
        want = "Déjà\r\n" + want
        assert latin.read_bytes() == cp1252(want)
        await vg.ok("patch_note", path="W.md", heading=["Plan"], content="- über", position="append")
        assert wide.read_bytes() == utf16("Été\n\n## Plan\nsee [[Old]]\n\n- über\n")
        await vg.ok("write_note", path="W.md", content="fin ß\n", mode="append")
        assert wide.read_bytes() == utf16("Été\n\n## Plan\nsee [[Old]]\n\n- über\nfin ß\n")
        read = await vg.ok("read_note", path="W.md")
        assert read["encoding"] == "utf-16-le" and read["content"].endswith("fin ß\n"), read
        await vg.ok("append_to_periodic_note", period="daily", date="2026-03-01", content="- thé")
        assert (vg.root / "2026-03-01.md").read_bytes() == cp1252("Lundi é\n- thé\n")
        await vg.ok("set_properties", path="L.md", properties={"lieu": "Besançon"})
        assert latin.read_bytes() == cp1252("---\r\nlieu: Besançon\r\n---\r\n" + want)
        want = "---\r\nlieu: Besançon\r\n---\r\n" + want
        await vg.confirmed("replace_text", path="L.md", find="Café", replace="Crème", dry_run=False)
        want = want.replace("Café", "Crème")
        assert latin.read_bytes() == cp1252(want)
        # a move's link rewrite in a cp1252 and a UTF-16 note that link to the moved one
        await vg.ok("move_note", path="Old.md", new_path="Nouveau à.md")
        want = want.replace("[[Old]]", "[[Nouveau à]]")
        assert latin.read_bytes() == cp1252(want)
        assert wide.read_bytes() == utf16("Été\n\n## Plan\nsee [[Nouveau à]]\n\n- über\nfin ß\n")


async def test_a_character_the_encoding_lacks_is_refused_and_nothing_changes(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"L.md": cp1252(LATIN), "Old.md": "old\n"})) as vg:
        await vg.indexed()
        latin = vg.root / "L.md"
        error = await vg.err("append_note", "validation_error", path="L.md", content="- fête 🎉 and ☃")
        details = error["details"]
        assert (details["reason"], details["encoding"], details["path"]) == ("unrepresentable", "cp1252", "L.md")
        assert (details["character"], details["codepoint"]) == ("🎉", "U+1F389"), details
        assert "cp1252" in error["message"] and "write_note" in error["hint"]
        await vg.err("patch_note", "validation_error", path="L.md", heading=["Plan"], content="東")
        await vg.err("set_properties", "validation_error", path="L.md", properties={"city": "東京"})
        # a rewrite's dry run refuses as its run would, before anything is written
        dry = await vg.err("replace_text", "validation_error", path="L.md", find="Café", replace="Café ☕")
        assert dry["details"]["codepoint"] == "U+2615", dry
        await vg.err("move_note", "validation_error", path="Old.md", new_path="東.md")
        assert (vg.root / "Old.md").exists() and not (vg.root / "東.md").exists()
        assert latin.read_bytes() == cp1252(LATIN)
        # write_note overwrite replaces the whole note: UTF-8, the way to change its encoding
        await vg.confirmed("write_note", path="L.md", content="fête 🎉\n", mode="overwrite")
        assert latin.read_bytes() == "fête 🎉\n".encode()


PLAN = {
    "goal": "add a line to a cp1252 note",
    "steps": [{"id": "add", "tool": "append_note", "args": {"path": "L.md", "content": "- crêpe\n"}}],
}


async def test_a_plans_edit_keeps_the_encoding_and_its_undo_the_bytes(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"L.md": cp1252(LATIN)})) as vg:
        await vg.indexed()
        run = await vg.ok("execute_plan", plan=PLAN)
        assert run["status"] == "done", [s["errors"] for s in run["steps"]]
        assert (vg.root / "L.md").read_bytes() == cp1252(LATIN + "- crêpe\r\n")
        await vg.confirmed("undo_last_plan")
        assert (vg.root / "L.md").read_bytes() == cp1252(LATIN)
