"""Template frontmatter with unquoted {{placeholders}} is read (as strings), never rewritten."""

from __future__ import annotations

from service.markdown.frontmatter import parse_yaml, split

TEMPLATE = (
    '---\ncategories:\n  - "[[Books]]"\ncreated: {{date}}\nlast: {{date:YYYY-MM-DD}}\nrating:\n---\n# {{title}}\n'
)


def test_placeholder_values_are_read_as_strings() -> None:
    front = split(TEMPLATE)
    assert front.error is None
    assert front.data == {
        "categories": ["[[Books]]"],
        "created": "{{date}}",
        "last": "{{date:YYYY-MM-DD}}",
        "rating": None,
    }
    assert front.body_line == 7


def test_placeholder_in_a_list_item_and_quotes_inside() -> None:
    assert parse_yaml("tags:\n  - {{it's}}\n") == ({"tags": ["{{it's}}"]}, None)


def test_other_invalid_yaml_is_still_reported() -> None:
    data, error = parse_yaml("a: {{x}} trailing\nb: [\n")
    assert data == {} and error
    assert parse_yaml("a: [unclosed\n")[1]
