"""Dates as Obsidian and its plugins write them: Moment.js formats, periodic-note periods and
settings, Tasks recurrence rules. Pure functions; nothing here reads files."""
