"""Meta-tests over every lint rule, found from the registry and the rules/ package: a new rule
cannot skip them.

* every module of verbs/lint/rules/ defines one rule, named after it (tdNNN_<its name>.py),
  and RULES lists every rule once;
* its docstring (the rule's documentation) has a summary line and the sections What it finds,
  Why it matters and Fix;
* it has FIRES and QUIET examples, and `torchdoctor lint` (verbs.lint.run, every rule selected)
  reports the rule on each FIRES example and not on any QUIET one;
* docs/lint-rules.md holds what ruledocs.page() writes from the modules now.
"""

import importlib
import os
import pkgutil

import pytest

from conftest import ROOT
from torchdoctor.verbs import lint as verb
from torchdoctor.verbs.lint import rules as R
from torchdoctor.verbs.lint.ruledocs import page

SECTIONS = ("## What it finds\n", "## Why it matters\n", "## Fix\n")


def _modules():
    return [importlib.import_module("%s.%s" % (R.__name__, m.name)) for m in pkgutil.iter_modules(R.__path__)]


def test_every_rule_module_defines_one_rule_and_the_registry_lists_it():
    listed = {r.func for r in R.RULES}
    for mod in _modules():
        defined = [v for v in vars(mod).values()
                   if callable(v) and getattr(v, "rule", None) is not None and v.__module__ == mod.__name__]
        assert len(defined) == 1, "%s defines %d rules (one module per rule)" % (mod.__name__, len(defined))
        r = defined[0].rule
        assert r.family == "lint" and defined[0] in listed, "%s is not in RULES" % r.id
        assert mod.__name__.rsplit(".", 1)[1] == "%s_%s" % (r.id.lower(), r.name.replace("-", "_")), mod.__name__
        assert r.options.get("on") in R.SUBJECTS, r.id
    assert len(listed) == len(R.RULES) == len(_modules())


@pytest.mark.parametrize("r", R.RULES, ids=[r.id for r in R.RULES])
def test_every_rule_is_documented(r):
    docs = r.docs
    assert docs.split("\n", 1)[0].strip(), "%s: the docstring's first line is its summary" % r.id
    for s in SECTIONS:
        assert s in docs, "%s: its docstring needs a %r section" % (r.id, s.strip())


def _lint(tmp_path, ex):
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)   # the project ends here: no pyproject.toml above is read
    for name, text in dict(ex.files, **{ex.file: ex.text}).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return verb.run(paths=[str(root / ex.file)], torch=ex.torch, select=["ALL"], jobs=1).findings


@pytest.mark.parametrize("r", R.RULES, ids=[r.id for r in R.RULES])
def test_every_rule_fires_on_its_examples_and_not_on_the_quiet_ones(r, tmp_path):
    mod = R.module_of(r)
    fires, quiet = getattr(mod, "FIRES", ()), getattr(mod, "QUIET", ())
    assert fires and quiet, "%s needs FIRES and QUIET examples (examples.py)" % r.id
    for i, ex in enumerate(fires):
        got = [f for f in _lint(tmp_path / ("fires%d" % i), ex) if f.code == r.id]
        assert got and not any(f.crashed for f in got), "%s does not fire on FIRES[%d]" % (r.id, i)
    for i, ex in enumerate(quiet):
        got = [f for f in _lint(tmp_path / ("quiet%d" % i), ex) if f.code == r.id]
        assert got == [], "%s fires on QUIET[%d]: %s" % (r.id, i, [f.message for f in got])


def test_the_rule_documentation_is_current():
    with open(os.path.join(ROOT, "docs", "lint-rules.md"), encoding="utf-8") as f:
        committed = f.read()
    assert page() in committed, \
        "docs/lint-rules.md is not current: run python tools/capture_examples.py --venv .venv docs/lint-rules.md"
