"""A digest quoting a note's first sentence from inside an Obsidian comment (U1, session 80).

The consolidation plane's digest lists the changed notes, each with its first sentence, and its
plan keeps that text as a note under Digests/. The sentence was taken from the note's raw text:
one that opened a comment (`Opens %% a comment.`, the comment closed lines later) put a lone
`%%` into the digest, so Obsidian hid every line after it (the other notes' links included); and
a note whose first line is a comment (`%% private remark %%`, `<!-- hidden -->`) had that
hidden text quoted. Now the sentence is taken from the text as Obsidian shows it: comments
removed, and nothing after one left open. Through the dispatch chain (run_consolidation,
list_findings, apply_finding).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

VAULT = {
    "Alpha.md": "%% private remark only for me %%\nReal text of alpha.\n",
    "Bravo.md": "Opens %% a comment that runs on.\n\nStill hidden.\n%%\n",
    "Charlie.md": "<!-- hidden html comment here. -->\nVisible text of charlie.\n",
    "Delta.md": "Plain first sentence of delta. Second.\n",
    "Echo.md": "<!-- a comment left open, hiding the rest of the note.\n",
}


async def _kept_digest(root: Path) -> str:
    """The text of the digest a run makes and apply_finding keeps."""
    async with started(root) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["digest"])
        [digest] = (await vg.ok("list_findings", kind="digest"))["items"]
        await vg.ok("apply_finding", finding_id=digest["id"])
        [kept] = (root / "Digests").iterdir()
        return kept.read_text(encoding="utf-8")


async def test_a_digest_quotes_only_what_obsidian_shows(make_vault: Callable[..., Path]) -> None:
    root = make_vault(VAULT)
    text = await _kept_digest(root)
    lines = {line.split("]]", 1)[0].removeprefix("- [["): line for line in text.splitlines() if line.startswith("- [[")}
    assert set(lines) == {f"{n}|{n}" for n in ("Alpha", "Bravo", "Charlie", "Delta", "Echo")}, text
    assert text.count("%%") % 2 == 0 and "<!--" not in text, text  # no comment left open in the digest
    for hidden in ("private remark", "a comment that runs on", "hidden html comment", "Still hidden", "left open"):
        assert hidden not in text, (hidden, text)
    assert lines["Alpha|Alpha"].endswith(": Real text of alpha."), text
    assert lines["Charlie|Charlie"].endswith(": Visible text of charlie."), text
    assert lines["Delta|Delta"].endswith(": Plain first sentence of delta."), text


async def test_a_digest_names_a_hand_made_entity_without_opening_a_comment(make_vault: Callable[..., Path]) -> None:
    """A memory entity note made by hand whose name holds an unpaired `%%` (or `<!--`): the memory
    tools refuse such a name, but the digest listed it raw under `## Memory`, so the kept digest
    opened a comment there and Obsidian hid every later line (session 81, U1 s80's note). So did a
    folder's heading, and a wikilink to a note whose path holds one."""
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    entity = '---\nname: "{}"\nentityType: thing\nupdated: {}\n---\n# {}\n\n## Observations\n- A fact.\n'
    root = make_vault(
        {
            "Memory/Odd.md": entity.format("Odd %% name", now, "Odd"),
            "Memory/Html.md": entity.format("Html <!-- name", now, "Html"),
            "Memory/Zed.md": entity.format("Zed after them", now, "Zed"),
            "Delta.md": "Plain first sentence of delta. Second.\n",
            "Odd %% folder/Inside.md": "Text of a note in an odd folder.\n",
            "Tags <!-- here/Html [1].md": "Text of a note in another odd folder.\n",
        }
    )
    text = await _kept_digest(root)
    assert "%%" not in text and "<!--" not in text, text  # no comment opened in the digest
    assert "- Odd &#37;&#37; name" in text and "- Html &lt;!-- name" in text, text  # shown as the names
    assert "- Zed after them" in text, text
    # a folder or note name holding one: the heading says it with entities, the link encodes the path
    assert "## Odd &#37;&#37; folder (1)" in text and "## Tags &lt;!-- here (1)" in text, text
    assert "- [Inside](Odd%20%25%25%20folder/Inside.md) (new): Text of a note in an odd folder." in text, text
    # its brackets as entities: `[Html \\[1\\]](…)` was no link to the index (a Markdown link's text
    # holds no `]`, escaped or not): test_digest_links_odd_names.py resolves such links
    assert "- [Html &#91;1&#93;](Tags%20%3C%21--%20here/Html%20%5B1%5D.md) (new): Text of a note" in text, text
    assert "[[Delta|Delta]]" in text, text


async def test_a_topic_map_links_a_folder_holding_a_comment_mark(make_vault: Callable[..., Path]) -> None:
    """The topics job's map note linked its notes as `[[Odd %% garden/Plant 0]]`: each link a lone
    `%%`, so Obsidian hid all but the first (session 81, as the digest's links)."""
    ring = {
        f"Odd %% garden/Plant {i}.md": f"# Plant {i}\n\n[[Plant {(i + 1) % 6}]] [[Plant {(i + 2) % 6}]]\n"
        for i in range(6)
    }
    root = make_vault({**ring, "Other/A.md": "# A\n\n[[B]]\n", "Other/B.md": "# B\n\n[[A]]\n"})  # as test_plane's
    async with started(root) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["topics"])
        [found] = (await vg.ok("list_findings", kind="topic_map"))["items"]
        await vg.ok("apply_finding", finding_id=found["id"])
        [kept] = (root / "Maps").iterdir()
        text = kept.read_text(encoding="utf-8")
    assert "%%" not in text, text
    for i in range(6):
        assert f"- [Odd &#37;&#37; garden/Plant {i}](Odd%20%25%25%20garden/Plant%20{i}.md)" in text, text
