"""replace_text's bounds through the chain: what the notes may grow by in one call."""

from __future__ import annotations

import resource
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started


async def test_a_long_replacement_of_many_matches_is_refused_before_it_is_built(
    make_vault: Callable[..., Path],
) -> None:
    """3,000 one-letter matches, each becoming 100,000 characters, is a 300-million-character
    note: refused with validation_error (the preview as the apply), nothing written, and no
    gigabyte held on the way (it took 1.2 GB and 10 s to answer overflow)."""
    files = {"A.md": "# A\n\n" + "x" * 3000 + "\n", "B.md": "# B\n\nx marks the spot.\n"}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        before = vg.snapshot()
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        long = "y" * 100_000
        dry = await vg.err("replace_text", "validation_error", find="x", replace=long)
        assert dry["details"]["max_growth_chars"] == 10_000_000 and "folder" in dry["hint"]
        await vg.err("replace_text", "validation_error", find="(x)", replace=long + r"\1", regex=True, dry_run=False)
        await vg.err("replace_text", "validation_error", find="(?:)", replace=long, regex=True, path="A")
        assert (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss) < 300 * 1024  # KiB on Linux
        assert vg.snapshot() == before
        # the same replacement where it fits
        one = await vg.confirmed("replace_text", find="x marks", replace=long, dry_run=False, path="B")
        assert one["replacements"] == 1 and vg.read("B.md") == f"# B\n\n{long} the spot.\n"


@pytest.mark.parametrize("regex", [False, True])
async def test_growth_is_counted_over_the_notes_of_one_call(
    make_vault: Callable[..., Path], monkeypatch: pytest.MonkeyPatch, regex: bool
) -> None:
    from service.tools.notes import replace

    monkeypatch.setattr(replace, "MAX_GROWTH", 20)
    files = {f"N{i}.md": "cat cat\n" for i in range(3)}  # 6 matches
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        fits = await vg.ok("replace_text", find="cat", replace="kitten", regex=regex)  # 6 x 3 = 18
        assert (fits["files_changed"], fits["replacements"]) == (3, 6)
        await vg.err("replace_text", "validation_error", find="cat", replace="kittens", regex=regex)  # 6 x 4
        await vg.err("replace_text", "validation_error", find="c", replace="cccccc", regex=regex)  # 6 x 5 = 30
        shrinks = await vg.ok("replace_text", find="cat", replace=r"\g<0>" if regex else "", regex=regex)
        assert shrinks["files_changed"] == (0 if regex else 3)
