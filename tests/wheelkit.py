"""Real wheels, real virtual environments and a real pip with a configuration of the test's own.

`build_wheel` writes a wheel file that pip installs like any other; `fake_torch_wheel` packs
tests/fakes.fake_torch into one. `pip_venv` makes a virtual environment with pip (ensurepip: no
network). `hermetic_pip` gives pip a configuration made only of environment variables (every
PIP_* of the machine dropped, config files off): find-links in a folder of the test and an index
URL that refuses connections at once, which is how an unreachable index looks to pip.
"""

import base64
import csv
import hashlib
import io
import os
import re
import subprocess
import sys
import zipfile
from typing import Dict, Iterable, Optional

import fakes

UNREACHABLE = "http://127.0.0.1:9/simple"  # the discard port: connection refused


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_wheel(outdir, name: str, version: str, files: Dict[str, str], requires: Iterable[str] = (),
                tag: str = "py3-none-any") -> str:
    """A wheel NAME-VERSION-TAG.whl in OUTDIR holding `files` (path -> text)."""
    os.makedirs(str(outdir), exist_ok=True)
    dist = re.sub(r"[-_.]+", "_", name)
    info = "%s-%s.dist-info" % (dist, version)
    meta = "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version)
    meta += "".join("Requires-Dist: %s\n" % r for r in requires)
    content = dict(files)
    content[info + "/METADATA"] = meta
    content[info + "/WHEEL"] = "Wheel-Version: 1.0\nGenerator: wheelkit\nRoot-Is-Purelib: true\nTag: %s\n" % tag
    path = os.path.join(str(outdir), "%s-%s-%s.whl" % (dist, version, tag))
    rows = []
    with zipfile.ZipFile(path, "w") as z:
        for arc, text in sorted(content.items()):
            data = text.encode("utf-8")
            z.writestr(arc, data)
            rows.append([arc, _digest(data), str(len(data))])
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(rows + [[info + "/RECORD", "", ""]])
        z.writestr(info + "/RECORD", buf.getvalue())
    return path


def _tree(root: str) -> Dict[str, str]:
    out = {}
    for d, _, names in os.walk(root):
        for n in names:
            full = os.path.join(d, n)
            with open(full, encoding="utf-8") as fh:
                out[os.path.relpath(full, root).replace(os.sep, "/")] = fh.read()
    return out


def fake_torch_wheel(outdir, workdir, version: str = "2.13.0+cpu", cuda: Optional[str] = None,
                     requires: Iterable[str] = ()) -> str:
    """tests/fakes.fake_torch packed as a wheel of torch VERSION (a CPU build by default)."""
    root = os.path.join(str(workdir), "faketorch-" + version)
    fakes.fake_torch(root, version=version, cuda=cuda, available=False, devices=(), with_dist_info=False)
    return build_wheel(outdir, "torch", version, _tree(root), requires=requires)


def companion_wheel(outdir, name: str, version: str, built_as: Optional[str] = None) -> str:
    """A torchvision/torchaudio that imports, whose version.py says `built_as` (PyPI's CUDA
    wheels: '0.28.0' in the metadata, '0.28.0+cu130' in version.py)."""
    return build_wheel(outdir, name, version, {
        "%s/__init__.py" % name: "from .version import __version__\n",
        "%s/version.py" % name: "__version__ = %r\n" % (built_as or version)})


def pip_venv(path) -> str:
    """A virtual environment with pip at PATH; its python."""
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True, timeout=300,
                   stdout=subprocess.DEVNULL)
    return os.path.join(str(path), "Scripts" if os.name == "nt" else "bin", "python.exe" if os.name == "nt" else "python")


def hermetic_env(find_links, index_url: str = UNREACHABLE, constraint: Optional[str] = None,
                 no_index: bool = False) -> Dict[str, Optional[str]]:
    """pip's whole configuration as environment variables (None: unset it)."""
    env: Dict[str, Optional[str]] = {k: None for k in os.environ if k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_FIND_LINKS=str(find_links), PIP_INDEX_URL=index_url,
               PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_RETRIES="0")
    if constraint:
        env["PIP_CONSTRAINT"] = constraint
    if no_index:
        env["PIP_NO_INDEX"] = "1"
    return env


def hermetic_pip(monkeypatch, find_links, **kw) -> None:
    """hermetic_env for this test's process (and the children it starts)."""
    for key, value in hermetic_env(find_links, **kw).items():
        if value is None:
            monkeypatch.delenv(key, raising=False)
        else:
            monkeypatch.setenv(key, value)


def environ(env: Dict[str, Optional[str]]) -> Dict[str, str]:
    out = {k: v for k, v in os.environ.items() if k not in env}
    out.update({k: v for k, v in env.items() if v is not None})
    return out


def install(python: str, env: Dict[str, Optional[str]], *args: str) -> None:
    """pip install into the venv, no dependencies, with the configuration `env`."""
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps"] + list(args), check=True, timeout=600,
                   env=environ(env))


def freeze(python: str) -> str:
    return subprocess.run([python, "-m", "pip", "freeze", "--all"], check=True, capture_output=True, text=True,
                          timeout=300).stdout
