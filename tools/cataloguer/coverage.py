"""How much of the catalogue the knowledge base recognises, and what it misses, by theme."""

import re
from collections import Counter, OrderedDict
from typing import Dict, Iterable, List, Optional, Tuple

from .classify import ENVIRONMENT

# First match wins: the more specific themes come first. A theme is what one knowledge-base
# entry (or a few) would be written for.
THEMES = [(name, re.compile(rx)) for name, rx in (
    ("cuda-runtime-status (cudaGetErrorString)", r"^CUDA error: (?!CUBLAS|CUSOLVER)"),
    ("cublas/cusolver/cusparse status", r"CUBLAS_STATUS|CUSOLVER_STATUS|cusolver error|cusparse:|CUBLAS error"),
    ("cudnn", r"(?i)cudnn"),
    ("nccl", r"(?i)\bnccl"),
    ("python version", r"(?i)python ?3\.\d|python version|requires python|python >= ?3|python2"),
    ("triton", r"(?i)triton|ptxas"),
    ("compiler / toolchain / cpp_extension", r"(?i)compiler|\bnvcc\b|\bg\+\+|\bgcc\b|clang|msvc|cl\.exe|ninja|"
                                             r"visual studio|cuda_home|rocm_home|sycl_home|\bheaders?\b|python\.h|"
                                             r"linker|\bvc env|\bcxx11|glibcxx|\bcmake\b|cpp_extension|precompil"),
    ("mps / apple", r"(?i)\bmps\b|\bmetal\b|macos|apple"),
    ("xpu / sycl / intel", r"(?i)\bxpu\b|\bsycl\b|level.?zero|sysman|\bipex\b|intel|ze_affinity"),
    ("rocm / hip / amd", r"(?i)\brocm\b|\bhip\b|\bamd|miopen|rccl|\bgfx\d|rocshmem"),
    ("checkpoint saved on another device", r"(?i)deserializ|map_location|weights_only"),
    ("out of memory / allocator", r"(?i)out of memory|\boom\b|allocat|memory"),
    ("gpu arch / compute capability", r"(?i)compute capability|\bsm_?\d|\bptx\b|kernel image|\barch"),
    ("downloads / hub / network access", r"(?i)download|\burl\b|https?:|\bhub\b|internet|gdrive|hash value"),
    ("video / image codecs (FFmpeg, nvjpeg, NVDEC)", r"(?i)ffmpeg|nvjpeg|nvdec|nvcuvid|libpng|libjpeg|codec|avframe|"
                                                     r"video|decod"),
    ("profilers and debuggers (CUPTI, ITT, valgrind)", r"(?i)cupti|\bitt\b|nvtx|profiler|valgrind|symboliz"),
    ("JIT compilers (NVRTC, LLVM)", r"(?i)nvrtc|\bllvm\b"),
    ("GPU management library (NVML, amdsmi)", r"(?i)nvml|amdsmi|device handle|uuid|elevated privileges"),
    ("build lacks a backend / no device present", r"(?i)not compiled|compiled without|built without|not built with|"
                                                  r"not linked with|without \w+ (?:library|backend|support)|"
                                                  r"\bno (?:gpu|accelerator|cuda)|not available|not visible|"
                                                  r"no \w+ (?:device|gpu)s?\b|_VISIBLE_DEVICES|exceeds available"),
    ("driver / cuda runtime", r"(?i)\bdriver|cudart|libcuda|cuda runtime|cuda version|\bcuda\b"),
    ("multiprocessing / shared memory / fork", r"(?i)shared memory|\bshm\b|\bfork|\bspawn|file descriptor|"
                                               r"too many open files|ulimit|dataloader worker"),
    ("distributed: launch / store / rendezvous / network", r"(?i)rendezvous|\bstore\b|\bport\b|hostname|socket|"
                                                           r"connect|master_addr|master_port|\btcp|network|"
                                                           r"timeout|timed out|\bgloo\b|\bmpi|\bucc\b|libuv|"
                                                           r"elastic|\brank|\bip address|address already|"
                                                           r"worker pid|exit barrier|process group|nodes? per|per node"),
    ("native libraries (.so / DLL / MKL / OpenMP)", r"(?i)\.so\b|\bdll\b|dlopen|shared librar|\bmkl|openmp|"
                                                    r"\bomp\b|libgomp|lapack|\bblas\b|magma|cpuinfo|nvshmem|"
                                                    r"undefined symbol|nnpack|mkldnn|onednn|\blibrary\b"),
    ("platform / CPU features", r"(?i)windows|platform|\bavx|\bamx\b|\bsve\b|fbgemm|vnni|\bcpu\b"),
    ("environment variables", r"(?i)environment variable|\benv\b|\b[A-Z][A-Z0-9]+_[A-Z0-9_]{3,}\b"),
    ("files / permissions / disk", r"(?i)permission|\bfiles?\b|director|\bpath\b|no space|disk|read-only"),
    ("install / versions / packages", r"(?i)install|\bversion|\bpackage|module named|\bimport|extension"),
)]
OTHER = "other"


def theme(text: str) -> str:
    for name, rx in THEMES:
        if rx.search(text):
            return name
    return OTHER


def summary(files: Dict[str, Dict[str, object]], live: Dict[str, Optional[str]], examples: int = 3) -> str:
    """The printed report. `files`: catalogue name -> its data; `live`: row id -> the entry the
    matcher gives today (absent: the file's own `entry` is taken)."""
    out: List[str] = []
    out.append("Rows per source and class")
    for name, data in files.items():
        counts: Dict[str, Counter] = OrderedDict()
        for row in data["rows"]:  # type: ignore[union-attr]
            counts.setdefault(row["source"], Counter())[row["class"]] += 1
        for source, c in counts.items():
            out.append("  %-14s %-34s environment %5d  usage %5d  internal %5d"
                       % (name, source, c["environment"], c["usage"], c["internal"]))
    out.append("")
    out.append("Environment rows recognised by a knowledge-base entry (matcher run now)")
    grouped: Dict[str, List[Tuple[str, Dict[str, object]]]] = OrderedDict()
    for name, data in files.items():
        env = [r for r in data["rows"] if r["class"] == ENVIRONMENT]  # type: ignore[union-attr]
        covered = [r for r in env if _entry(r, live)]
        stale = sum(1 for r in env if _entry(r, live) != r["entry"])
        pct = 100.0 * len(covered) / len(env) if env else 100.0
        out.append("  %-14s %5d of %5d covered (%.1f%%), %d uncovered%s" % (
            name, len(covered), len(env), pct, len(env) - len(covered),
            "; %d rows' entry in the file is stale (run --rematch)" % stale if stale else ""))
        for r in env:
            if not _entry(r, live):
                grouped.setdefault(theme(str(r["text"])), []).append((name, r))
    out.append("")
    out.append("Uncovered environment rows by theme (distinct texts, and per catalogue; torch's examples first)")
    ranked = sorted(grouped.items(), key=lambda kv: -len({r["text"] for _, r in kv[1]}))
    for th, items in ranked:
        texts: Dict[str, List[str]] = OrderedDict()
        for name, r in items:
            names = texts.setdefault(str(r["text"]), [])
            if name not in names:
                names.append(name)
        per = Counter(n for names in texts.values() for n in names)
        out.append("  %s: %d (%s)" % (th, len(texts), ", ".join("%s %d" % kv for kv in sorted(per.items()))))
        shown = sorted(texts.items(), key=lambda kv: not any(n.startswith("torch-") for n in kv[1]))
        for text, names in shown[:examples]:
            one = text.replace("\n", " | ")
            out.append("      - %s  [%s]" % (one[:150] + ("..." if len(one) > 150 else ""), ", ".join(names)))
    return "\n".join(out)


def _entry(row: Dict[str, object], live: Dict[str, Optional[str]]):
    return live[str(row["id"])] if row["id"] in live else row["entry"]


def uncovered_environment(rows: Iterable[Dict[str, object]]) -> Dict[str, str]:
    """id -> text of the environment rows no entry recognises."""
    return {str(r["id"]): str(r["text"]) for r in rows if r["class"] == ENVIRONMENT and not r["entry"]}
