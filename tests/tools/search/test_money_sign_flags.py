"""The default topic term `$` names money beside a number, not as math or code notation. On a real
zettelkasten (13,415 notes) 2,314 notes hold a `$`, nearly all as LaTeX (`$T(x) = \\lambda x$`) or
shell (`$1`, `$PATH`); every one came back `sensitive: true` from every search, so the flag that asks
an agent to check before passing a note on said so for a sixth of the vault. 21 of them name an
amount (`$1000`, `5$`); those are still flagged."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started

NOTES = {
    "Math/Eigenvector.md": "# Eigenvector\n\nA vector whose span a transform keeps: $T(v) = \\lambda v$.\n\n"
    "$$\nA v = 2 v\n$$\n",
    "Math/Bound.md": "# Bound\n\nThe vector count is below $2^{256}-1$.\n",
    "Linux/Args.md": "# Args\n\nThe first vector argument:\n\n```bash\necho $1 $PATH\n```\n\nor `echo $2`.\n",
    "Shop/Laptop.md": "# Laptop\n\nThe vector tablet costs $1000 a year.\n",
    "Shop/Mask.md": "# Mask\n\nA vector mask for 5$ on ebay.\n",
    "Shop/Escaped.md": "# Escaped\n\nThe vector plan: \\$40 a month.\n",
}


async def test_a_dollar_sign_in_math_or_code_is_no_money_topic(make_vault: Callable[..., Path]) -> None:
    async with started(make_vault(NOTES)) as vg:
        await vg.indexed()
        for tool, args in (
            ("search_text", {"query": "vector"}),
            ("search_notes", {"query": "vector"}),
            ("search_vault", {"query": "vector"}),
        ):
            found = await vg.ok(tool, **args)
            flags = {i["path"]: i["sensitive"] for i in found["items"]}
            assert flags == {
                "Math/Eigenvector.md": False,
                "Math/Bound.md": False,
                "Linux/Args.md": False,
                "Shop/Laptop.md": True,
                "Shop/Mask.md": True,
                "Shop/Escaped.md": True,
            }, (tool, flags)
