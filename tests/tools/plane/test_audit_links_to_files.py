"""A link to a file that is there but is no note (an embedded image, a `.base`, a canvas, a PDF)
is no broken link to the audit. On a served copy of kepano's vault, whose category notes embed
`![[Books.base]]` and the like, `run_consolidation` reported 24 `broken_link` findings, one per
`.base` file, "[[Events.base]] resolves to no note", while `get_outlinks` and
`find_broken_links` resolved the same links: the audit took every link target outside the notes
table for a note the reader may not see. A file the path ACL keeps from a reader is still
unresolved for it, as a hidden note is."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32

VAULT: dict[str, str | bytes] = {
    "Categories/Books.md": "# Books\n\n![[Books.base]]\n",
    "Notes/Trip.md": "# Trip\n\n![[photo.png]] and [[Board.canvas]] and [[Missing.base]] and [[Nothere]].\n",
    "Notes/Scan.md": "# Scan\n\n![[Private/scan.png]]\n",
    "Templates/Bases/Books.base": "views:\n  - type: table\n    name: Books\n",
    "Attachments/photo.png": PNG,
    "Board.canvas": '{"nodes": [], "edges": []}\n',
    "Private/scan.png": PNG,
}


async def test_links_to_existing_files_are_not_broken(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["audit"])
        items = (await vg.ok("list_findings", kind="broken_link", limit=100))["items"]
        assert sorted(f["detail"]["target"] for f in items) == ["Missing.base", "Nothere"]
        graph = (await vg.ok("find_broken_links"))["items"]
        assert sorted(i["target"] for i in graph) == ["Missing.base", "Nothere"]


async def test_a_file_the_reader_may_not_read_is_still_unresolved(make_vault: Callable[..., Path]) -> None:
    deny = {"prefix_rules": [{"path": "Private", "read": "deny", "write": "deny"}]}
    async with started(make_vault(VAULT), acl=deny) as vg:
        await vg.indexed()
        await vg.ok("run_consolidation", wait=True, jobs=["audit"])
        items = (await vg.ok("list_findings", kind="broken_link", limit=100))["items"]
        assert sorted(f["detail"]["target"] for f in items) == ["Missing.base", "Nothere", "Private/scan.png"]
