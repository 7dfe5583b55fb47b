"""Gathering facts, every way torchdoctor does it: the probe child of the target interpreter
(probe, target, proc, system, driver), the cheap facts explain reads (light), a running
program's own torch (live), what only a bug report carries (extras), which interpreter the
user means (interpreter), and a pasted collect_env (paste)."""
