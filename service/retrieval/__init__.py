"""Retrieval: the non-semantic query engines over the index tables of migration 0002.

Modules are pure query code (synchronous functions over a raw SQLite connection, run in a
reader's thread via `Database.run_read`) and know nothing about MCP; `service.tools.search`
turns them into tools. Read permission is a `can_read(path)` callable applied to every
candidate before any limit, count or page is computed. `fusion` merges the rankings of hybrid
search; `conditions` reads search_notes' tag and property conditions (no SQL).
"""
