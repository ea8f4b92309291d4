"""Observability: logging, metrics, tracing, audit."""
