"""tools/check_releases.py (the maintainer's PyPI check) against a fake pip: no network.

The fake pip is a small script that answers `pip --version`, `pip index versions` and
`pip install --dry-run --report` from a JSON description of a PyPI, and logs every call. The
tables checked are the real compat.json cut down to torch 2.14 and 2.15, so a PyPI that agrees
with them gives a clean run, and each kind of disagreement is reported.
"""

import json
import os
import sys
import textwrap

import pytest

from conftest import load_tool

from torchdoctor.kb import compat_rows

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SCRIPT = os.path.join(ROOT, "tools", "check_releases.py")


@pytest.fixture(scope="module")
def tool():
    return load_tool("check_releases")


FAKE_PIP = textwrap.dedent("""\
    import json, os, sys

    def answer(args, env, pypi):
        # (exit status, stdout, stderr, log record) of a pip call on the fake PyPI
        args = list(args)
        index = None
        if "--index-url" in args:
            i = args.index("--index-url")
            index = args[i + 1]
            del args[i:i + 2]
        record = {"args": args, "index": index, "PIP_CONFIG_FILE": env.get("PIP_CONFIG_FILE"),
                  "PIP_FIND_LINKS": env.get("PIP_FIND_LINKS")}

        def opt(name):
            return args[args.index(name) + 1] if name in args else None
        if args == ["--version"]:
            return 0, "pip 99.0 (fake)", "", record
        if args[:2] == ["index", "versions"]:
            tag = opt("--python-version").rsplit(".", 1)[0] + ("t" if (opt("--abi") or "").endswith("t") else "")
            vs = [v for v, pys in pypi["index"].get(args[2], {}).items() if tag in pys or pys == "any"]
            if not vs:
                return 1, "", "ERROR: No matching distribution found for " + args[2], record
            return 0, "%s (%s)\\nAvailable versions: %s" % (args[2], vs[0], ", ".join(vs)), "", record
        if args[0] == "install":
            name, version = args[-1].split("===")
            meta = pypi["meta"].get("%s==%s" % (name, version))
            if meta is None:
                return 1, "", "ERROR: Could not find a version that satisfies the requirement", record
            meta = dict({"name": name, "version": version}, **meta)
            with open(opt("--report"), "w") as f:
                json.dump({"install": [{"metadata": meta, "download_info": {"url": "https://files.example/" + name}}]}, f)
            return 0, "", "", record
        return 3, "", "unknown command", record

    if __name__ == "__main__":
        with open(os.environ["FAKE_PYPI"]) as f:
            rc, out, err, record = answer(sys.argv[1:], os.environ, json.load(f))
        with open(os.environ["FAKE_PIP_LOG"], "a") as log:
            log.write(json.dumps(record) + "\\n")
        print(out)
        print(err, file=sys.stderr)
        sys.exit(rc)
    """)
_NS = {"__name__": "fake_pip"}
exec(compile(FAKE_PIP, "fake_pip.py", "exec"), _NS)

PY_214 = ["3.10", "3.11", "3.12", "3.13", "3.14", "3.14t"]
PY_215 = ["3.11", "3.12", "3.13", "3.14", "3.15", "3.14t", "3.15t"]
LINUX = '; platform_system == "Linux"'


def torch_meta(toolkit, cudnn, nccl, triton, requires_python=">=3.10"):
    return {"requires_python": requires_python, "requires_dist": [
        "filelock", "cuda-toolkit[cudart,cublas]==%s%s" % (toolkit, LINUX),
        "nvidia-cudnn-cu13==%s%s" % (cudnn, LINUX), "nvidia-nccl-cu13==%s%s" % (nccl, LINUX),
        'triton%s; platform_system == "Linux" and python_version < "3.16"' % triton,
        'pyyaml; extra == "pyyaml"']}


def agreeing_pypi():
    """A PyPI that says exactly what the tables of 2.14 and 2.15 say."""
    return {
        "index": {
            "torch": {"2.15.0": PY_215, "2.14.1": PY_214, "2.14.0": PY_214},
            "torchvision": {"0.29.2": "any", "0.29.1": "any", "0.29.0": ["3.10", "3.12", "3.14"]},
            "torchaudio": {"2.11.1": "any", "2.11.0": "any"},
            "cuda-toolkit": {"13.4.3": "any", "13.5.0": "any", "13.0.3.0": "any"},
        },
        "meta": {
            "torch==2.14.0": torch_meta("13.0.3", "9.24.0.43", "2.30.7", "~=3.8.0"),
            "torch==2.14.1": torch_meta("13.0.3", "9.24.0.43", "2.30.7", "~=3.8.0"),
            "torch==2.15.0": torch_meta("13.2.2", "9.26.0.51", "2.30.7", "~=3.9.0", ">=3.11"),
            "torchvision==0.29.0": {"requires_dist": ["numpy", "torch==2.14.0"]},
            "torchvision==0.29.1": {"requires_dist": ["numpy", "torch>=2.14.0"]},
            "torchvision==0.29.2": {"requires_dist": ["numpy", "torch>=2.14.0"]},
            "torchaudio==2.11.0": {"requires_dist": []},
            "torchaudio==2.11.1": {"requires_dist": ["torch>=2.11"]},
        },
    }


@pytest.fixture
def tables(tmp_path):
    data = compat_rows.load()
    keep = ("2.14", "2.15")
    for section in ("releases", "arch"):
        data[section] = {m: v for m, v in data[section].items() if m in keep}
    path = tmp_path / "compat.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def fake(tmp_path, monkeypatch):
    pip = tmp_path / "fake_pip.py"
    pip.write_text(FAKE_PIP)
    log = tmp_path / "pip.log"
    monkeypatch.setenv("FAKE_PIP_LOG", str(log))
    monkeypatch.setenv("FAKE_PYPI", str(tmp_path / "pypi.json"))
    monkeypatch.setenv("PIP_FIND_LINKS", str(tmp_path / "local-wheels"))  # must not reach pip

    class Fake:
        records = []

        def run(self, tool, capsys, tables, pypi, *extra, subprocess=False):
            """main() on the fake PyPI: in this process (fast), or through the fake pip executable."""
            (tmp_path / "pypi.json").write_text(json.dumps(pypi))
            argv = ["--data", str(tables)] + list(extra)
            if subprocess:
                rc = tool.main(argv + ["--pip", "%s %s" % (sys.executable, pip), "--jobs", "4"])
                self.records = [json.loads(line) for line in log.read_text().splitlines()]
            else:
                def run(args):
                    rc, out, err, record = _NS["answer"](args, {}, pypi)
                    self.records.append(record)
                    return rc, out, err
                self.records = []
                rc = tool.main(argv, run=run)
            out, err = capsys.readouterr()
            return rc, out, err

        def calls(self):
            return self.records
    return Fake()


def _section(out, kind):
    lines, on = [], False
    for line in out.splitlines():
        if line.startswith(kind + " ("):
            on = True
        elif on and line.startswith("  "):
            lines.append(line.strip())
        elif on:
            break
    return lines


def test_a_pypi_that_agrees_gives_a_clean_run(tool, fake, tables, capsys):
    rc, out, err = fake.run(tool, capsys, tables, agreeing_pypi())
    assert rc == 0, out + err
    assert _section(out, "LACKS") == [] and _section(out, "CONTRADICTS") == [] and _section(out, "INCOMPLETE") == []
    assert "0 lacking, 0 contradicting, 0 incomplete rows" in out
    assert "torchaudio 2.11.0 declares no torch requirement; the tables give the documented range >=2.11" in out


def test_pip_asks_pypi_alone_for_metadata_only(tool, fake, tables, capsys):
    rc, out, err = fake.run(tool, capsys, tables, agreeing_pypi(), subprocess=True)
    assert rc == 0, out + err
    calls = fake.calls()
    asks = [c for c in calls if c["args"][:1] in (["index"], ["install"])]
    assert asks and all(c["index"] == "https://pypi.org/simple" for c in asks)
    assert all(c["PIP_CONFIG_FILE"] == os.devnull and c["PIP_FIND_LINKS"] is None for c in calls)
    installs = [c["args"] for c in asks if c["args"][0] == "install"]
    assert {a[-1] for a in installs} >= {"torch===2.14.1", "torchvision===0.29.0", "torchaudio===2.11.1"}
    for a in installs:
        assert {"--dry-run", "--no-deps", "--use-feature=fast-deps", "--ignore-installed"} <= set(a)
        assert a[a.index("--platform") + 1] == "manylinux_2_28_x86_64"
    # free-threaded wheels are asked for with their ABI
    assert any(c["args"][:3] == ["index", "versions", "torch"] and "cp314t" in c["args"] for c in asks)


def test_what_the_tables_lack_or_contradict(tool, fake, tables, capsys):
    pypi = agreeing_pypi()
    pypi["index"]["torch"]["2.16.0"] = PY_215
    pypi["meta"]["torch==2.16.0"] = torch_meta("13.4.1", "9.28.0.42", "2.31.2", "~=3.10.0", ">=3.11")
    pypi["index"]["torch"]["2.14.1"] = ["3.10", "3.11", "3.12", "3.13", "3.14t"]  # no cp314
    pypi["index"]["torch"]["2.14.0"] = PY_214 + ["3.13t"]
    pypi["meta"]["torch==2.15.0"] = torch_meta("13.4.1", "9.26.0.51", "2.30.7", "~=3.9.0", ">=3.11")
    pypi["meta"]["torch==2.14.0"] = torch_meta("13.0.3", "9.24.0.43", "2.30.7", "~=3.8.1")
    pypi["index"]["torchvision"]["0.30.0"] = "any"
    pypi["meta"]["torchvision==0.30.0"] = {"requires_dist": ["torch==2.16.0"]}
    pypi["meta"]["torchvision==0.29.0"] = {"requires_dist": ["torch==2.14.1"]}
    pypi["index"]["torchaudio"]["2.12.0"] = "any"
    pypi["meta"]["torchaudio==2.12.0"] = {"requires_dist": ["torch>=2.12"]}
    pypi["index"]["cuda-toolkit"]["13.6.0"] = "any"
    rc, out, err = fake.run(tool, capsys, tables, pypi)
    assert rc == 1, out + err
    lacks, contradicts = _section(out, "LACKS"), _section(out, "CONTRADICTS")
    assert "torch 2.16.0 is on PyPI; the tables have no 2.16 release row" in lacks
    assert "torch 2.14.0: PyPI has Linux x86_64 wheels for Python 3.13t, the tables list " \
           "['3.10', '3.11', '3.12', '3.13', '3.14'] (+['3.14t'])" in lacks
    assert "torchvision 0.30.0 pins torch==2.16.0, a torch release the tables do not have" in lacks
    assert "torchaudio 2.12.0 is on PyPI; the tables neither pair it with a torch patch nor give its range" in lacks
    assert "torchaudio 2.12.0 requires torch>=2.12; the tables have neither a pair nor companions.torchaudio_ranges entry" \
        in lacks
    assert "torchaudio: the newest on PyPI is 2.12.0, the tables say 2.11.1" in lacks
    assert "CUDA 13.6: cuda-toolkit 13.6.0 is on PyPI; the driver table has no 13.6 row" in lacks
    assert "torch 2.14.1: the tables list Python 3.14, PyPI has no Linux x86_64 wheel for it" in contradicts
    assert "torch 2.15.0: PyPI wheel pins CUDA 13.4.1 (cu134), the tables say default_cuda cu132" in contradicts
    assert "torch 2.15.0: the PyPI default cu134 is not among its variants ['cu132']" in contradicts
    assert "torch 2.14.0: PyPI wheel requires triton~=3.8.1, the tables say ~=3.8.0" in contradicts
    assert "torchvision 0.29.0 pins torch==2.14.1, but the tables pair torch 2.14.1 with torchvision 0.29.1" \
        in contradicts
    assert not [line for line in lacks + contradicts if "2.14.1:" in line and "Python" not in line]


def test_unverified_facts_pypi_confirms_are_listed_apart(tool, fake, tables, capsys):
    data = json.loads(tables.read_text())
    data["releases"]["2.14"]["unverified"]["default_cuda"] = "not read"
    data["releases"]["2.14"]["torchvision_unverified"] = {"2.14.0": data["releases"]["2.14"]["torchvision"].pop("2.14.0")}
    tables.write_text(json.dumps(data))
    rc, out, err = fake.run(tool, capsys, tables, agreeing_pypi())
    confirms = _section(out, "CONFIRMS")
    assert "torch 2.14.1: PyPI wheel pins CUDA 13.0.3: default_cuda cu130 can be marked verified" in confirms
    assert "torchvision 0.29.0 pins torch==2.14.0: the unverified pair 2.14.0 -> 0.29.0 is confirmed by PyPI metadata" \
        in confirms
    assert rc == 0  # confirmations are news, not failures


def test_incomplete_rows_fail_the_run(tool, fake, tables, capsys):
    data = json.loads(tables.read_text())
    del data["arch"]["2.15"]["cu132"]
    tables.write_text(json.dumps(data))
    rc, out, err = fake.run(tool, capsys, tables, agreeing_pypi())
    assert rc == 1
    assert _section(out, "INCOMPLETE") == [
        "2.15: no arch list for cu132 (an entry, verified or 'verified': false with a note)"]


def test_quick_reads_fewer_wheels(tool, fake, tables, capsys):
    fake.run(tool, capsys, tables, agreeing_pypi(), "--quick")
    read = {c["args"][-1] for c in fake.calls() if c["args"][0] == "install"}
    assert "torch===2.14.1" in read and "torch===2.14.0" not in read


def test_a_local_build_cannot_stand_in(tool, fake, tables, capsys):
    pypi = agreeing_pypi()
    pypi["meta"]["torch==2.14.1"]["version"] = "2.14.1+cpu"
    rc, out, err = fake.run(tool, capsys, tables, pypi)
    assert rc == 2 and "resolved torch===2.14.1 to 2.14.1+cpu" in err and "Traceback" not in err


def test_pip_failures_are_one_line_errors(tool, fake, tables, capsys, tmp_path):
    pypi = agreeing_pypi()
    del pypi["meta"]["torch==2.15.0"]
    rc, out, err = fake.run(tool, capsys, tables, pypi)
    assert rc == 2 and err.startswith("check_releases: error: pip could not read the metadata of torch 2.15.0")
    assert "Traceback" not in err
    rc = tool.main(["--pip", "/nonexistent/pip", "--data", str(tables)])
    out, err = capsys.readouterr()
    assert rc == 2 and err.startswith("check_releases: error: pip does not run") and err.count("\n") == 1
    rc = tool.main(["--pip", "/nonexistent/pip", "--data", str(tmp_path / "missing.json")])
    out, err = capsys.readouterr()
    assert rc == 2 and err.startswith("check_releases: error: cannot read")


def test_reading_pins(tool):
    meta = torch_meta("13.2.2", "9.26.0.51", "2.30.7", "~=3.9.0")
    assert tool.torch_pins(meta, "3.12") == {"default_cuda": "cu132", "toolkit": "13.2.2", "cudnn": "9.26.0.51",
                                              "nccl": "2.30.7", "triton": "~=3.9.0"}
    assert tool.torch_pins(meta, "3.16")["triton"] is None  # its marker excludes 3.16
    old = {"requires_dist": ['nvidia-cuda-runtime-cu12 (==12.1.105) ; platform_system == "Linux" and '
                             'platform_machine == "x86_64"', "triton (==2.1.0)"]}
    assert tool.torch_pins(old, "3.11")["default_cuda"] == "cu121"
    assert tool.torch_pins({"requires_dist": ["typing-extensions"]}, "3.9")["default_cuda"] is None
    assert tool.torch_requirement({"requires_dist": ["torch (==2.1.0)"]}, "3.11") == "==2.1.0"
    assert tool.torch_requirement({"requires_dist": ["numpy"]}, "3.11") is None


def test_per_patch_python_lists_are_read(tool, fake, tables, capsys):
    data = json.loads(tables.read_text())
    data["releases"]["2.14"]["python_experimental_by_patch"] = {"2.14.1": []}  # as if 2.14.1 had no cp314t
    tables.write_text(json.dumps(data))
    pypi = agreeing_pypi()
    rc, out, err = fake.run(tool, capsys, tables, pypi)
    assert "torch 2.14.1: PyPI has Linux x86_64 wheels for Python 3.14t, the tables list " \
           "['3.10', '3.11', '3.12', '3.13', '3.14']" in _section(out, "LACKS")
    pypi["index"]["torch"]["2.14.1"] = PY_214[:-1]
    rc, out, err = fake.run(tool, capsys, tables, pypi)
    assert rc == 0 and "2.14.1" not in out


def test_an_unreachable_index_is_an_error_not_an_empty_pypi(tool, fake, tables, capsys):
    empty = {"index": {}, "meta": {}}
    rc, out, err = fake.run(tool, capsys, tables, empty)
    assert rc == 2 and "pip found no torch release at all on the index" in err

    def offline(args):
        if args == ["--version"]:
            return 0, "pip 99.0", ""
        return 1, "", ("WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after "
                       "connection broken by 'NewConnectionError(...)': /simple/torch/\n"
                       "ERROR: No matching distribution found for torch")
    rc = tool.main(["--data", str(tables)], run=offline)
    out, err = capsys.readouterr()
    assert rc == 2 and err.startswith("check_releases: error: pip cannot reach the index")
