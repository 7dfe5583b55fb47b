"""Message sites of one archive: its Python raise/warn sites, its CMake configuration's messages
and its libraries' strings.

A site is a dict: text (pattern), kind, exc, where. Which sites become rows, and with which
class, is decided by the caller (tools/catalogue.py).
"""

import posixpath
import re
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from . import classify
from .binstrings import fragment_pattern, is_prose, message_pattern, strings
from .cmakesites import references as cmake_references, sites as cmake_sites
from .pysites import sites as py_sites
from .text import is_message, tidy

Site = Dict[str, object]
_WARNING_WORDS = re.compile(r"(?i)\bwarn(?:ing)?\b|deprecat|will be removed|falling back|fall back|ignor(?:e|ed|ing)\b")


def scope_of(name: str, scopes: Sequence[Tuple[str, str]]) -> Optional[str]:
    """The mode of the first scope whose prefix (a folder ending in "/" or a file) holds `name`."""
    for prefix, mode in scopes:
        if name == prefix or (prefix.endswith("/") and name.startswith(prefix)):
            return mode
    return None


def python_sites(archive, select: Callable[[str], bool]) -> Iterable[Site]:
    """Every raise/warn site of the archive's .py files that `select` picks."""
    for name in archive.names():
        if name.endswith(".py") and select(name):
            for s in py_sites(archive.read_text(name), name):
                yield {"text": s["text"], "kind": s["kind"], "exc": s["exc"], "where": "%s:%d" % (name, s["line"])}


def _module_name(name: str) -> Optional[str]:
    m = re.match(r"Find(\w+)\.cmake$", posixpath.basename(name))
    return m.group(1) if m else None


def _module_owner(name: str) -> Optional[str]:
    """The find module a file belongs to (FindCUDA/select_compute_arch.cmake: FindCUDA.cmake)."""
    parts = name.split("/")
    for i in range(len(parts) - 1, 0, -1):
        if re.match(r"Find\w+$", parts[i - 1]):
            return "/".join(parts[:i - 1] + [parts[i - 1] + ".cmake"])
    return None


def reachable_cmake(texts: Dict[str, str]) -> List[str]:
    """The CMake files that can run: from the files nothing includes or finds (the package configs,
    scripts), through each include() and find_package() that sits outside switched-off branches,
    to the files and find modules they reach, and the files under a reached module's own folder."""
    refs = {n: cmake_references(t) for n, t in texts.items()}
    module = {n: _module_name(n) for n in texts}
    owner = {n: _module_owner(n) for n in texts}
    included = {posixpath.normpath("%s/%s" % (posixpath.dirname(n), rel)) for n in texts for rel in refs[n][0]}
    live = {n for n in texts if not module[n] and not owner[n] and n not in included}
    changed = True
    while changed:
        changed = False
        for n in sorted(live):
            _, incs, finds = refs[n]
            reach = {posixpath.normpath("%s/%s" % (posixpath.dirname(n), rel)) for rel in incs}
            reach |= {m for m in texts if module[m] in finds}
            new = {m for m in reach if m in texts} - live
            if new:
                live |= new
                changed = True
        owned = {m for m in texts if owner[m] in live} - live
        if owned:
            live |= owned
            changed = True
    return sorted(live)


def cmake_sites_of(archive, select: Callable[[str], bool]) -> Iterable[Site]:
    """Every message(FATAL_ERROR|SEND_ERROR|WARNING|AUTHOR_WARNING) site of the archive's .cmake
    files that `select` picks and that can run (reachable_cmake): Caffe2Config.cmake's `if(OFF)`
    around gflags, glog and HIP, and a CPU build's `if(0)` around CUDA with every find module only
    it reaches, are left out."""
    texts = {n: archive.read_text(n) for n in archive.names() if n.endswith(".cmake") and select(n)}
    for name in reachable_cmake(texts):
        yield from cmake_sites(texts[name], name)


def is_environment_candidate(text: str) -> bool:
    """A binary's string is read further only when an environment rule, strong or weak, fires:
    the libraries hold tens of thousands of messages about operators' arguments."""
    _, reasons = classify.first_pass(text, "error", "")
    return any(r.startswith(("env:", "weak:")) for r in reasons)


def binary_sites(archive, libs: Iterable[str], names: Optional[Dict[str, set]] = None) -> Iterable[Site]:
    """Sites for the prose strings of the named library members that pass the keyword filter;
    each library is streamed from the archive. `names`: regex -> a set that collects every
    match of the regex in the strings (status names such as CUBLAS_STATUS_\\w+), in the same pass."""
    finders = [(re.compile(rx), found) for rx, found in (names or {}).items()]
    for lib in libs:
        seen = set()
        with archive.open(lib) as fh:
            for s in strings(fh):
                if s in seen:
                    continue
                seen.add(s)
                for rx, found in finders:
                    found.update(rx.findall(s))
                if is_prose(s):
                    text = tidy(message_pattern(s))
                else:
                    text = tidy(fragment_pattern(s))
                    if not text:
                        continue
                if is_message(text) and is_environment_candidate(text):
                    kind = "warning" if _WARNING_WORDS.search(text) else "error"
                    yield {"text": text, "kind": kind, "exc": "", "where": lib}


def status_sites(lib_name: str, entries: List[Tuple[str, str]], wrapper: str, where: str) -> List[Site]:
    """Sites for a status table: each status text in torch's wrapper. `entries`: (code or
    name, text); the wrapper's first placeholder that is not the file:line prefix takes the
    status (NCCL's wrapper starts with the source location)."""
    out = []
    for code, text in entries:
        if text in ("no error", "CUDNN_STATUS_SUCCESS", "CUBLAS_STATUS_SUCCESS", "CUSOLVER_STATUS_SUCCESS") \
                or str(code) == "0":
            continue
        escaped = text.replace("{", "{{").replace("}", "}}")
        parts = wrapper.split("{}")
        if wrapper.startswith("NCCL error in: "):
            pattern = parts[0] + "{}" + parts[1] + escaped + parts[2] + "{}" + parts[3]
        else:
            pattern = parts[0] + escaped + "{}".join(parts[1:])
        # No exception class: torch raises these as RuntimeError, torch.AcceleratorError (CUDA
        # errors since 2.8) or DistBackendError (NCCL), and the text is the same in each.
        out.append({"text": pattern, "kind": "error", "exc": "",
                    "where": "%s: %s(%s)" % (where, lib_name, code) if str(code).isdigit() else "%s: %s" % (where, code)})
    return out
