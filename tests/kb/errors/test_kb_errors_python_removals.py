"""A package older than this Python: a standard-library name a newer Python removed. The failure is
run for real on this machine's Python 3.11 (inspect.getargspec, removed in 3.11) from a wheel that
pip installs; the hook's printed upgrade, run with the package named by the traceback, heals it."""

import shlex
import subprocess
import sys

import pytest

from hook_facts import facts, tailored_as, top
from torchdoctor.match.matcher import HIGH
from wheelkit import build_wheel, environ, hermetic_env, pip_venv

ENTRY = "python-stdlib-name-removed"
OLD = "import inspect\n\ndef wants_out(func):\n    return 'out' in inspect.getargspec(func).args\n"
NEW = "import inspect\n\ndef wants_out(func):\n    return 'out' in inspect.getfullargspec(func).args\n"


@pytest.mark.skipif(sys.version_info < (3, 11), reason="inspect.getargspec exists before Python 3.11")
def test_getargspec_on_3_11_is_named_and_the_printed_upgrade_heals_it(tmp_path):
    links = tmp_path / "links"
    build_wheel(links, "oldsig", "0.7", {"oldsig/__init__.py": OLD})
    build_wheel(links, "oldsig", "0.8", {"oldsig/__init__.py": NEW})
    py = pip_venv(tmp_path / "venv")
    env = environ(hermetic_env(links, no_index=True))
    subprocess.run([py, "-m", "pip", "install", "-q", "oldsig==0.7"], check=True, env=env, timeout=300)
    call = "import oldsig\nprint(oldsig.wants_out(lambda x, out=None: x))"
    failed = subprocess.run([py, "-c", call], capture_output=True, text=True, env=env, timeout=60)
    assert failed.returncode != 0
    m = top(failed.stderr)
    assert (m.id, m.confidence) == (ENTRY, HIGH), failed.stderr[-600:]
    _, t = tailored_as(ENTRY, failed.stderr, facts(exe=py, py="%d.%d.%d" % sys.version_info[:3]))
    assert "Python 3.11 removed inspect.getargspec" in t.summary
    upgrade = t.commands[0].replace("<package>", "oldsig")  # the package in the traceback's site-packages frame
    assert shlex.split(upgrade) == [py, "-m", "pip", "install", "--upgrade", "oldsig"]
    subprocess.run(shlex.split(upgrade), check=True, env=env, timeout=300)
    healed = subprocess.run([py, "-c", call], capture_output=True, text=True, env=env, timeout=60)
    assert healed.returncode == 0 and healed.stdout.strip() == "True", healed.stderr[-400:]


@pytest.mark.parametrize("text, py, want", [
    ("ModuleNotFoundError: No module named 'audioop'", "3.13.1", "pip install audioop-lts"),
    ("ModuleNotFoundError: No module named 'imghdr'", "3.13.0", "pip install standard-imghdr"),
    ("AttributeError: module 'pkgutil' has no attribute 'ImpImporter'. Did you mean: 'zipimporter'?", "3.12.3",
     "python3.11 -m venv .venv"),
    ("AttributeError: module 'configparser' has no attribute 'SafeConfigParser'. Did you mean: 'RawConfigParser'?",
     "3.12.3", "pip install --upgrade <package>"),
])
def test_the_fix_follows_what_was_removed(text, py, want):
    _, t = tailored_as(ENTRY, text, facts(py=py))
    assert any(want in c for c in t.commands), t.commands


@pytest.mark.parametrize("text, name", [
    ("ImportError: cannot import name 'getargspec' from 'inspect' (/usr/lib/python3.11/inspect.py)", "getargspec"),
    ("ModuleNotFoundError: No module named 'aifc'", "aifc"),
    ("ModuleNotFoundError: No module named 'asyncore'", "asyncore"),
])
def test_the_import_forms_and_other_removed_modules_are_read(text, name):
    m = top(text)
    assert m is not None and m.id == ENTRY and m.groups.get("name") == name


def test_an_old_setuptools_at_run_time_is_told_too():
    _, t = tailored_as(ENTRY, "AttributeError: module 'pkgutil' has no attribute 'ImpImporter'. Did you mean: "
                              "'zipimporter'?", facts(py="3.12.3"))
    assert "pip install --upgrade setuptools" in t.commands[0]


def test_an_older_python_here_means_the_failure_ran_on_a_newer_one():
    _, t = tailored_as(ENTRY, "ModuleNotFoundError: No module named 'imp'", facts(py="3.11.9"))
    assert "still has the imp module" in t.summary and "3.12 or newer" in t.summary


@pytest.mark.parametrize("text", [
    "ModuleNotFoundError: No module named 'impute'",
    "ModuleNotFoundError: No module named 'cgi_tools'",
    "AttributeError: module 'inspect' has no attribute 'signature2'",
    "AttributeError: 'Inspector' object has no attribute 'getargspec'",
    # salilab's IMP is another package: the folded pass must not read it as the imp module
    "ModuleNotFoundError: No module named 'IMP'",
])
def test_other_names_are_not_a_stdlib_removal(text):
    m = top(text)
    assert m is None or m.id != ENTRY


OLD_PY = "python-too-old-for-syntax"


@pytest.mark.parametrize("text, py, want", [
    ("    dtype: torch.dtype | None = None\nTypeError: unsupported operand type(s) for |: 'type' and 'NoneType'", "3.9.18",
     "python3.10 -m venv .venv"),
    ("    bias: torch.Tensor | None = None,\nTypeError: unsupported operand type(s) for |: 'torch._C._TensorMeta' and "
     "'NoneType'", "3.9.18", "python3.10 -m venv .venv"),
    ("  File \"/x/app.py\", line 117\n    match user_response.lower():\n          ^\nSyntaxError: invalid syntax", "3.9.12",
     "python3.10 -m venv .venv"),
    ("    def f(self) -> tuple[torch.Tensor, torch.Tensor]:\nTypeError: 'type' object is not subscriptable", "3.8.18",
     "python3.9 -m venv .venv"),
    # an f-string under Python 3.5 or 2: the caret under the string, the bare words of the old parser
    ("  File \"ctc.py\", line 64\n    modules[f'conv{name}'] = nn.Conv2d(3, 64, 3)\n                        ^\n"
     "SyntaxError: invalid syntax", "3.5.2", "python3.6 -m venv .venv"),
])
def test_an_old_python_gets_an_environment_on_the_python_the_code_needs(text, py, want):
    _, t = tailored_as(OLD_PY, text, facts(py=py))
    assert want in t.commands


def test_a_new_enough_python_here_means_another_interpreter_ran_it():
    _, t = tailored_as(OLD_PY, "TypeError: unsupported operand type(s) for |: 'type' and 'NoneType'", facts(py="3.11.7"))
    assert "ran an older Python" in t.summary
    # Python 2 behind `python` is the usual older interpreter for an f-string
    _, t = tailored_as(OLD_PY, "  File \"inference.py\", line 119\n    log = f'inference.log'\n                         ^\n"
                               "SyntaxError: invalid syntax", facts(py="3.7.16"))
    # ...or another mistake on the line: every Python prints these bare words for some (a trailing `+`)
    assert t.summary.startswith("This interpreter is Python 3.7, which has f-strings: either the failing program ran "
                                "an older Python") and "another mistake" in t.summary


@pytest.mark.parametrize("text, says", [
    # Python 2 under Python 3's keyword-only parameters (3.0) and a keyword after ** unpacking (3.5)
    ("  File \"dvb.py\", line 7\n    def monitor(stop, offset=0, city='Dresden', *, raw=False):\n"
     "                                               ^\nSyntaxError: invalid syntax", "keyword-only parameters"),
    ("  File \"core.py\", line 31\n    def _get_attribute(self, json, *keys, default=None):\n"
     "                                                ^\nSyntaxError: invalid syntax", "keyword-only parameters"),
    ("  File \"train.py\", line 49\n    trainer = Trainer(**built, data=data, log_dir=log_dir)\n"
     "                             ^\nSyntaxError: invalid syntax", "keyword arguments after `**` unpacking"),
])
def test_python_3_parameter_syntax_under_python_2_is_a_possibility(text, says):
    m, t = tailored_as(OLD_PY, text, facts(py="3.11.7"))
    assert m.confidence == "possible"
    assert "which has %s" % says in t.summary and "either the failing program ran an older Python" in t.summary
    _, t = tailored_as(OLD_PY, text, facts(py="2.7.18"))
    assert "python3" in " ".join(t.commands)


def test_an_f_string_beside_the_bare_words_is_only_a_possibility():
    m = top("  File \"fs2.py\", line 2\n    log = f\"{os.sep}run.log\" +\n                           ^\n"
            "SyntaxError: invalid syntax")
    assert m.id == OLD_PY and m.confidence == "possible"


@pytest.mark.parametrize("text", [
    # a user's own operands, a match call, a subscript of an instance, a SyntaxError elsewhere
    "TypeError: unsupported operand type(s) for |: 'str' and 'NoneType'",
    "TypeError: unsupported operand type(s) for |: 'int' and 'str'",
    "    match = re.match(pattern, line)\nSyntaxError: invalid syntax",
    "TypeError: 'NoneType' object is not subscriptable",
    "    x = data[0]\nTypeError: 'type' object is not subscriptable",
    # a builtin generic on the line, but another subscript raised (a user's class)
    "    x: list[int] = MyConfig[0]\nTypeError: 'type' object is not subscriptable",
    # a match line in one frame, another SyntaxError (Python 2's print) below it
    "    match x:\n  File \"a.py\", line 3\n    print 'hi'\n              ^\nSyntaxError: invalid syntax",
    # 3.10 and later name the mistake after the same words; an f-string's own error says so
    "  File \"a.py\", line 3\n    print(f\"{a}\" b)\n          ^^^^^^^\nSyntaxError: invalid syntax. Perhaps you forgot a comma?",
    "  File \"a.py\", line 3\n    print(f\"{a b}\")\n          ^\nSyntaxError: f-string: invalid syntax",
    # a plain string (no f prefix) on the line, an identifier ending in f before a string
    "  File \"a.py\", line 3\n    print('x' 'y' z)\n                  ^\nSyntaxError: invalid syntax",
    "  File \"a.py\", line 3\n    elif'x' in y z:\n               ^\nSyntaxError: invalid syntax",
    # ** unpacking alone, and a plain keyword call: nothing Python 2 refuses on the line
    "  File \"a.py\", line 3\n    foo(**kw)\n    ^\nSyntaxError: invalid syntax",
    "  File \"a.py\", line 3\n    foo(a, b=1) c\n                ^\nSyntaxError: invalid syntax",
])
def test_other_type_and_syntax_errors_are_not_an_old_python(text):
    m = top(text)
    assert m is None or m.id != OLD_PY
