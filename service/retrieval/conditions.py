"""The condition language of search_notes: tags and property conditions
written as strings, and property conditions written as JSON, turned into `properties.Filter`s.

- tags-mode `query`: tags separated by spaces or commas, `#` optional (`project`, `#a #b`);
- properties-mode `query`: conditions separated by commas, each `key` (exists), `key=value`,
  `key:value`, `key==value`, `key!=value`, `key>value`, `key>=value`, `key<value` or `key<=value`
  (the operators of search_properties); values are read as JSON scalars when they parse (`3`, `2.5`,
  `true`, `"quoted"`), else taken as written; an unquoted value that starts with an operator character
  (`rank=>1`, `rank<>1`, `rank>==1`) cannot be read;
- `properties` argument: `{"k": v}` (equality; on lists, any item), `{"k": [v1, v2]}` (any of),
  `{"k": {"op": ">", "value": 2}}` — one group per key, a group matching when any of its
  filters does.
A condition that cannot be read is `validation_error`.
"""

from __future__ import annotations

import json
import re
from typing import Any

from service.errors import ValidationFailed
from service.retrieval import properties as props


def property_filters(raw: dict[str, Any]) -> list[list[props.Filter]]:
    """One group per key; a group matches when any of its filters does."""
    groups: list[list[props.Filter]] = []
    for key, spec in raw.items():
        if isinstance(spec, dict):
            if set(spec) - {"op", "value"} or "op" not in spec:
                raise ValidationFailed(
                    f"property {key!r}: a filter object is {{op, value}}", details={"field": "properties", "key": key}
                )
            groups.append([props.Filter(key, str(spec["op"]), spec.get("value"))])
        elif isinstance(spec, list):
            if not spec:
                raise ValidationFailed(f"property {key!r}: empty list", details={"field": "properties", "key": key})
            groups.append([props.Filter(key, "==", v) for v in spec])
        else:
            groups.append([props.Filter(key, "==", spec)])
    return groups


_CONDITION = re.compile(r"^\s*([^=:<>!]+?)\s*(?:(!=|==|>=|<=|=|:|>|<)\s*(.*?))?\s*$")
_OPS = {"=": "==", ":": "==", "==": "==", "!=": "!=", ">": ">", ">=": ">=", "<": "<", "<=": "<="}
_OPERATOR_CHARS = "=<>!"


def query_tags(query: str) -> list[str]:
    """Tags named in a tags-mode `query`: `project`, `#a #b`, `a, b/c`."""
    return [t for t in (part.lstrip("#") for part in re.split(r"[\s,]+", query)) if t]


def query_value(raw: str) -> Any:
    """`3` → 3, `2.5` → 2.5, `true` → True, `"quoted"` → 'quoted', anything else as written."""
    try:
        value = json.loads(raw)
    except ValueError:
        return raw
    return value if isinstance(value, (str, int, float, bool)) else raw


def query_properties(query: str) -> dict[str, Any]:
    """Property conditions of a properties-mode `query`: `status=active, priority>2, reviewed`."""
    out: dict[str, Any] = {}
    for part in (p for p in query.split(",") if p.strip()):
        m = _CONDITION.match(part)
        if m is None or not m.group(1).strip() or (m.group(3) or "").startswith(tuple(_OPERATOR_CHARS)):
            raise ValidationFailed(
                f"cannot read the property condition {part.strip()!r}: use key, key=value, key!=value, key>value, "
                "key>=value, key<value or key<=value",
                details={"field": "query"},
            )
        key, op = m.group(1).strip(), m.group(2)
        out[key] = {"op": "exists"} if op is None else {"op": _OPS[op], "value": query_value(m.group(3))}
    return out
