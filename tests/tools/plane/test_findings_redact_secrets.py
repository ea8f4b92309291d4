"""list_findings shows the observations a duplicate or contradiction finding quotes as the search
tools show note text not asked for by path: a secret is `[REDACTED:<kind>]` under the default
`[sensitive]` mode, in the title (which cuts the quote at 80 characters, perhaps inside the
secret), the detail and the plan's arguments; `flag` mode shows it. apply_finding still runs the
plan as found (the stored finding keeps the real text)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import Harness, started

TOKEN = "ghp_" + "abcdefghijklmnopqrstuvwxyz0123456789"
# The quote in the title is cut at 80 characters: inside the token for the second text.
TEXTS = (
    f"The deploy key for the staging cluster is {TOKEN}",
    "The staging cluster notes say the deploy key for the staging cluster is " + TOKEN,
)


def _entity(name: str, *observations: str) -> str:
    lines = "\n".join(f"- {o} ^m-{i:012d}" for i, o in enumerate(observations))
    return f"---\nname: {name}\nentityType: team\n---\n# {name}\n\n## Observations\n{lines}\n"


VAULT = {
    "Memory/Ops.md": _entity("Ops", TEXTS[0], TEXTS[0].lower() + "."),  # a duplicate after normalisation
    "Memory/Ops2.md": _entity("Ops2", TEXTS[1], TEXTS[1].lower() + "."),  # its quote in the title cut inside the key
}


async def _planted(vg: Harness) -> list[dict[str, Any]]:
    await vg.ok("run_consolidation", wait=True, jobs=["duplicates"])
    items: list[dict[str, Any]] = (await vg.ok("list_findings", limit=100))["items"]
    return items


async def test_findings_quote_secrets_as_the_search_tools_show_them(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT)) as vg:
        found = await _planted(vg)
        assert found and all(f["plan"] for f in found)
        shown = json.dumps(found)
        assert TOKEN not in shown and TOKEN[:12] not in shown and "[REDACTED" in shown
        assert "deploy key" in shown  # only the secret goes
        applied = await vg.ok("apply_finding", finding_id=found[0]["id"])  # the plan runs as it was found
        assert applied["status"] == "applied"
        notes = "".join(p.read_text() for p in (vg.root / "Memory").glob("*.md"))
        assert notes.count(TOKEN) == 3  # one duplicate removed, the real token kept in the note


async def test_flag_mode_shows_the_quoted_secret(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(VAULT), sensitive={"mode": "flag"}) as vg:
        shown = json.dumps(await _planted(vg))
        assert TOKEN in shown and "[REDACTED" not in shown


async def test_a_secret_after_a_tab_or_a_no_break_space_is_redacted_in_the_title(
    make_vault: Callable[..., Path],
) -> None:
    # the title quotes with repr: `\t` / `\xa0` glue letters to the secret (R2 s62 F0)
    texts = (f"The deploy key for staging:\t{TOKEN}", f"The deploy key for prod:\xa0{TOKEN} is old")
    vault = {f"Memory/Ops{i}.md": _entity(f"Ops{i}", t, t.lower() + ".") for i, t in enumerate(texts)}
    async with started(make_vault(vault)) as vg:
        found = await _planted(vg)
        assert len(found) == 2 and TOKEN not in json.dumps(found) and TOKEN[:12] not in json.dumps(found)


async def test_only_the_secret_goes_not_words_that_begin_like_it(make_vault: Callable[..., Path]) -> None:
    # a password 'Summerhouse2024': the entity Summerhouse is still named (R2 s62 F3)
    text = "password: Summerhouse2024"
    async with started(make_vault({"Memory/Summerhouse.md": _entity("Summerhouse", text, text + ".")})) as vg:
        [finding] = await _planted(vg)
        assert "Summerhouse2024" not in json.dumps(finding) and "[REDACTED" in finding["title"]
        assert finding["title"].startswith("Summerhouse:") and finding["detail"]["entity"] == "Summerhouse"
        [deletion] = finding["plan"]["steps"][0]["args"]["deletions"]
        assert deletion["entityName"] == "Summerhouse"
