"""A word written several times in a query is searched once (service/retrieval/query.py
`_Conj.render`). Each copy added every place of the word in a note once more to what FTS5's
snippet() weighs against each other, a cost growing as their square that no read budget can
interrupt (it runs inside one SQLite step): `plan` written 8 times took 6.9 s on a note holding
3,000 "plan"s, 60 times over a minute, one reader held all along."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import started


async def test_a_word_written_again_is_searched_once(make_vault: Callable[..., Path]) -> None:
    files = {"Plans.md": "# Plans\n\n" + "plan " * 3000 + "\n", "Other.md": "# Other\n\nA plan and a budget.\n"}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        once = await vg.ok("search_text", query="plan")
        for query, shown in (("plan " * 60, '"plan"'), ("Plan plan PLAN", '"Plan"'), ("学习 学习 学习", '"学习"')):
            out = await vg.ok("search_text", query=query)
            assert out["query"] == shown, out["query"]
        out = await vg.ok("search_text", query="plan " * 60)
        assert [i["path"] for i in out["items"]] == [i["path"] for i in once["items"]]
        both = await vg.ok("search_text", query="plan budget plan budget")
        assert both["query"] == '("plan" AND "budget")'
        assert [(i["path"], i["match"]) for i in both["items"]] == [("Other.md", "all"), ("Plans.md", "any")]
        either = await vg.ok("search_text", query="plan OR PLAN OR budget OR plan")
        assert either["query"] == '("plan" OR "budget")', either["query"]


async def test_spellings_and_prefixes_of_one_word_are_searched_once(make_vault: Callable[..., Path]) -> None:
    """The dedupe went by the query's text, case folded: "plan.", "plans" and "planning" (one term
    to the tokenizer) or "pl*" beside "plan" each still added every "plan" of a note to snippet()
    once more; eight spellings took 4 s on a note of 2,500 "plan"s, in one SQLite step."""
    files = {"Plans.md": "# Plans\n\n" + "plan " * 2500 + "\n", "Other.md": "# Other\n\nA plan and a budget.\n"}
    async with started(make_vault(files)) as vg:
        await vg.indexed()
        once = await vg.ok("search_text", query="plan")
        spelt = "plan plan. plan, plan; PLANS plans! planning planned? " * 4
        for query, shown in (
            (spelt, '"plan"'),
            ("p* pl* pla* plan* plann* planni*", '"planni"*'),
            ("plan pl* p* pla*", '"plan"'),
            ("plan OR plans OR pl* OR p*", '"p"*'),
            (spelt + "budget", '("plan" AND "budget")'),
        ):
            out = await vg.ok("search_text", query=query)
            assert out["query"] == shown, (query, out["query"])
        out = await vg.ok("search_text", query=spelt)
        assert [(i["path"], i["snippet"], i["highlights"]) for i in out["items"]] == [
            (i["path"], i["snippet"], i["highlights"]) for i in once["items"]
        ]
        both = await vg.ok("search_text", query="plans budget. plan BUDGETS")
        assert both["query"] == '("plans" AND "budget.")'
        assert [(i["path"], i["match"]) for i in both["items"]] == [("Other.md", "all"), ("Plans.md", "any")]
