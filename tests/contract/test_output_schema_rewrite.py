"""Every tool's advertised output schema accepts exactly the documents its branches as written do.

`service.tools.output_schema.cheap_to_check` writes single-use definitions out in place of their
`$ref` and fixed-length tuples of equal items as `items`, so a client's validator does less per
answer. The rewrite must not change a verdict: for every tool, documents drawn from the schema
as written (valid ones, and each with one mutation: a value of another type, a key dropped or
added, an item more or fewer) get the same verdict from both schemas. The cases the rewrite must
leave alone (recursive definitions, a `$ref` beside a validating keyword, tuples of unequal items
or of open length) are checked one by one.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import jsonschema
import pytest

from service.plans.preview import preview_schema
from service.tools.output_schema import branches, cheap_to_check
from service.tools.registry import build_registry
from service.tools.schema import compact_output
from service.tools.spec import ToolSpec

SPECS = list(build_registry())
DOCS_PER_TOOL = 40
OTHER_VALUES: list[Any] = [None, True, 0, -3, 1.5, "", "x", [], [1, 2], {}, {"k": 1}]


def _as_written(spec: ToolSpec) -> dict[str, Any]:
    """The output schema before the rewrite, assembled as `ToolSpec.output_schema` assembles it."""
    preview = compact_output(preview_schema()) if spec.previewed else None
    return branches(compact_output(spec.output_model.model_json_schema()), preview)


def _draw(node: dict[str, Any], root: dict[str, Any], rng: random.Random, depth: int = 0) -> Any:
    """A document valid against `node` (the keywords output schemas use: tests/contract shows them)."""
    if "$ref" in node:
        return _draw(root["$defs"][node["$ref"].removeprefix("#/$defs/")], root, rng, depth + 1)
    if "const" in node:
        return node["const"]
    if "enum" in node:
        return rng.choice(node["enum"])
    if "anyOf" in node and "type" not in node:
        return _draw(rng.choice(node["anyOf"]), root, rng, depth + 1)
    kind = node.get("type")
    if kind == "object":
        if "anyOf" in node:
            return _draw(rng.choice(node["anyOf"]), root, rng, depth + 1)
        props = node.get("properties", {})
        required = set(node.get("required", ()))
        doc = {k: _draw(s, root, rng, depth + 1) for k, s in props.items() if k in required or rng.random() < 0.7}
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and depth < 6 and rng.random() < 0.5:
            doc[f"extra{rng.randrange(9)}"] = _draw(extra, root, rng, depth + 1)
        return doc
    if kind == "array":
        low = node.get("minItems", 0)
        high = node.get("maxItems", low + (0 if depth > 6 else 3))
        count = rng.randint(low, high)
        tuple_ = node.get("prefixItems", [])
        rest = node.get("items", {"type": "string"})
        return [_draw(tuple_[i] if i < len(tuple_) else rest, root, rng, depth + 1) for i in range(count)]
    return {
        "string": lambda: rng.choice(["", "a.md", "note text"]),
        "integer": lambda: rng.randint(-2, 40),
        "number": lambda: rng.choice([0, 2.5, 1.7e9]),
        "boolean": lambda: rng.random() < 0.5,
        "null": lambda: None,
    }[kind]()


def _places(doc: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [at]
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += _places(value, (*at, key))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            found += _places(value, (*at, i))
    return found


def _mutated(doc: Any, rng: random.Random) -> Any:
    """`doc` with one change at a random place."""
    out = copy.deepcopy(doc)
    place = rng.choice(_places(out))
    parent = out
    for step in place[:-1]:
        parent = parent[step]
    target = parent[place[-1]] if place else out
    how = rng.randrange(4)
    if how == 1 and isinstance(target, dict) and target:
        del target[rng.choice(list(target))]
    elif how == 2 and isinstance(target, dict):
        target["unexpected"] = rng.choice(OTHER_VALUES)
    elif how == 3 and isinstance(target, list):
        if target and rng.random() < 0.5:
            target.pop()
        else:
            target.append(copy.deepcopy(target[0]) if target else rng.choice(OTHER_VALUES))
    elif place:
        parent[place[-1]] = rng.choice(OTHER_VALUES)
    else:
        out = rng.choice(OTHER_VALUES)
    return out


def _verdicts(schema: dict[str, Any], docs: list[Any]) -> list[bool]:
    validator = jsonschema.Draft202012Validator(schema)
    return [validator.is_valid(doc) for doc in docs]


def _documents(schema: dict[str, Any], seed: str) -> list[Any]:
    rng = random.Random(seed)
    valid = [_draw(schema, schema, rng) for _ in range(DOCS_PER_TOOL // 2)]
    return valid + [_mutated(rng.choice(valid), rng) for _ in range(DOCS_PER_TOOL)]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_every_output_schema_gives_the_verdicts_of_its_branches_as_written(spec: ToolSpec) -> None:
    written, advertised = _as_written(spec), spec.output_schema()
    jsonschema.Draft202012Validator.check_schema(advertised)
    docs = _documents(written, spec.name)
    before = _verdicts(written, docs)
    assert all(before[: DOCS_PER_TOOL // 2]), "a drawn document should fit the schema it was drawn from"
    assert not all(before), "no mutation broke a document: the check could not fail"
    assert _verdicts(advertised, docs) == before
    # and documents drawn from the rewritten schema, the other way round
    docs = _documents(advertised, spec.name + "/advertised")
    assert _verdicts(written, docs) == _verdicts(advertised, docs)


def test_search_text_answers_are_checked_without_references_or_tuples() -> None:
    schema = json.dumps(next(s for s in SPECS if s.name == "search_text").output_schema())
    assert "$ref" not in schema and "$defs" not in schema and "prefixItems" not in schema
    assert '"description": "This page of matching notes, best first."' in schema  # descriptions stay


def test_a_definition_used_once_is_written_out_with_what_its_reference_says() -> None:
    hit = {"type": "object", "description": "a hit", "properties": {"n": {"type": "integer"}}}
    schema = {
        "type": "object",
        "properties": {"hit": {"$ref": "#/$defs/Hit", "description": "the best hit"}},
        "$defs": {"Hit": hit},
    }
    assert cheap_to_check(schema) == {
        "type": "object",
        "properties": {"hit": {**hit, "description": "the best hit"}},
    }


def test_shared_recursive_and_constrained_references_stay() -> None:
    node = {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}
    schema = {
        "type": "object",
        "properties": {
            "a": {"$ref": "#/$defs/Shared"},
            "b": {"$ref": "#/$defs/Shared"},
            "tree": {"$ref": "#/$defs/Node"},
            "narrow": {"$ref": "#/$defs/Once", "maxLength": 3},  # a validating keyword beside it
        },
        "$defs": {"Shared": {"type": "string"}, "Node": node, "Once": {"type": "string"}},
    }
    assert cheap_to_check(schema) == schema


def test_a_fixed_tuple_of_equal_items_becomes_items() -> None:
    pair = {"type": "array", "minItems": 2, "maxItems": 2, "prefixItems": [{"type": "integer"}] * 2}
    assert cheap_to_check(pair) == {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "integer"}}
    unequal = {**pair, "prefixItems": [{"type": "integer"}, {"type": "string"}]}
    open_ended = {"type": "array", "minItems": 2, "prefixItems": [{"type": "integer"}] * 2}
    longer = {**pair, "maxItems": 3}
    with_rest = {**pair, "items": {"type": "string"}}
    for kept in (unequal, open_ended, longer, with_rest):
        assert cheap_to_check(kept) == kept


def test_a_null_branch_goes_first_and_an_open_object_says_nothing() -> None:
    nullable = {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None, "description": "Set when..."}
    free = {"type": "object", "additionalProperties": True, "description": "Frontmatter properties."}
    schema = {"type": "object", "properties": {"error": nullable, "properties": free}, "additionalProperties": False}
    assert cheap_to_check(schema) == {
        "type": "object",
        "properties": {
            "error": {"anyOf": [{"type": "null"}, {"type": "string"}], "default": None, "description": "Set when..."},
            "properties": {"type": "object", "description": "Frontmatter properties."},
        },
        "additionalProperties": False,
    }
    first = {"anyOf": [{"type": "null"}, {"type": "integer"}]}
    assert cheap_to_check(first) == first


def test_an_open_object_stays_where_unevaluated_properties_reads_it() -> None:
    # `additionalProperties: true` in a branch marks every key evaluated: without it {"x": 1} fails
    schema = {"type": "object", "allOf": [{"additionalProperties": True}], "unevaluatedProperties": False}
    assert cheap_to_check(schema) == schema
    dropped = {"type": "object", "allOf": [{}], "unevaluatedProperties": False}
    assert _verdicts(schema, [{"x": 1}]) != _verdicts(dropped, [{"x": 1}])


def test_the_verdict_check_fails_on_a_rewrite_that_changes_a_verdict() -> None:
    """The documents the parametrized check draws tell apart a rewrite that drops a null branch
    or closes an open object: such a rewrite would fail it."""

    def narrowed(node: Any) -> Any:  # null branches dropped, open objects closed
        if isinstance(node, list):
            return [narrowed(n) for n in node if n != {"type": "null"}]
        if not isinstance(node, dict):
            return node
        out = {k: narrowed(v) for k, v in node.items()}
        if out.get("additionalProperties") is True:
            out["additionalProperties"] = False
        return out

    written = _as_written(next(s for s in SPECS if s.name == "read_note"))
    docs = _documents(written, "read_note")
    assert _verdicts(narrowed(written), docs) != _verdicts(written, docs)
