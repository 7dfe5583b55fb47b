"""The explain engine: the matcher that finds known errors in text (a paste, a traceback,
a multi-GB log) and the cheap facts that tailor their fixes without a torch import.
Turning a match into an explanation for this machine is diagnose.explain_match."""
