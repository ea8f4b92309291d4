"""A link to a note the caller may not read evaluates exactly as a link to no note, through the chain.

The same Dataview expressions and queries run for a caller denied `Private/` on two vaults: one
where `Private/` holds the notes the links name, one where it holds none. Every answer must be the
same — else a guessed `[[Private/X]]` tells whether X exists (eval_dataview_field, search_dql,
`file.outlinks` comparisons, `FROM [[...]]`, a link's fields).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import started

NO_PRIVATE = {"prefix_rules": [{"path": "Private", "read": "deny"}]}
SHARED = {
    "Projects/Alpha.md": "---\nrel: '[[Zephyrine]]'\n---\n# Alpha\nIt links [[Zephyrine]], [[Dune]], [[Nothere]].\n",
    "Books/Dune.md": "---\nrating: 5\n---\n# Dune\n",
}
HIDDEN = {
    "Private/Zephyrine.md": "---\nrating: 9\n---\n# Zephyrine\n[[Alpha]]\n",
    "Private/Daily/2026-11-30.md": "# a hidden day\n",
    "Private/Dune.md": "---\nrating: 1\n---\n# another Dune\n",  # a second 'Dune', hidden
}
FIELDS = [
    "[[Zephyrine]] = [[Private/Zephyrine]]",
    "[[2026-11-30]] = [[Private/Daily/2026-11-30]]",
    "[[Private/Zephyrine]]",
    "[[Dune]]",
    "[[Dune]].rating",
    "[[Private/Dune]] = [[Dune]]",
    "contains(file.outlinks, [[Private/Zephyrine]])",
    "contains(file.outlinks, [[Zephyrine]])",
    "file.outlinks",
    "rel = [[Private/Zephyrine]]",
    "rel",
]
QUERIES = [
    'LIST WITHOUT ID [[Zephyrine]] = [[Private/Zephyrine]] WHERE file.name = "Alpha"',
    'TABLE WITHOUT ID file.outlinks, rel FROM "Projects"',
    "LIST FROM [[Dune]]",
    "LIST FROM [[Private/Zephyrine]]",
    "LIST WHERE contains(file.outlinks, [[Private/Zephyrine]])",
]


def _same_vault(value: Any) -> Any:
    """`value` without `obsidian_url`s (they name the vault's folder, which differs between the two)."""
    if isinstance(value, dict):
        return {k: _same_vault(v) for k, v in value.items() if k != "obsidian_url"}
    if isinstance(value, list):
        return [_same_vault(v) for v in value]
    return value


async def _answers(make_vault: Callable[..., Path], files: dict[str, str]) -> list[Any]:
    async with started(make_vault(files), acl=NO_PRIVATE) as vg:
        await vg.indexed()
        out: list[Any] = []
        for field in FIELDS:
            got = await vg.ok("eval_dataview_field", path="Projects/Alpha", field=field)
            out.append((field, _same_vault(got["fields"][field])))
        for query in QUERIES:
            got = await vg.ok("search_dql", query=query)
            out.append((query, _same_vault(got["rows"]), got.get("total")))
        return out


async def test_a_hidden_link_target_evaluates_as_an_absent_one(make_vault: Callable[..., Path]) -> None:
    absent = await _answers(make_vault, SHARED)
    hidden = await _answers(make_vault, {**SHARED, **HIDDEN})
    for (what, *without), (_, *with_hidden) in zip(absent, hidden, strict=True):
        assert with_hidden == without, what
    assert ("[[Dune]].rating", {"type": "number", "value": 5}) in absent  # the note the caller may read
