"""process_capture filing into a note that ends inside a code block or comment (U1, session 80).

action 'note' appends the capture (text, back link, `^cap-…` block id) at the end of the note,
or of the section of `heading`. A note that ends in a fence never closed, or a `%%` / `<!--`
comment never closed, had the capture written inside it: process_capture answered `filed` with
a block_link, and Obsidian showed the capture as code (or hid it) and resolved no block there.
(6ae651f5 fixed the same for memory observations.) Now such a filing is `validation_error`
(reason `left_open`) and neither the note nor the capture changes; a note whose blocks close
is filed into as before. Through the dispatch chain.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

OPEN = {
    "Fence.md": "# Fence\n\n```python\nprint(1)\n",
    "Tilde.md": "---\nnote: '%%'\n---\n# Tilde\n\n- item\n  ~~~\n  code\n",
    "Percent.md": "# Percent\n\n%%\nhidden\n",
    "Html.md": "# Html\n\n<!--\nhidden\n",
}
CLOSED = {"Closed.md": "# Closed\n\n```\ncode\n```\n%% a %%\n<!-- b -->\n"}


@pytest.mark.parametrize("heading", [None, "Section"])
async def test_no_capture_is_filed_into_a_block_its_note_leaves_open(
    make_vault: Callable[..., Path], heading: str | None
) -> None:
    root = make_vault({**OPEN, **CLOSED})
    async with started(root) as vg:
        for name in OPEN:
            target = name.removesuffix(".md")
            cap = await vg.ok("capture", text=f"idea for {target}")
            args = {"capture_id": cap["id"], "action": "note", "target": target}
            if heading is not None:
                args["heading"] = target  # the note's own heading: its section runs into the open block
            refused = await vg.err("process_capture", "validation_error", **args)
            assert refused["details"]["reason"] == "left_open", refused
            assert (root / name).read_text(encoding="utf-8") == OPEN[name]
            [item] = [c for c in (await vg.ok("list_captures"))["items"] if c["id"] == cap["id"]]
            assert item["status"] == "pending", item
        cap = await vg.ok("capture", text="idea for a closed note")
        filed = await vg.ok("process_capture", capture_id=cap["id"], action="note", target="Closed")
        assert filed["status"] == "filed"
        assert (root / "Closed.md").read_text(encoding="utf-8").endswith(f"^{cap['id']}\n")
