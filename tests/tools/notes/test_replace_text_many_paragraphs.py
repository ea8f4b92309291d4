"""A word replaced in every paragraph of a long note is listed line by line at once: the line
matcher took time cubic in the lines when the blank line between paragraphs repeats (54 s for
1,000 paragraphs, in replace_text's preview and rename_tag's alike)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

NOTE = "\n\n".join(f"Acme paragraph {i} #old" for i in range(1000)) + "\n"


async def test_a_thousand_paragraphs_are_listed_quickly(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"Long.md": NOTE, "Short.md": "a\nAcme\nb\n"})) as vg:
        await vg.indexed()
        started_at = time.process_time()  # CPU, not the wall clock: a loaded machine stretches that
        dry = await vg.ok("replace_text", find="Acme", replace="Zeta", path="Long", limit=1)
        assert (dry["lines_changed"], dry["replacements"]) == (1000, 1000)
        changes = dry["items"][0]["changes"]
        assert [c["line"] for c in changes[:3]] == [1, 3, 5] and changes[1]["after"] == "Zeta paragraph 1 #old"
        tag = await vg.ok("rename_tag", old="old", new="new")
        assert tag["files_changed"] == 1
        assert time.process_time() - started_at < 20
        # a change that adds a line is still matched line by line: only the new line is listed
        grown = await vg.ok("replace_text", find="Acme", replace="Acme\nnew line", path="Short")
        assert [(c["line"], c["before"], c["after"]) for c in grown["items"][0]["changes"]] == [(3, "", "new line")]


async def test_a_line_given_to_each_of_two_thousand_paragraphs_is_listed(make_vault: Callable[..., Path]) -> None:
    # the lines are no longer as many: difflib's matcher took 42 s for 1,000 paragraphs (cubic)
    text = "\n\n".join(f"Acme paragraph {i}" for i in range(2000)) + "\n"
    async with started(make_vault({"Long.md": text})) as vg:
        await vg.indexed()
        dry = await vg.ok("replace_text", find="Acme", replace="Acme\nnew", path="Long", limit=1)
        assert (dry["lines_changed"], dry["replacements"]) == (4000, 2000)
        changes = [(c["line"], c["before"], c["after"]) for c in dry["items"][0]["changes"][:4]]
        assert changes == [
            (1, "Acme paragraph 0", "Acme"),
            (1, "", "new paragraph 0"),
            (3, "Acme paragraph 1", "Acme"),
            (3, "", "new paragraph 1"),
        ]


async def test_each_replaced_line_is_listed_with_the_lines_written_for_it(make_vault: Callable[..., Path]) -> None:
    # the blank lines are now twice as many: compared whole, 'Acme paragraph 1' was listed as
    # becoming 'new paragraph 0'; the preview pairs each line with what the replacement wrote
    text = "\n\n".join(f"Acme paragraph {i}" for i in range(1000)) + "\n"
    files: dict[str, str | bytes] = {"Long.md": text, "Crlf.md": text.replace("\n", "\r\n").encode()}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        for path in ("Long", "Crlf"):
            dry = await vg.ok("replace_text", find="Acme", replace="Acme\n\nnew", path=path, limit=1)
            assert (dry["lines_changed"], dry["replacements"]) == (3000, 1000)
            changes = [(c["line"], c["before"], c["after"]) for c in dry["items"][0]["changes"]]
            assert changes[3000 - 3 :] == [
                (1999, "Acme paragraph 999", "Acme"),
                (1999, "", ""),
                (1999, "", "new paragraph 999"),
            ]
            assert all(b == "" or a == "Acme" and b == f"Acme paragraph {(line - 1) // 2}" for line, b, a in changes)
