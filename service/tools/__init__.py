"""Tools: what a client can call, one package per domain.

- `spec.py`: the `ToolSpec` record every tool is declared with; `models.py`: shared input and
  output shapes; `context.py`: what a handler sees (`ToolContext`).
- `registry.py`: the `Registry`, the one `DOMAINS` tuple and `build_registry`.
- one package per domain, named as clients see it in the facade's `domain` mode: `notes/`,
  `graph/`, `properties/`, `search/`, `index/`, `admin/`, `sessions/`, `facade/`. Each
  package's `__init__` lists its tools and the tables they touch, and exposes `TOOLS`.
- helpers several domains share: `search_common.py` (index reads: scoping, running queries off
  the loop, dropping deleted notes), `graph_common.py` (note items, line changes, waiting for a
  complete index), `change_pages.py` (paging the reports of vault-wide edits) and
  `prechecks.py` (the precheck hooks of delete_note and reset_vault_cache).
"""
