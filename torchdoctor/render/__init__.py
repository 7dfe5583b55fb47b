"""Renderers: text for terminals, Markdown for issues, JSON for machines."""
