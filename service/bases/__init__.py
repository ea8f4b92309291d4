"""Obsidian Bases, evaluated natively: the engine behind the query_base tool.

`model` reads a `.base` document (YAML) and compiles it; `parser` and `evaluate` are the
expression language; `functions`, `methods` and `sequences` the function library by type;
`values` and `dates` the value types; `query` runs one view (filters, sort, limit, groups,
summaries from `summaries`) over a `snapshot` of the index built by `source`; `blocks` finds
```base blocks in a note. Touches the index only through `source` (read only).
"""
