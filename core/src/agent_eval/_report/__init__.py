"""Reporters: one module per output format (console, JSON, JUnit, HTML, Markdown)."""
