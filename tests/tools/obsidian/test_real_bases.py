"""Every `.base` file of the kepano vault (Templates/Bases/) parses and every view evaluates
without error, through query_base on a copy of the vault (needs VAULTGATE_TEST_DATA)."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.conftest import started
from tests.real_vaults import VAULTS, needs, writable_copy

KEPANO = VAULTS / "kepano-obsidian"


@needs(KEPANO)
async def test_every_kepano_base_and_view_evaluates(tmp_path: Path) -> None:
    root = tmp_path / "kepano"
    writable_copy(KEPANO, root)
    bases = sorted(p.relative_to(root).as_posix() for p in (root / "Templates" / "Bases").glob("*.base"))
    assert len(bases) >= 20
    async with started(root) as vg:
        await vg.indexed()
        evaluated = 0
        for rel in bases:
            views = [v.get("name") for v in (yaml.safe_load((root / rel).read_text()) or {}).get("views", [])]
            for view in views or [None]:
                args = {"path": rel} | ({"view": view} if view else {})
                out = await vg.ok("query_base", **args, limit=5)
                assert out["errors"] == [], (rel, view, out["errors"])
                evaluated += 1
        assert evaluated >= 50
        # A view whose rows are known from the files: the "Books" view lists the notes whose
        # categories hold [[Books]], minus templates.
        books = await vg.ok("query_base", path="Templates/Bases/Books.base", view="Books", limit=1000)
        expected = sorted(
            p.stem for p in root.rglob("*.md") if "[[Books]]" in _categories(p) and "Template" not in p.stem
        )
        assert expected
        assert sorted(r["values"]["file.name"]["value"].removesuffix(".md") for r in books["rows"]) == expected


def _categories(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---\n"):
        return []
    try:
        data = yaml.safe_load(text[4 : text.find("\n---", 4)])
    except yaml.YAMLError:
        return []
    cats = data.get("categories") if isinstance(data, dict) else None
    return [str(c) for c in cats] if isinstance(cats, list) else [str(cats)] if cats else []
