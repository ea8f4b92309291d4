"""Dataview: the query language of the Obsidian Dataview plugin, evaluated over the index.

`fields` (inline fields and list items, run by the indexer), `values` (the value types and
their parsing, order and JSON), `syntax` and `query` (DQL lexer and parsers with positions),
`evaluate` and `ops` (expressions compiled to closures, operators, the step/time budget),
`functions`, `functions_lists` and `datefmt` (the function library), `items` and `pages`
(pages and tasks built from the index, cached per vault), `execute` (running a query).
"""
