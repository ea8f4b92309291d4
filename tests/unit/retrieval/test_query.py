"""The full-text query language: every term is quoted for FTS5, operators and groups are kept,
syntax errors are `QuerySyntaxError` (service/retrieval/query.py)."""

from __future__ import annotations

import pytest

from service.errors import QuerySyntaxError
from service.retrieval.query import parse_query


def test_query_translation_quotes_every_term() -> None:
    assert parse_query('foo "a b" c*').match == '("foo" AND "a b" AND "c"*)'
    assert parse_query('say "it\'s" OR x').match == '(("say" AND "it\'s") OR "x")'
    with pytest.raises(QuerySyntaxError):
        parse_query('x"y')
    assert parse_query("NEAR(a b)").match == '("NEAR" AND ("a" AND "b"))'
    with pytest.raises(QuerySyntaxError):
        parse_query(")")
