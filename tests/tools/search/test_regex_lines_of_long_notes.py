"""search_regex numbers a hit by the file's line, frontmatter counted, in a note of any size: the
frontmatter's length comes from the note's first `[limits] max_indexed_note_chars` characters (as
the index read them), the rest never read. Before, the note was read whole for it, and a note over
`[limits] max_note_bytes`, refused that read, got a line number short by its frontmatter."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

FRONT = "---\ntitle: big\ntags: [log]\nstatus: open\n---\n"
BIG = FRONT + "# Big\n\n" + "".join(f"entry {i}: plain text\n" for i in range(20)) + "the zeppelin code 4711\n"
BIG += "".join(f"filler {i} of the tail\n" for i in range(400))
SMALL = FRONT + "# Small\n\nthe zeppelin code 4712\n"


async def test_a_hit_in_a_note_over_the_bound_is_numbered_by_its_file_line(make_vault: Callable[..., Path]) -> None:
    root = make_vault({"Big.md": BIG, "Small.md": SMALL})
    async with started(root, limits={"max_note_bytes": 4096}) as vg:
        await vg.indexed(60)
        out = await vg.ok("search_regex", pattern=r"zeppelin code \d+")
        lines = {item["path"]: item["matches"][0]["line"] for item in out["items"]}
        assert lines == {
            "Big.md": BIG.splitlines().index("the zeppelin code 4711") + 1,
            "Small.md": SMALL.splitlines().index("the zeppelin code 4712") + 1,
        }, lines
