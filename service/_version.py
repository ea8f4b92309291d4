"""The one place the version lives (pyproject reads it through hatch; the server reports it)."""

VERSION = "0.1.0"
