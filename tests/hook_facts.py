"""The facts a tailoring hook sees for a venv at /home/u/venv (Linux unless `system` says
otherwise), as explain's cheap facts would read them; keyword sections add or replace parts.
Shared by the hook tests of tests/areas/ and the known-error tests of tests/kb/errors/."""

from torchdoctor.areas.registry import all_hooks
from torchdoctor.gather.target import REPORTED_RULES
from torchdoctor.diagnose import explain_match
from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import Facts, absent

SITE = "/home/u/venv/lib/python3.11/site-packages"


def facts(torch=None, py="3.11.7", exe="/home/u/venv/bin/python", bits=64, machine="x86_64",
          system="Linux", packages=None, **sections):
    installed = {}
    if torch:
        installed["torch"] = {"version": torch, "location": SITE}
    installed.update(packages or {})
    data = {"python": {"version": py, "executable": exe, "bits": bits, "machine": machine,
                       "platform": {"Linux": "linux", "Windows": "win32", "Darwin": "darwin"}.get(system, "linux"),
                       "prefix": "/home/u/venv", "conda": False, "sys_path": ["", SITE]},
            "os": {"system": system, "machine": machine},
            "packages": {"installed": installed, "reported": REPORTED_RULES},
            "driver": {"present": False, "driver_version": absent("no driver")}}
    for k, v in sections.items():
        if isinstance(v, dict) and isinstance(data.get(k), dict):
            data[k].update(v)
        else:
            data[k] = v
    return Facts(data)


def explain(text, want, f):
    """The explanation of `text`, which must land on the entry `want` first, with its tailoring
    hook run on the facts `f` and not failing."""
    found = match_text(text)
    assert found and found[0].id == want, [m.id for m in found]
    e = explain_match(found[0], f)
    assert e.hook_error is None, e.hook_error
    return e


def top(text):
    """The first match of `text`, or None."""
    found = match_text(text)
    return found[0] if found else None


def tailored_as(want, text, f=None):
    """(match, what its tailoring hook says) for `text`, which must land on the entry `want` first;
    the hook runs on the facts `f` (a Linux venv when None)."""
    found = match_text(text)
    assert found and found[0].id == want, [m.id for m in found]
    return found[0], all_hooks()[found[0].entry.tailor](found[0], f if f is not None else facts())


def failing_in_venv(tmp_path, requirement, code, want):
    """A venv with `requirement` (one, or a list) from this machine's pip, where `code` fails; (its python, what
    `want`'s hook says about the failure on that venv's own facts). Skips where pip cannot install."""
    import subprocess

    import pytest

    from torchdoctor.gather.light import light_facts
    from torchdoctor.match.matcher import HIGH
    from wheelkit import pip_venv

    wanted = [requirement] if isinstance(requirement, str) else list(requirement)
    py = pip_venv(tmp_path / "venv")
    done = subprocess.run([py, "-m", "pip", "install", "-q"] + wanted, capture_output=True, text=True,
                          timeout=900)
    if done.returncode != 0:
        pytest.skip("pip could not install %s here: %s" % (" ".join(wanted), done.stderr.strip()[-300:]))
    failed = subprocess.run([py, "-c", code], capture_output=True, text=True, timeout=300)
    assert failed.returncode != 0
    m, t = tailored_as(want, failed.stderr, light_facts(py))
    assert m.confidence == HIGH, failed.stderr[-600:]
    return py, t


def venv_with(tmp_path, *requirements):
    """A venv with `requirements` from this machine's pip: (its python, run, the environment the
    runs and printed commands get). Skips where pip cannot install them."""
    import os
    import subprocess

    import pytest

    from wheelkit import pip_venv

    py = pip_venv(tmp_path / "venv")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the venv's own packages only

    def run(*args, timeout=300):
        return subprocess.run(list(args), capture_output=True, text=True, timeout=timeout, env=env)

    if run(py, "-m", "pip", "install", "-q", *requirements, timeout=900).returncode != 0:
        pytest.skip("pip could not install %s here" % " ".join(requirements))
    return py, run, env


def run_fix_command(match, needle, py, env, cwd=None):
    """Run the first of `match`'s entry fix commands that holds `needle`, as printed but with the venv's
    python `py` in place of the leading `python`/`python3`; its finished process, which must succeed."""
    import re
    import subprocess

    command = next(c for c in match.entry.fix["commands"] if needle in c)
    command = re.sub(r"^python3? ", lambda _: py + " ", command)
    done = subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True, timeout=900, env=env)
    assert done.returncode == 0, (command, done.stderr[-600:])
    return done


def pyproject(name, version, packages=None):
    """A pyproject.toml built by setuptools for `name` at `version` (its package folders listed, or found)."""
    text = ('[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n'
            '[project]\nname = "%s"\nversion = "%s"\n' % (name, version))
    if packages:
        text += "[tool.setuptools]\npackages = [%s]\n" % ", ".join('"%s"' % p for p in packages)
    return text


def pkg_facts(torch=None, **versions):
    """facts() with these distributions installed at these versions (keyword: PEP 503 name)."""
    return facts(torch=torch, packages={n: {"version": v} for n, v in versions.items()})


def hits(text):
    """(id, confidence) of every match of `text`, best first."""
    return [(m.id, m.confidence) for m in match_text(text)]

