"""ChangePreview: what a human approves lists every file in full; an elicitation form's message
shows the first files and the count."""

from __future__ import annotations

from service.policy.confirmations import FORM_FILES, ChangePreview


def test_the_full_text_lists_every_file_once_in_order() -> None:
    files = [f"Notes/n{i:02}.md" for i in range(30)] + ["Notes/n00.md"]
    preview = ChangePreview.of("Move 'A.md' to 'B/A.md'", reversed(files))
    assert preview.files == tuple(sorted(set(files))) and len(preview.files) == 30
    text = preview.text()
    assert text.startswith("Move 'A.md' to 'B/A.md'\nfiles changed (30):\n")
    assert all(f"\n- {f}" in text for f in files) and "more" not in text


def test_the_form_message_names_the_first_files_and_the_count() -> None:
    preview = ChangePreview.of("summary", [f"f{i:02}.md" for i in range(FORM_FILES + 5)])
    brief = preview.brief()
    assert "files changed (25):" in brief and "- f19.md" in brief and "- f20.md" not in brief
    assert "... and 5 more" in brief


def test_a_preview_without_files_is_its_summary() -> None:
    assert ChangePreview("reindex").text() == ChangePreview("reindex").brief() == "reindex"
