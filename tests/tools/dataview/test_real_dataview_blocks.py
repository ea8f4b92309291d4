"""Every ```dataview block in the real vaults parses (VAULTGATE_TEST_DATA; skipped without).

Blocks holding Templater tags (`<% ... %>`) are templates, rendered before Dataview ever sees
them, and are left out. One guide shows `from Kw/Yoga`, an unquoted folder that Dataview itself
rejects: it must fail here too, at the folder name."""

from __future__ import annotations

import re

import pytest

from service.dataview.query import parse_query
from service.dataview.syntax import DqlError
from tests.real_vaults import VAULTS, needs

_BLOCK = re.compile(r"^```dataview[ \t]*\n(.*?)^```", re.S | re.M)


@needs(VAULTS)
def test_every_dataview_block_in_the_real_vaults_parses() -> None:
    blocks = [
        (path, m.group(1))
        for path in sorted(VAULTS.rglob("*.md"))
        for m in _BLOCK.finditer(path.read_text(encoding="utf-8", errors="replace"))
    ]
    assert blocks, "no dataview blocks found"
    failures, parsed = [], 0
    for path, block in blocks:
        if "<%" in block:
            continue
        if "from Kw/Yoga" in block:
            with pytest.raises(DqlError) as info:
                parse_query(block)
            assert (info.value.line, info.value.column) == (2, 6)
            continue
        try:
            parse_query(block)
            parsed += 1
        except DqlError as e:  # report them all at once
            failures.append(f"{path.relative_to(VAULTS)}: {e}\n{block}")
    assert not failures, "\n\n".join(failures)
    assert parsed >= 10
