"""Facts from what users paste into issues: ``python -m torch.utils.collect_env`` of every era
and the issue template's checklist."""
