"""replace_text whole_word with a verbose pattern that ends in a comment ('(?x) Acme # c'): the
whole-word wrapper put its closing ')' inside the comment, so a valid pattern was refused as
query_syntax_error 'missing ) at position 21', past the user's 13 characters."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

NOTE = "Acme, xAcme, Acme_ and (Acme).\n"


async def test_a_verbose_pattern_ending_in_a_comment_matches_whole_words(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault({"N.md": NOTE})) as vg:
        await vg.indexed()
        for find in ("(?x) Acme # the client", "(?x) Ac me"):
            dry = await vg.ok("replace_text", find=find, replace="Zeta", regex=True, whole_word=True, path="N")
            assert dry["replacements"] == 2
            assert dry["items"][0]["changes"][0]["after"] == "Zeta, xAcme, Acme_ and (Zeta)."
        # without (?x), a '#' and the spaces are part of the text to find: no match here
        plain = await vg.ok("replace_text", find="Acme # c", replace="Zeta", regex=True, whole_word=True, path="N")
        assert plain["replacements"] == 0
        # an invalid pattern is still refused at its own position
        bad = await vg.err("replace_text", "query_syntax_error", find="(?x) (Acme # c", replace="Z", regex=True,
                           whole_word=True, path="N")  # fmt: skip
        assert bad["details"]["position"] <= len("(?x) (Acme # c")
