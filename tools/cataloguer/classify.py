"""Environment, usage or internal: a rule-based first pass, then the decisions a person made.

Environment: the fix is in the machine, the installation or the configuration (drivers,
builds, libraries, toolchains, files, ports, permissions, the machine's memory, versions),
not in the user's model code. Usage: the fix is in the calling code. Internal: a bug of the
library itself (an internal assert, "please report a bug").

The first pass names the rules that decided (``reasons``); a person then reads every row the
rules call environment and records a decision in ``tools/catalogue_overrides.json`` (keyed by
row id, which does not change across releases while the text stays the same), so regenerating
the catalogue keeps every decision.
"""

import json
import os
import re
from typing import Dict, List, Tuple

from .text import literal

ENVIRONMENT, USAGE, INTERNAL = "environment", "usage", "internal"
CLASSES = (ENVIRONMENT, USAGE, INTERNAL)


def _rules(pairs):
    return [(name, re.compile(rx)) for name, rx in pairs]


# Words that put the fix in the machine or the installation whatever else the text says.
STRONG = _rules([
    ("driver", r"\b[Dd]rivers?\b"),
    ("not-compiled-with", r"(?i)\b(?:not compiled with|compiled without|built without|not built with|"
                          r"was not compiled|wasn't compiled|not been compiled|compiled with(?:out)?|built with|"
                          r"not linked with|without \w+ support|support (?:is )?not (?:enabled|built|compiled))"),
    ("install", r"(?i)\b(?:installed|installation|reinstall|(?:pip|conda|apt|apt-get|brew) install|install (?:it|the|a|an|"
                r"torch|pytorch|\w+ (?:with|via|using|from)))\b|\binstall\b(?= \w{1,30} (?:package|library))"),
    ("shared-library", r"(?i)(?:\.so\b|\.dll\b|\.dylib\b|\bDLL\b|shared (?:object|librar)|dlopen|dlsym|"
                       r"LoadLibrary|\blib[a-z_0-9]+\.so|cannot open shared|undefined symbol)"),
    ("out-of-memory", r"(?i)out of memory|\bOOM\b|cannot allocate memory|Tried to allocate|"
                      r"memory (?:is )?exhausted|insufficient memory|not enough memory"),
    ("permission", r"(?i)permission denied|\bpermissions?\b|read-only file ?system|not writable|"
                   r"access (?:is )?denied|\bEACCES\b|\bEPERM\b"),
    ("disk", r"(?i)no space left|\bdisk\b|quota"),
    ("shared-memory", r"(?i)shared memory|/dev/shm|\bshm\b|ipc=host|ulimit|too many open files|file descriptors?"),
    ("gpu-arch", r"(?i)compute capability|\bsm_\d{2,3}|\bPTX\b|kernel image|no kernel image|\barch(?:itecture)?s?\b"
                 r"|cuda capability|\bgfx\d{3,4}"),
    ("cuda-libs", r"\b(?:cuDNN|CUDNN|cudnn|NCCL|nccl|cuBLAS|CUBLAS|cublas(?:Lt)?|cuSOLVER|cusolver|cuSPARSE|cusparse|"
                  r"cuFFT|cufft|cuRAND|NVML|nvml|NVRTC|nvrtc|nvJitLink|nvjitlink|CUPTI|cupti|NVSHMEM|nvshmem|"
                  r"MIOpen|miopen|rocBLAS|hipBLAS|RCCL|MAGMA|cuSPARSELt|libcuda|cudart)\b"),
    ("toolchain", r"(?i)\b(?:compiler|toolchain|nvcc|g\+\+|gcc|clang|msvc|cl\.exe|visual studio|vc environment|"
                  r"ninja|cmake|linker|\bld\b|ptxas|hipcc|icpx|dpc\+\+|libstdc\+\+|glibcxx|cxx11 abi|"
                  r"_GLIBCXX_USE_CXX11_ABI|headers?|include path|python\.h|cuda_home|rocm_home)\b"),
    ("python-version", r"(?i)\bpython ?3\.\d{1,2}\b|python version|not supported on python|requires python|"
                       r"python >= ?3|python<|\bpy3\.\d"),
    ("network", r"(?i)\b(?:port|hostname|host name|ip address|socket|connection (?:refused|reset|closed|timed out)|"
                r"connect(?:ion)?|network|firewall|dns|address already in use|EADDRINUSE|"
                r"ECONNREFUSED|ssl|certificate|http error|url|download(?:ing|ed)?)\b"),
    ("environment-variable", r"[Ee]nvironment variable|\b[Ee]nv(?:ironment)? var|"
                             r"CUDA_VISIBLE_DEVICES|HIP_VISIBLE_DEVICES|ZE_AFFINITY_MASK|LD_LIBRARY_PATH|LD_PRELOAD|"
                             r"\$PATH\b|\bPATH (?:environment|variable)|CUDA_HOME|ROCM_HOME|SYCL_HOME|MASTER_ADDR|"
                             r"MASTER_PORT|\bPYTORCH_[A-Z_]{3,}|\bTORCH_[A-Z_]{3,}|\bNCCL_[A-Z_]{3,}|\bOMP_[A-Z_]{3,}|"
                             r"\bKMP_[A-Z_]{3,}|\bMKL_[A-Z_]{3,}|\bCUDA_[A-Z_]{3,}|\bCUBLAS_WORKSPACE_CONFIG"),
    ("no-device", r"(?i)no (?:cuda|gpu|nvidia|xpu|mps|hip|rocm|cuda-capable|accelerator)\b[\w -]{0,20}"
                  r"(?:devices?|gpus?|found|available|detected)|(?:cuda|mps|xpu|gpu|hip|accelerator) "
                  r"(?:is|are) not available|not available on this (?:machine|system|platform)|"
                  r"busy or unavailable|(?:devices?|gpus?) (?:is|are) (?:busy|unavailable|not visible)"),
    ("forked", r"(?i)\bforked?\b|\bspawn\b|start method|multiprocessing context"),
    ("mps-platform", r"(?i)\bmacOS\b|\bMetal\b|MPS backend|MPSGraph|Apple"),
    ("cpu-features", r"(?i)\bAVX\w*|\bSSE\w*|\bNEON\b|\bSVE\b|\bAMX\b|VNNI|illegal instruction|CPU (?:capability|feature)"),
    ("platform", r"(?i)\b(?:windows|linux|darwin|wsl|platform is not supported|not supported on this platform|"
                 r"unsupported platform|glibc|musl)\b"),
])

# Words that point at the environment only when nothing says the calling code is at fault.
WEAK = _rules([
    ("version", r"(?i)\bversions?\b|\bupgrade\b|\bdowngrade\b|too old|too new|newer|older"),
    ("not-available", r"(?i)not (?:be )?available|unavailable|cannot be found|could not be found|not found|"
                      r"missing|cannot find|could not find|failed to (?:load|find|open|import|initiali[sz]e)|"
                      r"unable to (?:load|find|open|import|initiali[sz]e)|no module named|cannot import|"
                      r"could not import|is not supported on|requires? (?:a |an )?\w+ (?:build|backend|device)"),
    ("library", r"(?i)\blibrar(?:y|ies)\b|\bbackend\b|\bplugin\b|\bextension\b|\bpackage\b|"
                r"\b(?:MKL|MKLDNN|oneDNN|OpenMP|libgomp|libiomp5?|OpenBLAS|LAPACK|BLAS|FFTW|NNPACK|XNNPACK|"
                r"QNNPACK|FBGEMM|libuv|Gloo|MPI|UCC|UCX|KleidiAI|FFmpeg|libav\w*|SoX|libjpeg|libpng|nvjpeg|"
                r"NVDEC|OpenCV)\b"),
    ("device", r"(?i)\b(?:gpus?|cuda|rocm|hip|xpu|mps|mtia|hpu|tpu|npu|accelerator|device(?:s)?)\b"),
    ("memory", r"(?i)\bmemory\b(?! format)|\ballocat(?:e|ion|or)\b"),
    ("file", r"(?i)\bfiles?\b|\bdirector(?:y|ies)\b|no such file|\bpath\b|\bfolder\b|\bmmap\b|\bzip\b"),
    ("distributed", r"(?i)\brendezvous\b|\bstore\b|\bworkers?\b|\bagent\b|\brank\b|\bprocess group\b|"
                    r"\bbarrier\b|\bnodes?\b|\belastic\b"),
    ("cpu", r"(?i)\bcpus?\b|\bcores?\b|\bthreads?\b"),
    ("timeout", r"(?i)\btime(?:d)? ?out\b|\btimeout\b|watchdog|heartbeat"),
])

USAGE_RULES = _rules([
    ("shape", r"(?i)\bshapes?\b|\bsizes? (?:of|mismatch|must)|\bdimensions?\b|\bdims?\b|\bndim\b|\bnumel\b|"
              r"\bbroadcast"),
    ("dtype", r"(?i)\bdtypes?\b|\bscalar type\b|\bfloat(?:16|32|64)?\b|\bint(?:8|16|32|64)\b|\bbfloat16\b|"
              r"\bcomplex\b|\bbool\b"),
    ("argument", r"(?i)\barg(?:ument)?s?\b|\bparameters?\b|\bkwargs?\b|\bkeyword\b|\boptions?\b"),
    ("expected-got", r"(?i)\bexpected\b.{0,200}\b(?:got|but|found|received)\b|\bmust be\b|\bshould be\b|"
                     r"\bmust have\b|\bmust not\b|\bonly supports?\b|\bnot supported for\b|\bcannot be used\b|"
                     r"\bis not supported\b|\bunsupported\b|\binvalid\b|\bnot allowed\b"),
    ("tensor", r"(?i)\btensors?\b|\bstorage\b|\bstrides?\b|\bcontiguous\b|\bview\b|\bgrad\b|\bautograd\b"),
    ("deprecated", r"(?i)deprecat|will be removed|please use|use .{1,60} instead|has been renamed|no longer"),
    ("api", r"(?i)\bcallable\b|\bmodule\b|\bfunction\b|\bmethod\b|\bclass\b|\battribute\b|\bobject\b|"
            r"\bgraph\b|\btrace|\bscript|\bsubclass|\boperator\b|\bop\b|\bkernel\b"),
])

INTERNAL_RULES = _rules([
    ("internal-assert", r"INTERNAL ASSERT|(?i:please report (?:a |this )?bug|report (?:a |this )?bug|this is a bug|"
                        r"^bug:|should (?:never|not) (?:happen|be reached|reach)|unreachable|internal error|"
                        r"file an issue|open an issue|Check failed:)"),
])


def first_pass(text: str, kind: str, exc: str) -> Tuple[str, List[str]]:
    """(class, reasons): the class the rules give and the rules that fired, as ``env:<rule>``,
    ``weak:<rule>``, ``usage:<rule>``, ``internal:<rule>``. ``no-signal`` when none fired."""
    fixed = literal(text)
    strong = [n for n, rx in STRONG if rx.search(fixed)]
    weak = [n for n, rx in WEAK if rx.search(fixed)]
    usage = [n for n, rx in USAGE_RULES if rx.search(fixed)]
    internal = [n for n, rx in INTERNAL_RULES if rx.search(fixed)]
    reasons = (["internal:" + n for n in internal] + ["env:" + n for n in strong] + ["weak:" + n for n in weak]
               + ["usage:" + n for n in usage])
    if internal:
        return INTERNAL, reasons
    if strong:
        return ENVIRONMENT, reasons
    # Two weak signals and no word about the calling code ("failed to load library X").
    if len(weak) >= 2 and not usage:
        return ENVIRONMENT, reasons
    if exc == "AssertionError" and not weak:
        return INTERNAL, reasons or ["no-signal"]
    return USAGE, reasons or ["no-signal"]


def load_overrides(path: str) -> Dict[str, Dict[str, str]]:
    """The review decisions: row id -> {"class", "text", "note"}. A missing file is none."""
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    decisions = data.get("decisions", {})
    for rid, d in decisions.items():
        if d.get("class") not in CLASSES:
            raise ValueError("%s: decision for %s has class %r, not one of %s" % (path, rid, d.get("class"), CLASSES))
    return decisions


def classify(row: Dict[str, object], decisions: Dict[str, Dict[str, str]]) -> None:
    """Set the row's class, reasons and reviewed from the rules and the person's decision."""
    cls, reasons = first_pass(str(row["text"]), str(row["kind"]), str(row.get("exc", "")))
    decision = decisions.get(str(row["id"]))
    if decision is not None:
        if decision["class"] != cls:
            reasons = reasons + ["review:%s->%s" % (cls, decision["class"])]
            if decision.get("note"):
                reasons.append("review-note:" + decision["note"])
        cls = decision["class"]
    row["class"] = cls
    row["reasons"] = reasons
    row["reviewed"] = decision is not None
