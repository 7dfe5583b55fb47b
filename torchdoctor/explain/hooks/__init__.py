"""Tailoring hooks, one module per area; each registers with @tailor.hook."""
