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
    assert parse_query("NEAR(x y)").match == '("NEAR" AND ("x" AND "y"))'
    with pytest.raises(QuerySyntaxError):
        parse_query(")")


def test_question_drops_stop_words_and_gets_a_relaxed_form() -> None:
    parsed = parse_query("How do I link to a heading in another note?")
    assert parsed.match == '("link" AND "heading" AND "another" AND "note?")'
    assert parsed.relaxed == '("link" OR "heading" OR "another" OR "note?")'
    assert parsed.dropped == ("How", "do", "I", "to", "a", "in")
    assert parsed.terms == ("link", "heading", "another", "note?")


def test_stop_words_are_matched_without_case_or_edge_punctuation() -> None:
    assert parse_query("What's THE plan, then?").match == '"plan,"'
    assert parse_query("don’t sync").match == '"sync"'


def test_a_query_of_stop_words_only_is_searched_as_written() -> None:
    parsed = parse_query("to be or not to be")
    assert parsed.match == '("to" AND "be" AND "or" AND "not")'  # each word once: the same notes
    assert parsed.relaxed is None and parsed.dropped == ()


def test_phrases_prefixes_and_title_terms_are_never_stop_words() -> None:
    # "an end", not "the end": a phrase holding "the" implies the* (`test_a_prefix_another_unit_implies`).
    parsed = parse_query('"an end" the* title:how where cats')
    assert parsed.match == '("an end" AND "the"* AND title : "how" AND "cats")'
    assert parsed.relaxed == '("an end" OR "the"* OR title : "how" OR "cats")'
    assert parsed.dropped == ("where",)


def test_written_operators_keep_every_word_and_are_not_relaxed() -> None:
    assert parse_query("the AND cat").match == '("the" AND "cat")'
    assert parse_query("the AND cat").relaxed is None
    either = parse_query("how cats OR the dogs")
    assert either.match == '("cats" OR "dogs")' and either.relaxed is None


def test_relaxed_form_keeps_exclusions_groups_and_prefixes() -> None:
    parsed = parse_query("which (rocket OR orbit*) launches -moon")
    assert parsed.match == '((("rocket" OR "orbit"*) AND "launches") NOT "moon")'
    assert parsed.relaxed == '((("rocket" OR "orbit"*) OR "launches") NOT "moon")'


def test_one_content_word_has_no_relaxed_form() -> None:
    parsed = parse_query("where is the garden")
    assert parsed.match == '"garden"' and parsed.relaxed is None
    assert parse_query('"planted tomatoes"').relaxed is None


def test_stop_words_cannot_smuggle_fts5_syntax() -> None:
    parsed = parse_query('the "a" NEAR or* -the')
    assert parsed.match == '(("a" AND "NEAR" AND "or"*) NOT "the")'
    assert parse_query("the -cat").match == '("the" NOT "cat")'
    for bad in ("-the", "the OR", "(the"):
        with pytest.raises(QuerySyntaxError):
            parse_query(bad)


def test_spellings_the_tokenizer_reads_alike_are_one_unit() -> None:
    # Each spelling was a phrase of its own to FTS5's snippet(), whose cost grows as the square of
    # the places its phrases match: eight spellings of "plan" took 4 s on one note.
    parsed = parse_query("plan plan. PLANS Plan, planning! budget")
    assert parsed.match == '("plan" AND "budget")'
    assert parsed.relaxed == '("plan" OR "budget")'
    assert parse_query("plan plan. plans").relaxed is None  # one unit: no second pass
    assert parse_query("plans* plan* planning*").match == '"plans"*'  # the index looks up plan* for each
    assert parse_query("plan OR plan! OR Plans").match == '"plan"'
    assert parse_query('"project plans" "Project plan."').match == '"project plans"'
    assert parse_query("title:plan title:plans plan").match == '(title : "plan" AND "plan")'  # columns differ


def test_a_prefix_another_unit_implies() -> None:
    # AND: a note with "plan" has a word starting with pl, so pl* adds nothing; OR: the reverse.
    assert parse_query("p* pl* pla* plan*").match == '"plan"*'
    assert parse_query("p* pl* pla* plan*").relaxed == '"p"*'
    assert parse_query("plan pl*").match == '"plan"'
    assert parse_query("p* OR pl* OR plan").match == '"p"*'
    assert parse_query('"the end" the*').match == '"the end"'
    assert parse_query('"the end" the*').relaxed == '"the"*'
    # A prefix restricted to the title is implied by a title word only.
    assert parse_query("title:pl* plan").match == '(title : "pl"* AND "plan")'
    assert parse_query("pl* title:plan").match == 'title : "plan"'
    # "information" is looked up as "inform": informati* is not implied.
    assert parse_query("informati* information").match == '("informati"* AND "information")'


def test_a_long_run_of_an_unspaced_script_is_its_pairs_in_the_relaxed_form() -> None:
    j = "\u2060"
    parsed = parse_query("机器学习基础")
    assert parsed.match == f'"{j}机{j}{j}器{j}{j}学{j}{j}习{j}{j}基{j}{j}础{j}"'
    assert parsed.relaxed is not None and parsed.relaxed.count(" OR ") == 4  # 机器 器学 学习 习基 基础
    assert parse_query("机器学习").relaxed is None  # four characters: one word
    assert parse_query('"机器学习基础"').relaxed is None  # quoted: as written
    assert parse_query("ประชุมเรื่องอื่น").relaxed is None  # Thai: letters and marks, not syllables
    pairs = " OR ".join(f'"{j}{a}{j}{j}{b}{j}"' for a, b in ("学习", "习笔", "笔记", "记本", "本子"))
    assert parse_query("AI学习笔记本子").relaxed == f'("AI" OR {pairs})'
