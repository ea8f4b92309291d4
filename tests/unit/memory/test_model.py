"""The Markdown form of a memory entity: what the store writes reads back the same, a person's
lines are written back as they were, and every name maps to a distinct, safe file name."""

from __future__ import annotations

from service.memory.model import Entity, Observation, Relation, file_name, parse, render


def test_a_rendered_entity_parses_back_and_renders_identically() -> None:
    entity = Entity("AC/DC", "band", created="2026-01-01", updated="2026-01-02")
    entity.observations.append(
        Observation("Formed in Sydney #music (liner)", "fact", fields={"recorded": "2026-11-28"})
    )
    entity.relations.append(Relation("member_of", "Memory/Rock bands"))
    text = render(entity)
    again = parse(text)
    assert again.name == "AC/DC" and again.entity_type == "band"
    assert again.observations[0].category == "fact" and again.observations[0].fields == {"recorded": "2026-11-28"}
    assert again.observations[0].block_id == entity.observations[0].block_id
    assert again.relations == [Relation("member_of", "Memory/Rock bands")]
    assert render(again) == text


def test_hand_written_lines_are_kept_and_written_back_unchanged() -> None:
    hand = (
        "# Bob\n\nintro\n\n## Observations\n- likes tea\n- [pref] hates coffee ^b1\nfree text\n\n"
        "## Relations\n- knows [[Alice]]\n- broken [[x\n\n## Other\nmore\n"
    )
    entity = parse(hand)
    assert entity.name == "Bob" and [o.text for o in entity.observations] == ["likes tea", "hates coffee"]
    assert entity.relations == [Relation("knows", "Alice")]
    out = render(entity)
    for line in ("- likes tea", "- [pref] hates coffee ^b1", "free text", "- broken [[x", "## Other", "more", "intro"):
        assert line in out.splitlines()


def test_file_names_are_safe_and_distinct() -> None:
    names = ["AC/DC", "AC~2FDC", "Q3: plan?", "../../outside", "...x", "con", "Con.txt", "a#b^c[d]", "100%"]
    mapped = [file_name(n) for n in names]
    assert len(set(mapped)) == len(names)
    for m in mapped:
        assert "/" not in m and "\\" not in m and not m.startswith(".") and "%" not in m
        assert m.split(".")[0].lower() not in {"con", "aux", "nul", "prn"}


def test_a_field_may_hold_a_wikilink_and_an_unclosed_one_stays_text() -> None:
    text = (
        "# P\n\n## Observations\n- Wrote it up [source:: [[Notes/Gone]]] [by:: ab12] ^m-1\n"
        "- odd [source:: [[half] ^m-2\n"
    )
    linked, odd = parse(text).observations
    assert linked.text == "Wrote it up" and linked.fields == {"source": "[[Notes/Gone]]", "by": "ab12"}
    assert odd.text == "odd [source:: [[half]" and odd.fields == {}
    assert render(parse(text)) == render(parse(render(parse(text))))


def test_a_new_observation_goes_after_the_last_item_not_into_a_persons_paragraph() -> None:
    """The blank line before a hand-written paragraph stays, so the paragraph does not become a
    continuation of the new item (acceptance pass s63 T1 #1); lines between items keep their place."""
    hand = (
        "# Zoe\n\n## Observations\n\n- likes tea\n  (since 2019)\n- hates coffee ^b1\n\nMy own paragraph, not a fact.\n"
        "Its second line.\n\n## Relations\n"
    )
    entity = parse(hand)
    entity.observations.append(Observation("likes jazz", block_id="m-1"))
    lines = render(entity).split("\n")
    at = lines.index("## Observations")
    assert lines[at : at + 9] == [
        "## Observations",
        "",
        "- likes tea",
        "  (since 2019)",
        "- hates coffee ^b1",
        "- likes jazz ^m-1",
        "",
        "My own paragraph, not a fact.",
        "Its second line.",
    ]
    entity = parse(render(entity))
    entity.observations = [o for o in entity.observations if o.text != "likes tea"]
    out = render(entity)
    assert "- likes tea" not in out and "  (since 2019)\n- hates coffee ^b1\n- likes jazz ^m-1\n\nMy own" in out


def test_a_new_observation_after_a_section_of_only_text_is_a_paragraph_apart() -> None:
    entity = parse("# P\n\n## Observations\nNotes I keep.\n\n## Relations\n")
    entity.observations.append(Observation("first fact", block_id="m-2"))
    assert "## Observations\nNotes I keep.\n\n- first fact ^m-2\n\n## Relations" in render(entity)


def test_a_memory_property_of_another_type_is_written_back_as_written() -> None:
    """`entityType: {kind: person}` or `name: [Ann, Lee]` were written back as Python's str() of
    them (acceptance pass s63 T1 #2); kept as written while the entity does not change them."""
    from service.markdown.frontmatter import split

    text = "---\nname: [Ann, Lee]\nentityType: {kind: person, since: 2020}\naliases: 5\nrating: 5\n---\n# Ann\n"
    entity = parse(text)
    entity.observations.append(Observation("likes tea", block_id="m-1"))
    data = split(render(entity)).data
    assert data == {
        "name": ["Ann", "Lee"],
        "entityType": {"kind": "person", "since": 2020},
        "aliases": 5,
        "rating": 5,
    }  # empty memory properties the note lacks are not added (they read back the same)
    entity.entity_type = "band"  # changed: the entity's value
    assert split(render(entity)).data["entityType"] == "band"


def test_an_alias_added_in_place_is_written() -> None:
    """The value kept as written is compared with a copy of what the entity held: an alias
    appended to the entity's own list is a change (review R2 s63 #10)."""
    from service.markdown.frontmatter import split

    entity = parse("---\nname: Ann\naliases: [1, 2]\n---\n# Ann\n")
    entity.aliases.append("Zed")
    assert split(render(entity)).data["aliases"] == ["1", "2", "Zed"]
