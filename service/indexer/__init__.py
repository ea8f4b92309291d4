"""The vault index: rows from parsed notes, the per-vault runner (reconcile + incremental), the watcher."""
