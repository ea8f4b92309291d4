"""Tools: the registry and one module per domain (each exposes `tools() -> list[ToolSpec]`)."""

from __future__ import annotations

from service.tools.registry import Registry


def build_registry() -> Registry:
    from service.tools import (
        admin,
        admin_audit,
        admin_vaults,
        graph,
        index,
        moves,
        notes,
        notes_bulk,
        notes_write,
        properties,
        search,
        search_meta,
        search_router,
        security,
        sessions,
    )

    domains = (
        notes,
        notes_write,
        notes_bulk,
        graph,
        moves,
        properties,
        search,
        search_meta,
        search_router,
        index,
        security,
        admin,
        admin_audit,
        admin_vaults,
        sessions,
    )
    registry = Registry()
    for domain in domains:
        for spec in domain.tools():
            registry.add(spec)
    from service.tools import facade

    for spec in facade.tools(registry):  # built from the catalog above (one meta-tool per domain)
        registry.add(spec)
    return registry
