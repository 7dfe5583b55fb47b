"""Optional Python packages a torch feature or a companion library imports on demand: is the
one a message names installed in this interpreter, and the pip command for this interpreter.
"""

import re
import shlex
import sys
from typing import List, Optional

from ..advice.commands import pip, which_import
from ..model import derived as F
from ..model import versions as V
from ..model.facts import Facts
from .companions.common import python_minor
from .registry import Tailored, hook, match_groups

# Messages name the import or the product ("PIL", "TransformerEngine"); pip needs the
# distribution. Only names whose distribution differs from the lower-cased name are listed.
PIP_NAMES = {
    "opt_einsum": "opt-einsum", "pil": "Pillow", "transformer_engine": "transformer-engine[pytorch]",
    "transformerengine": "transformer-engine[pytorch]", "statefuldataloader": "torchdata>=0.8.0",
    "deepphonemizer": "deep-phonemizer", "pynvml": "nvidia-ml-py", "psutils": "psutil",
    "scipy": "scipy>=1.9.0", "kenlm": "https://github.com/kpu/kenlm/archive/master.zip",
    "datastates": "git+https://github.com/DataStates/datastates-llm",
    "flashattention": "flash-attn", "flash_attn": "flash-attn", "sklearn": "scikit-learn", "cv2": "opencv-python",
    "yaml": "PyYAML", "megatron": "megatron-core", "pyav": "av", "transformersengine": "transformer-engine[pytorch]",
    "opencv": "opencv-python", "skimage": "scikit-image", "open_clip": "open-clip-torch", "pkg_resources": "setuptools",
    "google.protobuf": "protobuf", "detectron2": "git+https://github.com/facebookresearch/detectron2.git",
    "segment_anything": "segment-anything", "hydra": "hydra-core", "absl": "absl-py",
    # Python's `No module named 'x'` names the import; these live on PyPI under another name (and
    # PyPI's `warp`, `lava`, `whisper` and `magic` are other projects)
    "warp": "warp-lang", "lava": "lava-nc", "whisper": "openai-whisper", "attr": "attrs",
    "dateutil": "python-dateutil", "bs4": "beautifulsoup4", "fitz": "PyMuPDF", "docx": "python-docx",
    "crypto": "pycryptodome", "jwt": "PyJWT", "serial": "pyserial", "opengl": "PyOpenGL", "gi": "PyGObject",
    "magic": "python-magic", "dotenv": "python-dotenv", "zmq": "pyzmq", "git": "GitPython", "faiss": "faiss-cpu",
    "llama_cpp": "llama-cpp-python", "mpl_toolkits": "matplotlib", "tensorboardx": "tensorboardX",
    "habana_frameworks": "habana-torch-plugin",  # Intel Gaudi's PyTorch bridge
}

# What `No module named 'x'` means when pip install x would not help (read by the generic branch
# of package_missing only; dist_name keeps PyPI names). PyPI's apex and clip are other projects:
REPO_INSTALLS = {"apex": "--no-build-isolation git+https://github.com/NVIDIA/apex.git",  # setup.py imports torch
                 "clip": "git+https://github.com/openai/CLIP.git"}
# What a repository's current source no longer has, for code written against an older one.
REPO_NOTES = {"apex": " Its source has had no amp, parallel or fp16_utils since May 2025: code that imports those needs "
                      "its last commit with them (e13873d) or torch.amp instead."}
# a project's own folders, which no PyPI package of that name provides
PROJECT_FOLDERS = frozenset((
    "utils", "util", "models", "model", "modules", "module", "common", "config", "configs", "core", "data", "dataset",
    "lib", "libs", "src", "tools", "networks", "network", "options", "nets", "layers", "ops",
))
# namespaces several distributions share: the import line names the one missing
NAMESPACES = frozenset(("google", "nvidia", "azure"))
# standard-library modules a Python build may lack (their system library was missing when it was built)
OPTIONAL_STDLIB = frozenset(("tkinter", "turtle", "idlelib", "lzma", "bz2", "sqlite3", "ctypes", "ssl", "readline",
                             "curses", "zlib", "uuid", "dbm", "decimal", "hashlib"))
POSIX_ONLY = frozenset(("fcntl", "termios", "resource", "pwd", "grp", "pty", "tty", "crypt", "spwd", "nis", "syslog",
                        "posix", "readline", "curses"))
WINDOWS_ONLY = frozenset(("msvcrt", "winreg", "winsound", "nt"))
# standard-library modules newer than some Pythons: (first Python, the backport on PyPI or "")
NEWER_STDLIB = {"tomllib": ((3, 11), "tomli"), "graphlib": ((3, 9), "graphlib_backport"),
                "zoneinfo": ((3, 9), "backports.zoneinfo"), "importlib.metadata": ((3, 8), "importlib-metadata"),
                "importlib.resources.abc": ((3, 11), ""), "asyncio.timeouts": ((3, 11), "")}


def _not_from_pypi(named: str, facts: Facts) -> Optional[Tailored]:
    """The remedy where the missing module is not a PyPI package of its name; None otherwise."""
    py = F.python_cmd(facts)
    os_ = F.os_of(facts)
    if named in POSIX_ONLY and os_ == "windows":
        return Tailored(summary="`%s` exists only in Python on Linux and macOS: the code (or the package that imports it) "
                                "does not run on Windows. Run it under WSL or Linux%s." % (
                                    named, "; for readline, pyreadline3 stands in" if named == "readline" else ""),
                        commands=[])
    if named in WINDOWS_ONLY and os_ not in (None, "windows"):
        return Tailored(summary="`%s` exists only in Python on Windows: the code was written for Windows." % named,
                        commands=[])
    newer = NEWER_STDLIB.get(named)
    minor = python_minor(facts)
    if newer and minor is not None and minor < newer[0]:
        return Tailored(summary="`%s` joined the standard library in Python %d.%d, and this Python is %d.%d: use a newer "
                                "Python, or the backport %s where the code accepts it." % (
                                    named, newer[0][0], newer[0][1], minor[0], minor[1], newer[1]),
                        commands=[pip(facts, "install %s" % newer[1])])
    if named in OPTIONAL_STDLIB:
        return Tailored(summary="`%s` is part of Python's standard library: this Python was built without it (compiled "
                                "from source without the system library it wraps, or a distribution that packages it "
                                "apart, such as Debian's python3-tk). pip cannot add it: install the missing system "
                                "package and rebuild that Python, or use a Python from python.org, conda or the "
                                "distribution." % named, commands=["%s -c \"import %s\"" % (py, named)])
    if named in NAMESPACES:
        return Tailored(summary="`%s` is a namespace several packages share: install the one the failing import line "
                                "names (`google.protobuf` is protobuf, `nvidia.dali` is NVIDIA DALI, `azure.storage."
                                "blob` is azure-storage-blob)." % named,
                        commands=["%s -m pip list" % py])
    if named.lower() in PROJECT_FOLDERS:
        return Tailored(summary="`%s` is no PyPI package: it is a folder of the project. Run the program from the "
                                "project's root folder, or install the project (`pip install -e .` beside its setup.py "
                                "or pyproject.toml)." % named,
                        commands=["%s -c \"import sys; print(sys.path)\"" % py])
    if named in REPO_INSTALLS:
        return Tailored(summary="`%s` is not installed in %s: install it from its repository (PyPI's `%s` is another "
                                "project).%s" % (named, facts.value("python.executable"), named, REPO_NOTES.get(named, "")),
                        commands=[pip(facts, "install %s" % REPO_INSTALLS[named])])
    return None


def dist_name(pkg: str) -> str:
    """The pip name of an import or product name ("google.protobuf.internal" -> protobuf, "cv2" ->
    opencv-python): its first two dotted parts where the table knows them, else its first."""
    parts = pkg.lower().split(".")
    return PIP_NAMES.get(".".join(parts[:2])) or PIP_NAMES.get(parts[0], parts[0])


def report_key(dist: str) -> str:
    """The key the probe files a distribution under (PEP 503 name, no extras or pins)."""
    base = re.split(r"[\[<>=]", dist, maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", base).lower()


@hook("package-missing")
def package_missing(match, facts: Facts) -> Optional[Tailored]:
    named = match_groups(match).get("pkg")
    if not named or not facts.value("python.executable"):
        return None
    # torch.hub lists every missing dependency ("fastBPE, sacremoses"), one message names two.
    dists: List[str] = [dist_name(p) for p in re.split(r"[,\s]+", named.strip(" .")) if p and p != "and"]
    need = match_groups(match).get("need")  # a version floor the message names: ask pip for it, or it keeps the old one
    if need and len(dists) == 1 and not dists[0].startswith(("git+", "http")):
        dists = ["%s>=%s" % (dists[0], need)]
    if (match_groups(match).get("generic") is not None and "." in named
            and not PIP_NAMES.get(".".join(named.lower().split(".")[:2]))):
        return _submodule_missing(named, facts)  # a's submodule b: a installed or not, pip's name is unknown
    if "slow tokenizer to a fast one" in (getattr(match, "text", "") or ""):
        return _fast_tokenizer_conversion(facts)
    here = [(d, F.package_version(facts, report_key(d))) for d in dists]
    installed = [(d, v) for d, v in here if v]
    exe = facts.value("python.executable")
    if installed and "Hugging Face hub model specified" in (getattr(match, "text", "") or ""):
        # timm imports functions an old huggingface_hub lacks and reads the ImportError as "not installed"
        return Tailored(summary="huggingface_hub %s is installed but older than this timm needs: timm imports functions "
                                "that release lacks and says 'not installed'. Upgrade it." % installed[0][1],
                        commands=[pip(facts, "install --upgrade huggingface_hub")],
                        notes=["huggingface_hub %s installed in %s" % (installed[0][1], exe)])
    if installed and len(installed) == len(here):
        return Tailored(summary="%s is installed in %s: the failing process ran another interpreter or environment "
                                "(compare its sys.executable with this one), or needs a newer version than this if the "
                                "message names one." % (", ".join("%s %s" % dv for dv in installed), exe),
                        commands=["python -c \"import sys; print(sys.executable)\""],
                        notes=["%s %s installed in %s" % (d, v, exe) for d, v in installed])
    missing = [d for d, v in here if not v]
    if match_groups(match).get("generic") is not None:
        # Python's own words for any module: a PyPI package never installed here, or the project's
        # own module run from outside its folder; the name alone does not say which
        other = _not_from_pypi(named, facts)
        if other is not None:
            return other
        return Tailored(summary="If `%s` comes from PyPI, install %s with the interpreter that ran the code (%s); if it "
                                "is the project's own module, run from the project's root folder or install the project "
                                "(`pip install -e .` beside its setup.py or pyproject.toml)." % (named, missing[0], exe),
                        commands=["%s install %s" % (F.pip_cmd(facts), shlex.quote(missing[0]))])
    return Tailored(summary="Install %s with this interpreter's pip (%s)." % (", ".join(missing), exe),
                    commands=["%s install %s" % (F.pip_cmd(facts), " ".join(shlex.quote(d) for d in missing))])


def _fast_tokenizer_conversion(facts: Facts) -> Tailored:
    """transformers converting a SentencePiece tokenizer to a fast one: sentencepiece, and protobuf for
    the conversion; transformers before 4.31 reads protobuf only up to 3.20 (its generated module
    predates protobuf 4: read in the 4.30.2 and 4.31.0 wheels). With sentencepiece installed here,
    the same words mean another interpreter ran, or a model with no tokenizer to convert."""
    tf = F.package_release(facts, "transformers")
    sp = F.package_version(facts, "sentencepiece")
    if sp:
        return Tailored(summary="sentencepiece %s is installed in %s: the failing process ran another interpreter, or "
                                "the model has neither a tokenizer.json nor a slow tokenizer transformers can convert "
                                "(its files name a fast-only class): use a model folder with tokenizer.json."
                                % (sp, facts.value("python.executable")),
                        commands=[which_import(facts, "sentencepiece")], notes=["sentencepiece %s installed" % sp])
    old = bool(tf and V.older(tf, "4.31"))
    proto = '"protobuf<=3.20.3"' if old else "protobuf"
    return Tailored(summary="transformers%s converts this SentencePiece tokenizer to a fast one, which needs sentencepiece "
                            "and, for the conversion, protobuf%s: install both (or only sentencepiece and load the "
                            "tokenizer with use_fast=False; where other packages need a newer protobuf, keep it and set "
                            "PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION=python instead of the pin)." % (
                                " %s" % tf if tf else "",
                                " 3.20 or older (transformers before 4.31 cannot read protobuf 4)" if old else
                                " (3.20 or older for a transformers before 4.31)" if not tf else ""),
                    commands=[pip(facts, "install sentencepiece %s" % proto)],
                    notes=["installed transformers: %s" % tf] if tf else [])


# Standard-library submodules that Python removed: (the release without it, what replaces it).
STDLIB_REMOVED = {"typing.io": ("3.13", "typing's own IO, TextIO and BinaryIO"),
                  "typing.re": ("3.13", "typing's own Pattern and Match"),
                  "xml.etree.cElementTree": ("3.9", "xml.etree.ElementTree"),
                  "os.errno": ("3.7", "import errno")}
# Top-level standard-library names (for Pythons before 3.10, which have no sys.stdlib_module_names).
_STDLIB_TOPS = frozenset(getattr(sys, "stdlib_module_names", ())) or frozenset((
    "abc", "asyncio", "collections", "concurrent", "ctypes", "email", "encodings", "html", "http", "importlib",
    "json", "logging", "multiprocessing", "os", "sqlite3", "typing", "unittest", "urllib", "xml", "xmlrpc",
    "code", "io", "re", "string", "types", "test", "tkinter", "distutils"))
# A compiled extension's module name: _C, _ext, _cuda, _scatter_cpu, _ops...
_EXTENSION_LEAF = re.compile(r"_(?:C|ext|cuda|cpp|ops|[a-z0-9]+_(?:cuda|cpu|ext|cpp|C))")


def _submodule_missing(named: str, facts: Facts) -> Optional[Tailored]:
    """`No module named 'a.b'`: a's distribution without b (another release of it, or a compiled
    part never built), or b a separate distribution in the a namespace; the name alone does not
    say which."""
    top, leaf = named.split(".")[0], named.rsplit(".", 1)[-1]
    gone, added = STDLIB_REMOVED.get(named), NEWER_STDLIB.get(named)
    if gone:
        return Tailored(summary="`%s` left Python's standard library in %s (use %s): the code was written for an older "
                                "Python. Run it with the Python it supports, or update it (or the package that imports "
                                "it)." % (named, gone[0], gone[1]), commands=[])
    if added:
        # a submodule of the standard library exists on every later Python: the one that ran is older
        return Tailored(summary="`%s` joined Python's standard library in %d.%d: this Python is older. Use a newer "
                                "Python%s." % (named, added[0][0], added[0][1],
                                               ", or the backport %s where the code accepts it" % added[1]
                                               if added[1] else ""),
                        commands=[pip(facts, "install %s" % added[1])] if added[1] else [])
    other = _not_from_pypi(top, facts)
    if other is not None:
        return other
    if top in _STDLIB_TOPS:
        # `'code' is not a package`: the standard library's module answered for the project's folder
        return Tailored(summary="`%s` is the name of a standard-library module, and it has no `%s`: the code was written "
                                "for another Python version, or it means a folder of the project named `%s` that the "
                                "standard library's module shadows (run from the project's root, or rename the folder)."
                                % (top, named, top), commands=[])
    dist = dist_name(top)
    key = top if dist.startswith(("git+", "http")) else report_key(dist)
    have = F.package_version(facts, key)
    exe = facts.value("python.executable")
    if _EXTENSION_LEAF.fullmatch(leaf):
        # _C, _ext, _imaging, _scatter_cpu: a compiled part, missing when the package was never
        # built here (a source checkout) or was built for another Python or torch
        return Tailored(summary="`%s` is %s's compiled part: %s was not built for this interpreter (a source checkout "
                                "never built with `pip install -e .`, a build that failed, or a wheel for another Python "
                                "or torch). Build or reinstall %s here." % (
                                    named, top, "the installed %s %s" % (top, have) if have else top, top),
                        commands=[pip(facts, "show %s" % key)] if have else [],
                        notes=["%s %s installed" % (key, have)] if have else [])
    if have:
        return Tailored(summary="%s %s is installed in %s but has no `%s`: the code was written for another release of "
                                "it (its requirements name the one), or `%s` is a separate package in the `%s` "
                                "namespace, installed on its own." % (key, have, exe, named, named, top),
                        commands=[pip(facts, "show %s" % key)], notes=["%s %s installed" % (key, have)])
    return Tailored(summary="Nothing in %s provides `%s`: install the package the project names for it (modules under "
                            "`%s.` come with their own distribution, or with one of several sharing that namespace, "
                            "often from the project's repository rather than PyPI)." % (exe, named, top),
                    commands=[], notes=["no %s installed in %s" % (top, exe)])


@hook("bare-folder-package")
def bare_folder_package(match, facts: Facts) -> Optional[Tailored]:
    """Where Python found the package decides the remedy: ask it, with the failing name filled in."""
    g = match_groups(match)
    pkg = g.get("pkg")
    if not pkg:
        return None
    if g.get("sub"):
        # a submodule found as a bare folder: which folder decides it (a checkout shadowing the installed
        # package, a namespace several distributions share, a module a build step generates), not pip
        name = pkg + g["sub"]
        return Tailored(summary="Run the command where the failing program runs: it prints the folder Python took "
                                "for %s. A folder under the working directory is a checkout or copy shadowing the "
                                "installed package (run from elsewhere, or install the checkout with pip install -e); "
                                "a folder in site-packages without its files belongs to a distribution that is missing "
                                "or was removed in part (reinstall the one that provides %s)." % (name, name),
                        commands=["python -c \"import %s as m; print(m.__path__)\"" % name])
    where, dist = "python -c \"import %s; print(%s.__path__)\"" % (pkg, pkg), dist_name(pkg)
    return Tailored(summary="Run the first command where the failing program runs: a path in the working directory is a "
                            "checkout of %s never installed (install it with pip install -e on the folder that holds its "
                            "setup.py or pyproject.toml); a path in site-packages is a leftover (uninstall %s, delete the "
                            "folder, reinstall)." % (pkg, dist),
                    commands=[where, "%s show %s" % (F.pip_cmd(facts), dist)])


@hook("pypi-clip-namesake")
def pypi_clip_namesake(match, facts: Facts) -> Optional[Tailored]:
    """Which `clip` this interpreter has decides it: PyPI's clipboard tool (0.x) or OpenAI's (1.0)."""
    v = F.package_release(facts, "clip")
    pip = F.pip_cmd(facts)
    heal = ["%s uninstall -y clip" % pip, "%s install git+https://github.com/openai/CLIP.git" % pip]
    if not match_groups(match).get("attr"):
        # pip's refusal of clip==1.0: nothing imported anything; the requirement names the wrong index
        return Tailored(summary="`clip==1.0` is OpenAI's CLIP, which PyPI does not have: in the requirements, replace it "
                                "with `git+https://github.com/openai/CLIP.git`.", commands=heal[1:])
    if v is None and F.package_installed(facts, "clip"):
        return None  # a clip whose version could not be read: which one it is stays open
    if v is None:
        return Tailored(summary="No distribution named clip is installed in %s: install OpenAI's CLIP from its "
                                "repository (PyPI's `clip` is another program)." % facts.value("python.executable", "this Python"),
                        commands=heal[1:])
    if v.startswith("0."):
        return Tailored(summary="This interpreter has clip %s, PyPI's clipboard tool: remove it and install OpenAI's "
                                "CLIP from its repository." % v, commands=heal, notes=["clip %s installed" % v])
    return Tailored(summary="This interpreter has clip %s, OpenAI's own version number: the failing process imported "
                            "another `clip` (a clip/ folder or clip.py beside the script, or another environment)."
                            % v, commands=[which_import(facts, "clip", has_version=False)],
                    notes=["clip %s installed" % v])


@hook("torchreid-layout")
def torchreid_layout(match, facts: Facts) -> Optional[Tailored]:
    """PyPI's torchreid nests its modules under torchreid.reid; none installed means the submodule."""
    v = F.package_release(facts, "torchreid")
    mod = match_groups(match).get("mod") or "torchreid.utils"
    pip = F.pip_cmd(facts)
    if v is not None and not v.startswith("0.2."):
        # deep-person-reid's own releases (0.9, 1.x) carry this layout: the import found another torchreid
        return Tailored(summary="torchreid %s (deep-person-reid's own release) is installed, and it has %s: the failing "
                                "process imported another torchreid, an empty submodule folder or a copy beside the "
                                "script." % (v, mod), commands=[which_import(facts, "torchreid", has_version=False)],
                        notes=["torchreid %s installed" % v])
    if v is None and F.package_installed(facts, "torchreid"):
        return None  # installed, version unreadable: PyPI's or deep-person-reid's own release stays open
    if v is None:
        return Tailored(summary="No torchreid is installed here, so %s can only come from the project's own copy of "
                                "deep-person-reid: fetch its git submodule (or install deep-person-reid from its "
                                "repository)." % mod,
                        commands=["git submodule update --init --recursive"])
    pypi_mod = mod.replace("torchreid.", "torchreid.reid.", 1)
    return Tailored(summary="torchreid %s is installed; PyPI's releases keep this module as %s. Install "
                            "deep-person-reid from its repository in its place, or import from %s." % (v, pypi_mod, pypi_mod),
                    commands=["%s uninstall -y torchreid" % pip,
                              "%s install git+https://github.com/KaiyangZhou/deep-person-reid.git" % pip],
                    notes=["torchreid %s installed" % v])
