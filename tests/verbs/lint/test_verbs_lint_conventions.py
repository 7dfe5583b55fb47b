"""The linter conventions users bring from ruff: `# noqa: CODE`, per-file-ignores in
pyproject.toml, `--explain CODE`, and codes that never change meaning. Real files, the real
command line."""

import subprocess
import sys

import pytest

from conftest import write_file as write
from torchdoctor.verbs.lint import rules as R

PY = sys.executable
SEED = """\
    import torch

    def seed_everything(seed):
        torch.manual_seed(seed)
        torch.backends.cudnn.enabled = False{comment}
    """

# Every code published with its name: a code is never renumbered, renamed or reused (users
# write them in noqa comments, configs and CI filters). New codes are added, these stay.
PUBLISHED = {
    "TD000": "syntax-error", "TD101": "api-not-yet-added", "TD102": "api-removed",
    "TD103": "submodule-not-auto-imported", "TD104": "unknown-backends-attribute", "TD105": "setting-called",
    "TD106": "function-not-called", "TD201": "deprecated-api", "TD202": "tf32-api-mix", "TD203": "tf32-legacy-flag",
    "TD301": "cudnn-disabled-for-determinism", "TD302": "benchmark-with-deterministic",
    "TD303": "deterministic-without-cublas-config", "TD304": "benchmark-set-in-loop",
    "TD305": "seed-helper-enables-benchmark", "TD401": "companion-pins-unpaired", "TD402": "index-url-variant",
    "TD403": "no-wheel-for-python", "TD404": "cuda-image-too-old", "TD405": "torch-unpinned-beside-companion",
    "TD406": "cuda-image-driver-floor",
}


def lint(*args, cwd):
    p = subprocess.run([PY, "-m", "torchdoctor", "lint"] + list(args), capture_output=True, text=True, cwd=str(cwd),
                       timeout=120, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def codes(out):
    return [line.split()[1] for line in out.splitlines() if ": TD" in line]


@pytest.mark.parametrize("comment, reported", [
    ("", ["TD301"]),
    ("  # noqa: TD301", []),
    ("  # noqa:TD301,TD302", []),
    ("  # NOQA", []),
    ("  # noqa: TD302", ["TD301"]),   # another code: still reported
])
def test_noqa(tmp_path, comment, reported):
    write(tmp_path, "seed.py", SEED.format(comment=comment))
    rc, out, err = lint("--torch", "2.13", "seed.py", cwd=tmp_path)
    assert codes(out) == reported and rc == (1 if reported else 0), out + err


def test_per_file_ignores(tmp_path):
    write(tmp_path, "pyproject.toml", """\
        [tool.torchdoctor.lint]
        torch = "2.13"

        [tool.torchdoctor.lint.per-file-ignores]
        "tests/*" = ["TD301"]
        "conftest.py" = ["TD3"]
    """)
    for name in ("train.py", "tests/test_seed.py", "tests/sub/deep.py", "pkg/conftest.py", "pkg/tests.py"):
        write(tmp_path, name, SEED.format(comment=""))
    rc, out, err = lint(".", cwd=tmp_path)
    reported = sorted(line.split(":")[0] for line in out.splitlines() if ": TD301" in line)
    # tests/* matches below tests/ at any depth; a pattern without a slash matches the name anywhere
    assert reported == ["pkg/tests.py", "train.py"], out


def test_per_file_ignores_turns_a_rule_off_as_ignore_does(tmp_path):
    # a code turned off in a file is not run there: --show-suppressed lists no noqa hiding it
    write(tmp_path, "pyproject.toml", """\
        [tool.torchdoctor.lint]
        torch = "2.13"

        [tool.torchdoctor.lint.per-file-ignores]
        "seed.py" = ["TD301"]
    """)
    write(tmp_path, "seed.py", SEED.format(comment="  # noqa: TD301"))
    by_file = lint("--show-suppressed", "--format", "json", "seed.py", cwd=tmp_path)
    by_option = lint("--show-suppressed", "--format", "json", "--ignore", "TD301", "seed.py", cwd=tmp_path)
    assert by_file[0] == by_option[0] == 0
    assert by_file[1] == by_option[1] and "TD301" not in by_file[1], by_file


@pytest.mark.parametrize("table, said", [
    ('per-file-ignores = ["TD301"]', "must be a table of pattern = [codes]"),
    ('per-file-ignores = {"tests/*" = 3}', "per-file-ignores.tests/* must be a list of codes"),
    ('per-file-ignores = {"tests/*" = ["TD999"]}', "unknown rule code 'TD999'"),
])
def test_bad_per_file_ignores_is_one_line(tmp_path, table, said):
    write(tmp_path, "pyproject.toml", "[tool.torchdoctor.lint]\n%s\n" % table)
    write(tmp_path, "m.py", "import torch\n")
    rc, out, err = lint("m.py", cwd=tmp_path)
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1 and said in err, err


def test_explain_td301(tmp_path):
    rc, out, err = lint("--explain", "td301", cwd=tmp_path)
    assert rc == 0 and out.startswith("# TD301 `cudnn-disabled-for-determinism`")
    for section in ("## What it finds", "## Why it matters", "## Fix", "## Examples"):
        assert section in out
    assert "torch.backends.cudnn.enabled = False" in out


def test_codes_are_stable():
    now = {c: R.BY_CODE[c].name for c in R.all_codes()}
    changed = {c: (n, now.get(c)) for c, n in PUBLISHED.items() if now.get(c) != n}
    assert not changed, "published codes renamed or removed (code: (published, now)): %s" % changed
