"""Policy: what makes one daemon safe to share — idempotent retries, rate limits, human
confirmation of risky calls. Stores and algorithms live here; the dispatch layers that apply
them are in `service.dispatch` (precheck, idempotency, throttle, confirm)."""
