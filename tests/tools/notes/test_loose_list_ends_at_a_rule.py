"""A thematic break ends a loose list: the id alone after it names the break, not the list.

00dfe592 made a lone `^id` after a loose list name the whole list, a run after a blank line going
on with the list when it starts with an item of the list's marker. `* * *` and `- - -` start
like such an item but are thematic breaks (CommonMark: a line that can be both is a break), so
read_note 'L#^rule' of '* a', blank, '* * *', blank, '^rule' answered the list and the break
('* a' ... from line 3), and patch_note would replace both, where before 00dfe592 it read the
break alone (found probing 00dfe592's continuation rule with the lines a list item may look like)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import started

CASES = {
    "star": ("para\n\n* a\n\n* * *\n\n^rule\n", "* * *\n\n^rule\n", 5),
    "dash": ("para\n\n- a\n\n- - -\n\n^rule\n", "- - -\n\n^rule\n", 5),
    "list after": ("* a\n\n* * *\n\n* b\n\n* c\n\n^rule\n", "* b\n\n* c\n\n^rule\n", 5),
}


@pytest.mark.parametrize("case", list(CASES))
async def test_a_lone_id_after_a_thematic_break_names_what_follows_the_list(
    make_vault: Callable[..., Path], case: str
) -> None:
    text, block, start = CASES[case]
    async with started(make_vault({"L.md": text})) as vg:
        await vg.indexed()
        assert (await vg.ok("read_note", path="L#^rule"))["content"] == block
        [found] = (await vg.ok("get_outline", path="L"))["blocks"]
        assert (found["id"], found["start_line"]) == ("rule", start)
