"""What a paste printed about torch itself, read as facts: the build its version names
(``2.4.0+cpu``, ``torch.version.cuda: None``, collect_env's ``CUDA used to build PyTorch``)
and whether CUDA was printed unavailable (``torch.cuda.is_available()`` and a ``False``
under it, ``Is CUDA available: False``, "cuda is not available" in the user's words).

Many reports hold no error line at all, only these prints: the question is "why is CUDA not
available" and the answer is in the version string. Neither half is a known error on its
own (a CPU build on a laptop without a GPU is no fault; a False on a machine without a GPU
is no question), so an entry applies only to both together: an *observation*, named here,
and claimed by the entries that list it under ``printed`` (kb/errors/*.json). match_text asks
for observations only when no line gave a diagnosis.

Deliberately narrow: a version string counts only on a line that names torch or on a line
of its own (what ``print(torch.__version__)`` writes); collect_env's ``Is CUDA available:
False`` counts only when the paste also shows an NVIDIA GPU or driver (a CPU machine's
collect_env block says False in every report, whatever the report is about).
"""

import re
from functools import lru_cache
from typing import Dict, List, Optional, Tuple

from ..kb.errors import Entry, load_entries
from ..model.records import record

# A torch release with a local build tag. Majors 1 and 2 only on a bare line: torchvision's
# 0.x is no torch, and a bare line has nothing else to tell them apart by.
_VERSION = (r"(?<![\w.])[12]\.\d{1,2}(?:\.\d{1,2})?(?:(?:a|b|rc)\d{1,2}|\.dev\d{8}|\.post\d{1,2}){0,2}"
            r"\+(?P<tag>cpu|cu\d{2,3}|rocm\d{1,2}(?:\.\d{1,2}){0,2}|xpu)(?![\w.])")
_NAMED = re.compile(r"(?<![\w-])(?:[Pp]y)?[Tt]orch(?:\.__version__|\s{0,2}[Vv]ersion)?['\"`]?\)?\s{0,24}"
                    r"(?:==?|:|-|\s|is\s)\s{0,4}['\"`]?" + _VERSION)
_BARE = re.compile(r"^(?:Out\[\d{1,4}\]:\s{0,4})?['\"`]?" + _VERSION + r"['\"`]?$")
# torch.version.cuda printed None; collect_env prints None as "Could not collect".
_NO_CUDA = re.compile(r"(?:torch\.version\.cuda\)?|CUDA used to build PyTorch)\s{0,4}[:=]?\s{0,4}"
                      r"['\"`]?(?:None|Could not collect)\b")
_ROCM_BUILD = re.compile(r"(?:torch\.version\.hip\)?|ROCM used to build PyTorch)\s{0,4}[:=]?\s{0,4}['\"`]?\d")
_CUDA_BUILD = re.compile(r"(?:torch\.version\.cuda\)?|CUDA used to build PyTorch)\s{0,4}[:=]?\s{0,4}['\"`]?\d{2}\.\d")

_FALSE_AFTER_CALL = re.compile(r"is_available\(\)\)?[^\n]{0,40}?\b(?:False|false)\b")
_FIELD_FALSE = re.compile(r"(?i)\bcuda\s{0,2}(?:is\s{1,2})?avail(?:able|ability)\s{0,2}[:=?]\s{0,4}['\"`]?(?:false|no)\b")
_COLLECT_ENV_FIELD = re.compile(r"^\s{0,8}Is CUDA available:")
_SAID = re.compile(
    r"(?i)(?<![a-z])(?:cuda|gpu)(?![a-z])[^\n.]{0,30}?\b(?:not|no|isn't|isnt|wasn't|is never)\s{1,3}(?:be\s{1,2}|being\s{1,2})?"
    r"(?:available|avaible|avalible|availabe|avaliable|detected|found|recogni[sz]ed|used|usable)"
    r"|\b(?:doesn't|does not|don't|do not|can't|cannot|couldn't|could not|won't|unable to)\s{1,3}"
    r"(?:use|detect|find|see|recogni[sz]e)\s{1,3}(?:the\s{1,2}|my\s{1,2}|any\s{1,2})?(?:gpu|cuda|nvidia)"
    r"|(?:cuda|gpu)\s{0,2}(?:不可用|用不了|无法使用|未启用)|无法使用\s{0,2}(?:gpu|cuda)")
_GPU_SHOWN = re.compile(r"GPU \d{1,2}: |NVIDIA (?:GeForce|RTX|Tesla|Quadro|[AHLBTV]\d)|Nvidia driver version: \d"
                        r"|Driver Version: \d|NVIDIA-SMI \d")

# A line that is only the False a call printed, as pasted or retold ("return False", "-> False").
_ANSWER = re.compile(r"^\s{0,8}(?:(?:it\s{1,2})?(?:returns?|returned|gives|prints|->|=>|>>|#)\s{0,2}:?\s{0,2})?"
                     r"['\"`]?(?:False|false)['\"`]?\.?\s{0,4}$")
NEAR = 3  # a bare False this many lines under the call or the version it answers


@record
class Printed:
    build: Optional[str] = None  # "cpu", "cuda", "rocm" or "xpu": the last one the paste printed
    build_line: int = 0  # 1-based
    unavailable_line: int = 0  # 1-based; 0: CUDA was not printed unavailable

    @property
    def observations(self) -> List[str]:
        name = "%s-build-cuda-unavailable" % self.build
        return [name] if self.unavailable_line and name in OBSERVATIONS else []


# Every observation an entry may list, with what it means (the KB tests check the names).
OBSERVATIONS: Dict[str, str] = {
    "cpu-build-cuda-unavailable": "a CPU-only torch printed (+cpu, torch.version.cuda None) beside CUDA "
                                  "printed or said unavailable",
    "cuda-build-cuda-unavailable": "a CUDA build of torch printed (+cuXXX, torch.version.cuda X.Y) beside CUDA "
                                   "printed or said unavailable",
}


def _tag_build(tag: str) -> str:
    return "cuda" if tag.startswith("cu") else "rocm" if tag.startswith("rocm") else tag


def _build_of(line: str) -> Optional[str]:
    m = _NAMED.search(line) or _BARE.match(line.strip())
    if m:
        return _tag_build(m.group("tag"))
    if _ROCM_BUILD.search(line):
        return "rocm"
    if _CUDA_BUILD.search(line):
        return "cuda"
    if _NO_CUDA.search(line):
        return "cpu"
    return None


def read(lines: List[str]) -> Printed:
    """The printed facts of a paste's normalised lines."""
    out = Printed()
    text = "\n".join(lines)
    if "+" not in text and "used to build" not in text and "version." not in text:
        return out  # no version string and no build field: nothing to read (the common case)
    gpu_shown: Optional[bool] = None
    answers: List[int] = []  # lines a bare False may answer: a call's or a version's
    rocm_field = False
    for i, line in enumerate(lines, 1):
        build = _build_of(line)
        if build is not None:
            if build == "rocm" and "ROCM used to build" in line:
                rocm_field = True
            # collect_env prints "CUDA used to build PyTorch: Could not collect" on ROCm builds too.
            if not (build == "cpu" and rocm_field):
                out.build, out.build_line = build, i
            answers.append(i)
        if out.unavailable_line:
            continue
        if "is_available" in line:
            if _FALSE_AFTER_CALL.search(line):
                out.unavailable_line = i
                continue
            answers.append(i)
        if _ANSWER.match(line) and any(0 < i - a <= NEAR for a in answers):
            out.unavailable_line = i
        elif _FIELD_FALSE.search(line):
            if _COLLECT_ENV_FIELD.match(line):
                if gpu_shown is None:
                    gpu_shown = _GPU_SHOWN.search(text) is not None
                if not gpu_shown:
                    continue
            out.unavailable_line = i
        elif _SAID.search(line):
            out.unavailable_line = i
    return out


def observations(lines: List[str]) -> List[Tuple[str, int]]:
    """(observation, 1-based line to quote) for what the paste printed."""
    p = read(lines)
    return [(o, p.build_line) for o in p.observations]


# What an observation weighs: above the matcher's POSSIBLE_BELOW, so an entry that names a cause
# is a diagnosis on it (the version string and the False together are that distinct); an entry
# that names a symptom stays "possibly".
PRINTED_EVIDENCE = 12.0


def printed_pass(col, lines: List[str]) -> None:
    """Add to the matcher's Collector `col` the entries that explain what the paste printed."""
    for name, line_no in observations(lines):
        for entry in _printing(name):
            col.add(line_no, lines[line_no - 1], [(entry, 20 * entry.priority + PRINTED_EVIDENCE, {}, "")])


@lru_cache(maxsize=None)
def _printing(name: str) -> Tuple[Entry, ...]:
    return tuple(e for e in load_entries() if name in e.printed)
