"""The settings knowledge (tune/data/settings.json) against its sources, the README, and
the worker; and the shape of the package: the worker is self-contained and torch never
loads in torchdoctor's own process."""

import ast
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import REFERENCE, ROOT
from torchdoctor.verbs.tune import worker
from torchdoctor.verbs.tune.render import knowledge

API = os.path.join(REFERENCE, "backends_api.json")


def test_every_family_the_worker_measures_is_explained_with_a_doc_link():
    info = knowledge()
    src = open(worker.__file__).read()
    families = set(re.findall(r'Setting\("[^"]*", "([a-z0-9_.]+)"', src))
    families |= set(re.findall(r'"tf32\." \+ what', src) and ["tf32.matmul", "tf32.conv"])
    families -= {"default", "strict"}
    assert families and families <= set(info), families - set(info)
    for fam, k in info.items():
        assert k["docs"].startswith("https://"), fam
        sentences = [x for x in re.split(r"(?<=[.!?])\s+", k["meaning"].strip()) if x]
        assert len(sentences) == 2, (fam, sentences)


@pytest.mark.skipif(not os.path.exists(API), reason="../shared/reference (beside the checkout) is absent: "
                                                    "nothing to cross-check the API history against")
def test_api_history_is_copied_from_the_reference():
    with open(API) as fh:
        curated = json.load(fh)["curated"]
    seen = 0
    for fam, k in knowledge().items():
        for api in k["api"]:
            if api["source"] != "shared/reference/backends_api.json":
                assert api["source"].startswith("https://"), (fam, api)
                continue
            ref = curated[api["name"]]
            assert str(ref["added"]).startswith(api["added"]), (api["name"], ref["added"], api["added"])
            if "deprecated" in api:
                assert str(ref["deprecated"]).startswith(api["deprecated"]), api["name"]
            seen += 1
    assert seen >= 10


def test_the_docs_explain_every_setting_with_its_link():
    page = open(os.path.join(ROOT, "docs", "tune.md"), encoding="utf-8").read()
    section = page.split("## The settings", 1)[1].split("\n## ", 1)[0]
    for fam, k in knowledge().items():
        assert k["docs"] in section, "docs/tune.md's settings table lacks the doc link of %s" % fam


def test_the_worker_is_python_3_8_and_imports_only_the_standard_library_and_torch():
    # The worker runs under whatever interpreter --python names (3.8+): its syntax must parse as 3.8.
    tree = ast.parse(open(worker.__file__).read(), feature_version=(3, 8))
    mods = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "the worker runs as a script: no relative imports"
            mods.add(node.module.split(".")[0])
    std = set(getattr(sys, "stdlib_module_names", ())) or {"json", "os", "random", "sys", "time", "traceback",
                                                            "importlib", "contextlib", "platform", "faulthandler"}
    assert mods - std == {"torch"}, mods - std


def test_torch_never_loads_in_the_doctors_process_and_cli_start_up_stays_light():
    code = ("import sys, torchdoctor.cli\n"
            "heavy = [m for m in ('torchdoctor.verbs.tune.runner', 'torchdoctor.verbs.tune.analysis', 'torchdoctor.verbs.tune.numbers',"
            " 'torchdoctor.verbs.tune.recommend', 'torchdoctor.verbs.tune.run_findings', 'torchdoctor.verbs.tune.worker')"
            " if m in sys.modules]\n"
            "assert not heavy, heavy\n"
            "from torchdoctor.verbs.tune import api\n"
            "from torchdoctor.verbs.tune.runner import TuneOptions\n"
            "r = api.run(TuneOptions(python='/nonexistent/python', budget=5))\n"
            "assert 'torch' not in sys.modules\n"
            "print([f['id'] for f in r['findings']])\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "tune-python-failed" in p.stdout
