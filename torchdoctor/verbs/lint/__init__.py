"""`torchdoctor lint`: a version-aware scan of code, notebooks and environment files for
torch.backends API drift and settings pitfalls.

`run(Options(...))` (or `run(paths=[...], torch="2.4")`) is the verb: what the command line
(cli/lint.py), MCP and the Python API call; it returns a command.Result the renderers of
output.py print. Importing this package is cheap (nothing is loaded until a command runs);
the pieces:

* command.py  - run: config, target, files, scan, --fix and the lint after it;
* rules/      - every rule, one module each with its documentation and examples, and RULES,
  the registry (rules/__init__.py says how a rule is written and called);
* located.py  - what a rule returns: the model's Finding at its Place;
* history.py  - the torch API history (data/api_history.json and kb/data/compat.json);
* target.py   - which torch releases the code must work with;
* declared.py - the target a project's files declare: which pin decides, which disagree;
* pyscan.py   - the walker over a Python file's syntax tree, which calls the rules: what a
  guard is (pyguards), what it hands them (uses.py: one use; pyevents.py: the file's
  settings), what it records (pyrecords); pysource.py reads a file's text and parses it a
  chunk of statements at a time; ipython.py turns a notebook cell's IPython syntax into Python;
  nbraw.py places a cell's line in the raw .ipynb text (for SARIF);
* envfiles.py - requirements, pyproject, setup.cfg, environment.yml, Dockerfiles: the Pin
  and Group they are read into (envreaders.py and envpins.py read them, envcheck.py is what
  the environment rules ask of them);
* stdin.py    - `lint -`: the source on standard input, what it stands for and what is refused;
* walk.py (.gitignore-aware discovery), config.py ([tool.torchdoctor.lint]), lintfile.py (one
  file), runner.py (the parallel scan), output.py (text, JSON, SARIF, GitHub), examples.py (a
  rule's examples), fix.py (LibCST rewrites), inplace.py (what --fix may rewrite, and the
  write that cannot damage a file).
"""


def run(opts=None, **options):
    """Lint: `run(Options(paths=[...]))` or `run(paths=[...], torch="2.4", ...)`; see command.run."""
    from .command import Options, run as run_options
    return run_options(opts if opts is not None else Options(**options))
