"""The fields of a collect_env paste: the labels of every era and of the issue template's
checklist, and the reader that splits a paste into {field: raw value}."""

import re
from typing import Dict, List, Optional, Tuple

from .lines import iter_lines, label_line_pattern, strip_ansi
from .values import missing

# Label (lower case, spaces collapsed) -> SystemEnv field name. Several labels
# per field: collect_env's wording changed, and the issue template's checklist
# uses its own.
LABELS = {
    "pytorch version": "torch_version",
    "is debug build": "is_debug_build",
    "cuda used to build pytorch": "cuda_compiled_version",
    "rocm used to build pytorch": "hip_compiled_version",
    "xpu used to build pytorch": "xpu_compiled_version",
    "os": "os",
    "gcc version": "gcc_version",
    "clang version": "clang_version",
    "cmake version": "cmake_version",
    "libc version": "libc_version",
    "python version": "python_version",
    "python platform": "python_platform",
    "is cuda available": "is_cuda_available",
    "cuda runtime version": "cuda_runtime_version",
    "cuda_module_loading set to": "cuda_module_loading",
    "gpu models and configuration": "nvidia_gpu_models",
    "nvidia driver version": "nvidia_driver_version",
    "cudnn version": "cudnn_version",
    "is xpu available": "is_xpu_available",
    "hip runtime version": "hip_runtime_version",
    "miopen runtime version": "miopen_runtime_version",
    "is xnnpack available": "is_xnnpack_available",
    "caching allocator config": "caching_allocator_config",
    "cpu": "cpu_info",
    "versions of relevant libraries": "libraries",
    # the issue template's checklist
    "how you installed pytorch": "install_method",
    "cuda/cudnn version": "cuda_cudnn",
    "build command you used": "build_command",
}
MULTILINE = {"nvidia_gpu_models", "cudnn_version", "cpu_info", "libraries", "is_xpu_available"}
# Fields whose value is one line; a wrapped continuation is joined back.
CHECKLIST_ONLY = {"install_method", "cuda_cudnn", "build_command"}
# The fields of today's collect_env that matter most, for "what was missing".
KEY_FIELDS = ("torch_version", "cuda_compiled_version", "os", "python_version", "is_cuda_available",
              "nvidia_gpu_models", "nvidia_driver_version", "cudnn_version", "libraries")

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_QUOTE = re.compile(r"^\s*(?:>\s?)+")
# Every repeat before the value is bounded: a label is short, and a pasted line of
# 100 KB of spaces must not cost quadratic time.
_LABEL = re.compile(r"^\s{0,40}(?:[-*+]\s{1,8})?(?P<label>[A-Za-z][A-Za-z0-9_ ./-]{0,80}?)\s{0,40}"
                    r"(?:\((?:e\.g\.|`)[^)]{0,200}\)\s{0,40})?:\s?(?P<value>.*)$")
_LABEL_LINE = label_line_pattern(LABELS)  # lines that can open a field (triage/lines.py)
LIBRARY_LINE = re.compile(r"^\[(?P<tool>pip\d*|conda|uv|pixi|poetry)\]\s*(?P<rest>.*)$")


def clean(line: str) -> str:
    """A pasted line without what its way into an issue added: ANSI codes, CR, tabs, ``>`` quoting,
    code fences, backticks."""
    line = strip_ansi(line, ANSI).replace("\r", "").replace("\t", "    ")
    line = _QUOTE.sub("", line)
    line = line.strip()
    if line.startswith("```") or line.startswith("~~~"):
        return ""
    return line.strip("`").strip()


# -- the block ----------------------------------------------------------------------
def split_fields(text: str) -> Tuple[Dict[str, str], List[str], Tuple[int, int], List[str]]:
    """{field: raw value} from the paste, in collect_env's layout or the checklist's.

    Returns (fields, order seen, (first, last) line, notes).
    """
    fields: Dict[str, List[str]] = {}
    order: List[str] = []
    notes: List[str] = []
    current: Optional[str] = None
    first = last = 0
    block_over = False
    # Every line of a normal paste; of a big one, only those that can change what is read.
    for no, raw in iter_lines(text, lambda: current is None, _LABEL_LINE, ANSI):
        line = clean(raw)
        m = _LABEL.match(line) if line else None
        key = None
        if m:
            key = LABELS.get(re.sub(r"\s+", " ", m.group("label").strip().lower()))
            if key is None and re.match(r"^[-*+]\s", line):
                current = None  # another checklist item
                continue
        if key is not None:
            value = m.group("value").strip()
            if key in fields:
                if key == "torch_version" and len(order) >= 3:
                    notes.append("a second collect_env block starts at line %d; only the first is read" % no)
                    break
                # Notes typed after the block ("OS: windows 10") fill in what collect_env could not.
                if block_over and missing(fields[key][0]) and not missing(value):
                    fields[key] = [value]
                    notes.append("%s taken from the text after the block (line %d): %r" % (key, no, value[:80]))
                current = None
                continue
            if block_over:
                fields[key] = [value]
                order.append(key)
                current = None
                continue
            fields[key] = [value]
            order.append(key)
            current = key
            first = first or no
            last = no
            continue
        if current is None or line.lower().startswith("collecting environment information"):
            continue
        if not line:
            if len(fields[current]) <= 1 and not fields[current][0]:
                continue  # "CPU:" / "GPU models and configuration: " then the lines
            if current != "libraries":
                current = None
            continue
        if current == "libraries":
            if LIBRARY_LINE.match(line):
                fields[current].append(line)
                last = no
            elif len(fields[current]) > 1:
                block_over = True
                current = None
            continue
        if current in MULTILINE:
            fields[current].append(line)
            last = no
            continue
        # A single-line field with text after it: a wrapped value, or noise.
        val = " ".join(fields[current])
        if not val.strip() or val.count("(") > val.count(")") or val.count("[") > val.count("]"):
            fields[current].append(line)
            last = no
        else:
            current = None
    out = {}
    for k, v in fields.items():
        out[k] = "\n".join(v) if k in MULTILINE else " ".join(x for x in v if x).strip()
    return out, order, (first, last), notes
