"""The `.base` file model: YAML in, a checked `BaseFile` out, every expression compiled.

Reads the YAML with PyYAML's composer so each expression keeps its line and column; checks the
documented shape (filters as a string or nested `and` / `or` / `not` lists; `formulas`,
`properties`, `summaries` as mappings; `views` as a list of mappings with `type`, `name`,
`limit`, `filters`, `order`, `sort`, `groupBy`, `summaries`); keeps unknown keys (in `extra`)
without acting on them; compiles every filter, formula and summary formula; and rejects formula
cycles and formula chains nested past the depth budget (`[limits] max_depth`: the YAML's own
nesting is measured from its event stream before anything is built). Every problem is a
`BasesSyntaxError` whose details say where: `at` (a dotted path in the file), `line` and
`column` (1-based, of the YAML value), and for expressions the `expression`, `offset` and
offending `token`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from service.bases.env import Fn
from service.bases.evaluate import compile_expr, formula_refs
from service.bases.parser import TREE_FACTOR, ExprSyntaxError, parse, tree_depth
from service.budget import DEFAULT_LIMITS
from service.errors import BasesSyntaxError
from service.settings.limits import LimitsSettings

SUMMARIES = (
    "Average", "Min", "Max", "Sum", "Range", "Median", "Stddev",
    "Earliest", "Latest", "Checked", "Unchecked", "Empty", "Filled", "Unique",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Filter:
    """A compiled filter tree: op is 'expr' (fn set), 'and', 'or' or 'not' (children set)."""

    op: str
    fn: Fn | None = None
    children: tuple[Filter, ...] = ()
    source: str = ""
    at: str = ""


@dataclass(frozen=True, slots=True)
class SortKey:
    prop: str
    descending: bool


@dataclass(slots=True)
class View:
    type: str
    name: str
    limit: int | None
    filters: Filter | None
    order: list[str]
    sort: list[SortKey]
    group_by: SortKey | None
    summaries: dict[str, str]
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class BaseFile:
    filters: Filter | None
    formulas: dict[str, Fn]
    formula_sources: dict[str, str]
    display_names: dict[str, str]
    summaries: dict[str, Fn]
    views: list[View]
    extra: dict[str, Any] = field(default_factory=dict)


# YAML scalars that are no filter statement: the Bases syntax takes "a single filter statement as
# a string, or a recursively defined filter object" (a boolean reads as the statement it spells).
_NOT_STATEMENTS = {"tag:yaml.org,2002:int": "a number", "tag:yaml.org,2002:float": "a number",
                   "tag:yaml.org,2002:timestamp": "a date", "tag:yaml.org,2002:binary": "binary data"}  # fmt: skip


def _null(node: yaml.Node | None) -> bool:
    """An absent value or YAML's null as the composer resolved it: empty, `~`, `null`, `Null`,
    `NULL` (a quoted 'null' is the text null, an expression like any other)."""
    return node is None or (isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null")


def _where(node: yaml.Node | None, at: str, line_offset: int) -> dict[str, Any]:
    out: dict[str, Any] = {"at": at or "(file)"}
    if node is not None:
        out["line"] = node.start_mark.line + 1 + line_offset
        out["column"] = node.start_mark.column + 1
    return out


class _Reader:
    def __init__(self, line_offset: int, max_depth: int) -> None:
        self.line_offset = line_offset
        self.max_depth = max_depth
        self.formula_names: frozenset[str] = frozenset()
        self.depths: dict[str, int] = {}  # expression text -> tree depth

    def fail(self, message: str, node: yaml.Node | None, at: str, **extra: Any) -> BasesSyntaxError:
        details = _where(node, at, self.line_offset) | extra
        where = f" at {details['at']}" + (
            f" (line {details['line']}, column {details['column']})" if "line" in details else ""
        )
        return BasesSyntaxError(
            message + where, details=details, hint="Fix the .base YAML; see the Bases syntax help page."
        )

    def scalar(self, node: yaml.Node, at: str) -> str:
        if not isinstance(node, yaml.ScalarNode):
            raise self.fail("expected a text value", node, at)
        return str(node.value)

    def mapping(self, node: yaml.Node | None, at: str) -> list[tuple[str, yaml.Node, yaml.Node]]:
        if _null(node):
            return []
        if not isinstance(node, yaml.MappingNode):
            raise self.fail("expected a mapping", node, at)
        return [(str(k.value), k, v) for k, v in node.value]

    def expression(self, node: yaml.Node, at: str, bound: frozenset[str] = frozenset()) -> tuple[Fn, str]:
        text = self.scalar(node, at)
        try:
            tree = parse(text, self.max_depth)
            self.depths[text] = tree_depth(tree)
            return compile_expr(tree, bound, self.formula_names), text
        except ExprSyntaxError as exc:
            raise self.fail(
                f"{exc.message} in expression {text!r}", node, at, expression=text, offset=exc.offset, token=exc.token
            ) from None
        except RecursionError:
            raise self.fail("expression nested too deeply", node, at, expression=text[:200]) from None

    def filters(self, node: yaml.Node | None, at: str) -> Filter | None:
        if _null(node):
            return None
        if isinstance(node, yaml.ScalarNode):
            kind = _NOT_STATEMENTS.get(node.tag)
            if kind is not None:  # `filters: 12`: the schema takes a statement in text or an object
                raise self.fail(
                    f"a filter is a statement in text or an object with `and`, `or` or `not`, not {kind}"
                    f" (quote it, '{node.value}', to test it as an expression)",
                    node, at, found=kind,
                )  # fmt: skip
            fn, text = self.expression(node, at)
            return Filter("expr", fn, source=text, at=at)
        pairs = self.mapping(node, at)
        if len(pairs) != 1 or pairs[0][0] not in ("and", "or", "not"):
            raise self.fail("a filter object holds exactly one of `and`, `or`, `not`", node, at)
        op, _, items = pairs[0]
        if not isinstance(items, yaml.SequenceNode):
            raise self.fail(f"`{op}` takes a list of filters", items, f"{at}.{op}")
        children = [self.filters(item, f"{at}.{op}[{i}]") for i, item in enumerate(items.value)]
        return Filter(op, children=tuple(c for c in children if c is not None), at=f"{at}.{op}")

    def sort_key(self, node: yaml.Node, at: str) -> SortKey:
        entries = {k: v for k, _, v in self.mapping(node, at)}
        if "property" not in entries and "column" in entries:  # the older spelling
            entries["property"] = entries["column"]
        if "property" not in entries:
            raise self.fail("a sort entry needs `property`", node, at)
        direction = self.scalar(entries["direction"], at + ".direction").upper() if "direction" in entries else "ASC"
        if direction not in ("ASC", "DESC"):
            raise self.fail("`direction` is ASC or DESC", entries["direction"], at + ".direction")
        return SortKey(self.scalar(entries["property"], at + ".property"), direction == "DESC")

    def view(self, node: yaml.Node, at: str, custom: set[str]) -> View:
        v = View("table", "", None, None, [], [], None, {})
        for key, _, value in self.mapping(node, at):
            here = f"{at}.{key}"
            if key == "type":
                v.type = self.scalar(value, here)
            elif key == "name":
                v.name = self.scalar(value, here)
            elif key == "limit":
                text = self.scalar(value, here)
                if not text.isdigit():
                    raise self.fail("`limit` is a whole number", value, here)
                v.limit = int(text)
            elif key == "filters":
                v.filters = self.filters(value, here)
            elif key == "order":
                if not isinstance(value, yaml.SequenceNode):
                    raise self.fail("`order` is a list of properties", value, here)
                v.order = [self.scalar(item, f"{here}[{i}]") for i, item in enumerate(value.value)]
            elif key == "sort":
                if not isinstance(value, yaml.SequenceNode):
                    raise self.fail("`sort` is a list of {property, direction}", value, here)
                v.sort = [self.sort_key(item, f"{here}[{i}]") for i, item in enumerate(value.value)]
            elif key == "groupBy":
                v.group_by = self.sort_key(value, here)
            elif key == "summaries":
                for prop, _, name_node in self.mapping(value, here):
                    name = self.scalar(name_node, f"{here}.{prop}")
                    if name not in SUMMARIES and name not in custom:
                        raise self.fail(f"unknown summary {name!r}", name_node, f"{here}.{prop}", token=name)
                    v.summaries[prop] = name
            else:
                v.extra[key] = yaml.safe_load(yaml.serialize(value)) if value is not None else None
        return v


def _chains(graph: dict[str, set[str]], weight: dict[str, int]) -> tuple[list[str] | None, list[str], int]:
    """A reference cycle (or None), then the deepest chain of formulas reading formulas and its
    depth (the expressions' tree depths added up along it). Without recursion: a chain of
    thousands of formulas is an answer, not a crash."""
    state: dict[str, int] = {}
    depth: dict[str, int] = {}
    below: dict[str, str] = {}
    for root in graph:
        if root in state:
            continue
        state[root] = 1
        path = [root]
        stack = [(root, iter(sorted(graph[root])))]
        while stack:
            name, deps = stack[-1]
            for dep in deps:
                if state.get(dep) == 1:
                    return [*path[path.index(dep) :], dep], [], 0
                if dep in graph and dep not in state:
                    state[dep] = 1
                    path.append(dep)
                    stack.append((dep, iter(sorted(graph[dep]))))
                    break
            else:
                stack.pop()
                path.pop()
                state[name] = 2
                known = [d for d in graph[name] if d in graph]
                deepest = max(known, key=lambda d: depth[d], default=None)
                depth[name] = weight.get(name, 1) + (depth[deepest] if deepest is not None else 0)
                if deepest is not None:
                    below[name] = deepest
    top = max(depth, key=lambda n: depth[n], default=None)
    chain: list[str] = []
    while top is not None:
        chain.append(top)
        top = below.get(top)
    return None, chain, depth[chain[0]] if chain else 0


def _yaml_depth(text: str, max_depth: int, line_offset: int) -> None:
    """Refuse YAML nested deeper than `max_depth` before composing it (PyYAML's composer and
    this model recurse once per level; its parser, read here as events, does not)."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                if depth > max_depth:
                    mark = event.start_mark
                    details: dict[str, Any] = {"at": "(yaml)", "max_depth": max_depth}
                    if mark is not None:
                        details |= {"line": mark.line + 1 + line_offset, "column": mark.column + 1}
                    raise BasesSyntaxError(
                        f"the YAML nests more than {max_depth} levels deep",
                        details=details,
                        hint="Flatten nested and/or filters; [limits] max_depth sets the bound.",
                    )
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
    except yaml.YAMLError:
        return  # the composer reports it with its position


_YAML_HINT = (
    "Fix the YAML at details.line and column: indent each level by the same spaces (no tabs), and quote a "
    "value holding ': ', ' #' or starting with [ { * & ! | > % @ or a quote."
)


def load(text: str, line_offset: int = 0, limits: LimitsSettings = DEFAULT_LIMITS) -> BaseFile:
    """Parse and compile a `.base` document (`line_offset`: lines before it, for a code block)."""
    reader = _Reader(line_offset, limits.max_depth)
    _yaml_depth(text, limits.max_depth, line_offset)
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        details: dict[str, Any] = {"at": "(yaml)"}
        if mark is not None:
            details |= {"line": mark.line + 1 + line_offset, "column": mark.column + 1}
        raise BasesSyntaxError(f"invalid YAML: {exc.problem or exc}", details=details, hint=_YAML_HINT) from None
    except yaml.YAMLError as exc:
        raise BasesSyntaxError(f"invalid YAML: {exc}", details={"at": "(yaml)"}, hint=_YAML_HINT) from None
    sections = {key: (knode, value) for key, knode, value in reader.mapping(root, "")}
    formula_nodes = reader.mapping(sections.get("formulas", (None, None))[1], "formulas")
    reader.formula_names = frozenset(name for name, _, _ in formula_nodes)
    formulas: dict[str, Fn] = {}
    sources: dict[str, str] = {}
    graph: dict[str, set[str]] = {}
    for name, _, node in formula_nodes:
        formulas[name], sources[name] = reader.expression(node, f"formulas.{name}")
        graph[name] = formula_refs(parse(sources[name], limits.max_depth))
    weights = {name: reader.depths.get(sources[name], 1) for name in graph}
    cycle, chain, depth = _chains(graph, weights)
    if cycle:
        node = next(n for name, _, n in formula_nodes if name == cycle[0])
        raise reader.fail(
            "circular formula reference: " + " -> ".join(cycle), node, f"formulas.{cycle[0]}", cycle=cycle
        )
    if depth > TREE_FACTOR * limits.max_depth:
        node = next(n for name, _, n in formula_nodes if name == chain[0])
        shown = chain if len(chain) <= 6 else [*chain[:3], "...", *chain[-2:]]
        raise reader.fail(
            f"formula chain nests {depth} levels deep (more than {TREE_FACTOR * limits.max_depth}): "
            + " -> ".join(shown),
            node,
            f"formulas.{chain[0]}",
            chain_length=len(chain),
            max_depth=TREE_FACTOR * limits.max_depth,
        )
    display: dict[str, str] = {}
    for prop, _, node in reader.mapping(sections.get("properties", (None, None))[1], "properties"):
        for key, _, value in reader.mapping(node, f"properties.{prop}"):
            if key == "displayName" and isinstance(value, yaml.ScalarNode):
                display[prop] = str(value.value)
    summaries: dict[str, Fn] = {}
    for name, _, node in reader.mapping(sections.get("summaries", (None, None))[1], "summaries"):
        summaries[name] = reader.expression(node, f"summaries.{name}", frozenset({"values"}))[0]
    views_node = sections.get("views", (None, None))[1]
    views: list[View] = []
    if not _null(views_node):
        if not isinstance(views_node, yaml.SequenceNode):
            raise reader.fail("`views` is a list of views", views_node, "views")
        views = [reader.view(node, f"views[{i}]", set(summaries)) for i, node in enumerate(views_node.value)]
    known = {"filters", "formulas", "properties", "summaries", "views"}
    extra = {k: yaml.safe_load(yaml.serialize(v)) for k, (_, v) in sections.items() if k not in known and v is not None}
    return BaseFile(
        filters=reader.filters(sections.get("filters", (None, None))[1], "filters"),
        formulas=formulas,
        formula_sources=sources,
        display_names=display,
        summaries=summaries,
        views=views,
        extra=extra,
    )
