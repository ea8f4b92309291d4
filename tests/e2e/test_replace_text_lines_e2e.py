"""replace_text end to end (a real uvicorn server, the SDK's Streamable HTTP client, both protocol
eras): a replacement that adds lines to a long note of paragraphs is previewed at once, each line
with the lines written for it; a verbose whole-word pattern ending in a comment is taken; a
replacement that would give a note a frontmatter block is refused and changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp import Client

from tests.conftest import e2e
from tests.e2e.calls import error as _error
from tests.e2e.calls import ok as _ok

VAULT: dict[str, str | bytes] = {
    "Long.md": "\n\n".join(f"Acme paragraph {i}" for i in range(1000)) + "\n",
    "Plain.md": "x marks the spot, Acme.\n",
}


async def test_replacements_that_add_lines_or_touch_frontmatter(make_vault: Callable[..., Path], mode: str) -> None:
    async with e2e(make_vault(VAULT), index={"watch": False}) as (url, h), Client(url, mode=mode) as c:  # type: ignore[arg-type]
        await h.indexed()
        before = h.snapshot()
        dry = await _ok(c, "replace_text", find="Acme", replace="Acme\n\nnew", path="Long", limit=1)
        assert (dry["lines_changed"], dry["replacements"]) == (3000, 1000)
        changes = [(x["line"], x["before"], x["after"]) for x in dry["items"][0]["changes"][3:6]]
        assert changes == [(3, "Acme paragraph 1", "Acme"), (3, "", ""), (3, "", "new paragraph 1")]
        verbose = await _ok(
            c, "replace_text", find="(?x) Acme # the client", replace="Zeta", regex=True, whole_word=True, path="Plain"
        )
        assert verbose["items"][0]["changes"][0]["after"] == "x marks the spot, Zeta."
        made = await _error(c, "replace_text", find="^x", replace="---\na: 1\n---\nx", regex=True, dry_run=False)
        assert made["code"] == "validation_error" and made["details"]["path"] == "Plain.md"
        assert h.snapshot() == before
