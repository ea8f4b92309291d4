"""A move whose link rewrite of one note outlasts `[limits] max_eval_seconds` is refused with
`compute_budget_exceeded`, changing nothing (G1 s86).

A note linking to the moved note 1,000,000 times made the move's preview run 50 s before it asked
confirmation, with no bound (S1 s85 finding 5). `rewrite_note` now looks at the clock every
`CLOCK_EVERY` links. The budget here is a microsecond, so the look at the clock after
`CLOCK_EVERY` links always finds it spent (nothing timed); a note with fewer links never looks,
and moves as before."""

from __future__ import annotations

from pathlib import Path

from service.graph.rewrite import CLOCK_EVERY
from tests.conftest import started, write_files


async def test_a_rewrite_past_the_time_budget_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    root = tmp_path / "vault"
    root.mkdir()
    many = "".join(f"t{i} [[Hub]]\n" for i in range(CLOCK_EVERY + 10))
    few = "".join(f"t{i} [[Small]]\n" for i in range(CLOCK_EVERY - 10))
    write_files(root, {"Hub.md": "# H\n", "Many.md": many, "Small.md": "# S\n", "Few.md": few})
    async with started(root, limits={"max_eval_seconds": 0.000001}) as vg:
        await vg.indexed()
        done = await vg.ok("rename_note", path="Small.md", new_path="Small2")
        assert done["links_rewritten"] == CLOCK_EVERY - 10
        for args in ({"dry_run": True}, {}):
            err = await vg.err("rename_note", "compute_budget_exceeded", path="Hub.md", new_path="Hub2", **args)
            assert err["details"]["path"] == "Many.md"
            assert err["details"]["limit"] == "seconds"
        assert (root / "Hub.md").exists() and not (root / "Hub2.md").exists()
        assert (root / "Many.md").read_text() == many
