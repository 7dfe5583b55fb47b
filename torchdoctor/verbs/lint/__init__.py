"""`torchdoctor lint`: a version-aware scan of code, notebooks and environment files for
torch.backends API drift and settings pitfalls.

Importing this package is cheap (nothing is loaded until a command runs); the pieces:
rules.py (the rule table and API history, data in data/rules.json), target.py (which torch
releases the code must work with), pyscan.py (the Python rules, on ast: the walker;
pyguards.py, pyapi.py, pyrecords.py and pysettings.py hold what counts as a guard, the
API-history rules, what the walker records and the settings rules; pysource.py reads a file's
text and parses it a chunk of statements at a time; ipython.py turns a notebook cell's IPython
syntax into Python), envfiles.py
(requirements, pyproject, setup.cfg, environment.yml, Dockerfiles: the Pin and Group they
are read into; envreaders.py and envpins.py read them, envrules.py holds the TD4xx rules),
walk.py (.gitignore-aware discovery), lintfile.py (one file), runner.py (the parallel
scan), output.py (text, JSON, SARIF, GitHub), fix.py (LibCST rewrites), inplace.py (what
--fix may rewrite, and the write that cannot damage a file); the click command is cli/lint.py.
"""
