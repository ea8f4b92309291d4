"""Session 80 (D1): `FROM [[X]]` where X is no note. Dataview answers the pages with a link written
X (data-index/resolver.ts: no file, so `index.links.getInverse(source.file)`, the unresolved links
as written); the server answered no page. For a caller who may not read a note X names, the
answer is the one X absent would give (docs/dataview.md: a hidden note is as an absent one)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

NO_PRIVATE = {"prefix_rules": [{"path": "Private", "read": "deny"}]}
FILES = {
    "A.md": "Waiting on [[Ghost]].\n",
    "B.md": "See [[Ghost#Plan|the plan]] and [[Real]].\n",
    "C.md": "---\nup: '[[Private/Ghost]]'\n---\nbody\n",
    "D.md": "nothing here, not even [[ghost]]\n",
    "Real.md": "a note\n",
}
QUERIES = {
    "LIST FROM [[Ghost]]": ["A.md", "B.md"],
    "LIST FROM [[Private/Ghost]]": ["C.md"],
    'LIST FROM [[Ghost]] AND -"B"': ["A.md"],
    "LIST FROM [[Real]]": ["B.md"],
    "LIST FROM [[Nobody]]": [],
}


async def _paths(root: Path, **overrides: Any) -> dict[str, list[str]]:
    async with started(root, **overrides) as vg:
        await vg.indexed()
        return {q: [r["path"] for r in (await vg.ok("search_dql", query=q))["rows"]] for q in QUERIES}


async def test_from_a_link_to_no_note_lists_the_pages_linking_to_it(make_vault: Callable[..., Path]) -> None:
    assert await _paths(make_vault(FILES)) == QUERIES


async def test_a_hidden_note_answers_as_an_absent_one(make_vault: Callable[..., Path]) -> None:
    hidden = {**FILES, "Private/Ghost.md": "a secret\n"}
    assert await _paths(make_vault(hidden), acl=NO_PRIVATE) == QUERIES
    everything = await _paths(make_vault(hidden))  # a caller who reads it: the pages linking to it
    assert everything["LIST FROM [[Ghost]]"] == ["A.md", "B.md", "C.md", "D.md"]  # [[ghost]] resolves too
