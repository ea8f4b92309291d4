"""Storage: cache.db (one writer, WAL readers), forward-only migrations."""
