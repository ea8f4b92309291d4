"""A move's rewrite of a note resolves each link text it holds once, not once for each link (G1 s86).

A note linking to the moved note 100,000 times (S1 s85 finding 5) took 10.5 s before the move
asked its confirmation: each link was resolved against the vault before and after the move and
its new text written, three to five path resolutions a link, though every one of them is the same text
with the same answer. Now each distinct link text is decided once per note; the rewritten text
is the same (tests/unit/graph/test_rewrite_oracle.py). Counted, not timed: the resolutions made
while the dry run and the confirmation's preview rewrite a note with 400 links to the note that moves."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.graph.linkpath import PathSet
from tests.conftest import started, write_files

LINKS = 200  # lines, each with a wikilink and a Markdown link to Target


def _count_resolves(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]
    resolve = PathSet.resolve

    def counting(self: PathSet, raw: str, source: str) -> str | None:
        calls[0] += 1
        return resolve(self, raw, source)

    monkeypatch.setattr(PathSet, "resolve", counting)
    return calls


async def test_a_move_resolves_a_repeated_link_text_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    body = "".join(f"- [ ] t{i} [[Target]] and [t](Target.md) #tag\n" for i in range(LINKS))
    write_files(root, {"Target.md": "# T\n", "Links.md": f"# Links\n\n{body}"})
    async with started(root) as vg:
        await vg.indexed()
        calls = _count_resolves(monkeypatch)
        page = await vg.ok("move_note", path="Target.md", new_path="Moved/Target2.md", dry_run=True)
        assert (page["notes_rewritten"], page["links_rewritten"]) == (1, LINKS)
        changes = page["items"][0]["changes"]
        assert changes[0]["after"] == "- [ ] t0 [[Target2]] and [t](Target2.md) #tag"
        assert calls[0] < 50, calls[0]  # 2 link texts: 8 resolutions; before, 3 for each link (1,202)
        calls[0] = 0
        err = await vg.err("move_note", "elicit_required", path="Target.md", new_path="Moved/Target2.md")
        assert "Target2" in str(err)
        assert calls[0] < 50, calls[0]
        assert (root / "Target.md").exists()
