"""What a paste printed about torch itself, read as facts: the build its version names
(``2.4.0+cpu``, ``torch.version.cuda: None``, collect_env's ``CUDA used to build PyTorch``)
and whether CUDA was printed available (``torch.cuda.is_available()`` and a ``False`` under
it, ``Is CUDA available: False``, "cuda is not available" in the user's words).

Many reports hold no error line at all, only these prints: the question is "why is CUDA not
available" and the answer is in the version string. Neither half is a known error on its
own (a CPU build on a laptop without a GPU is no fault; a False on a machine without a GPU
is no question), so an entry applies only to both together: an *observation*, named here,
and claimed by the entries that list it under ``printed`` (kb/errors/*.json). match_text asks
for observations only when no line gave a diagnosis, and an observation beside a failure
that no match explains is only a possibility (the paste is about that failure).

Deliberately narrow:
* a version string counts only on a line that names torch or on a line of its own (what
  ``print(torch.__version__)`` writes), and not under a line naming torchvision/torchaudio;
* a build read from a version tag or a ROCm/XPU field is not overridden by a later "CUDA:
  None" (every ROCm and XPU build prints that); the build paired with the unavailability is
  the last one printed before it (a reinstall narrative prints two);
* the last availability printed decides: a True after the False (the fix worked) is no
  question any more;
* only ``cuda.is_available`` counts, and not on a line of code (``if ...:``, ``assert``);
* collect_env's ``Is CUDA available: False`` counts only when the paste shows an NVIDIA GPU
  or driver, and nothing counts where the paste says there is no GPU to use (no GPU, an
  Apple machine, a README's expected output).
"""

import re
from functools import lru_cache
from typing import Dict, List, Optional, Tuple

from ..kb.errors import Entry, load_entries
from ..model.records import field, record
from .confidence import unexplained_failures

# A torch release with a local build tag. Majors 1 and 2 only: torchvision's 0.x is no torch.
_VERSION = (r"(?<![\w.])[12]\.\d{1,2}(?:\.\d{1,2})?(?:(?:a|b|rc)\d{1,2}|\.dev\d{8}|\.post\d{1,2}){0,2}"
            r"\+(?P<tag>cpu|cu\d{2,3}|rocm\d{1,2}(?:\.\d{1,2}){0,2}|xpu)(?![\w.])")
# ds_report pads its labels with dots ("torch version .... 2.4.0+cu121").
_NAMED = re.compile(r"(?<![\w-])(?:[Pp]y)?[Tt]orch(?:\.__version__|\s{0,2}[Vv]ersion)?['\"`]?\)?[\s.]{0,40}"
                    r"(?:==?|:|-|\s|is\s)\s{0,4}['\"`]?" + _VERSION)
# A line of its own, perhaps with the values printed after it (print(torch.__version__,
# torch.version.cuda, torch.cuda.is_available())).
_BARE = re.compile(r"^(?:Out\[\d{1,4}\]:\s{0,4})?['\"`]?" + _VERSION +
                   r"['\"`]?(?P<rest>(?:,?\s{1,4}['\"`]?(?:None|\d{1,2}\.\d{1,2}|True|False)['\"`]?){0,3})$")
_COMPANION = re.compile(r"(?i)torchvision|torchaudio|torchcodec|xformers|torchtext|torchdata")
# torch.version.cuda printed None; collect_env prints None as "Could not collect".
_NO_CUDA = re.compile(r"(?:torch\.version\.cuda\)?|CUDA used to build PyTorch)\s{0,4}[:=]?\s{0,4}"
                      r"['\"`]?(?:None|Could not collect)\b")
_ROCM_BUILD = re.compile(r"(?:torch\.version\.hip\)?|ROCM used to build PyTorch)\s{0,4}[:=]?\s{0,4}['\"`]?\d")
_XPU_BUILD = re.compile(r"XPU used to build PyTorch:\s{0,4}\d")
_CUDA_BUILD = re.compile(r"(?:torch\.version\.cuda\)?|CUDA used to build PyTorch)\s{0,4}[:=]?\s{0,4}['\"`]?\d{2}\.\d")

_CALL = re.compile(r"cuda\.is_available\(\)\)?[^\n]{0,40}?\b(?P<v>False|false|True|true)\b")
_FIELD = re.compile(r"(?i)\bcuda\s{0,2}(?:is\s{1,2})?avail(?:able|ability)\s{0,2}[:=?]\s{0,4}['\"`]?(?P<v>false|no|true|yes)\b")
_COLLECT_ENV_FIELD = re.compile(r"^\s{0,8}Is CUDA available:")
_CODE = re.compile(r"^\s{0,16}(?:if|elif|assert|while|def)\b|:\s{0,4}$")
_SAID = re.compile(
    r"(?i)(?<![a-z])(?:cuda|gpu)(?![a-z])[^\n.]{0,30}?\b(?:not|no|isn't|isnt|wasn't|is never)\s{1,3}(?:be\s{1,2}|being\s{1,2})?"
    r"(?:available|avaible|avalible|availabe|avaliable|detected|found|recogni[sz]ed|used|usable)"
    r"|\b(?:doesn't|does not|don't|do not|can't|cannot|couldn't|could not|won't|unable to)\s{1,3}"
    r"(?:use|detect|find|see|recogni[sz]e)\s{1,3}(?:the\s{1,2}|my\s{1,2}|any\s{1,2})?(?:gpu|cuda|nvidia)"
    r"|(?:cuda|gpu)\s{0,2}(?:不可用|用不了|无法使用|未启用)|无法使用\s{0,2}(?:gpu|cuda)")
_CMAKE = re.compile(r"^\s{0,8}-- |Could NOT find")  # CMake's probe of a toolkit, not torch's
_NVIDIA_SHOWN = re.compile(r"GPU \d{1,2}: (?:NVIDIA|GeForce|Tesla|Quadro|TITAN)|Nvidia driver version: \d"
                           r"|NVIDIA-SMI \d{2,3}\.")
# The paste says there is no GPU to use: a CPU build is then no fault.
_NO_GPU_HERE = re.compile(
    r"(?i)\b(?:no|without an?|don't have an?|do not have an?|doesn't have an?)\s{1,3}(?:nvidia\s|dedicated\s|"
    r"discrete\s|)(?:gpu|graphics card)s?\b|\bcpu[- ]only\s(?:machine|laptop|server|host|box|system|environment)"
    r"|\bexpected(?:\s(?:output|result))?\s{0,2}:|\bmacOS\b|\bDarwin\b|Apple (?:M\d|[Ss]ilicon)|\bM[1-5] (?:Mac|Pro|Max|Ultra)")
# A line that is only the value a call printed, as pasted or retold ("return False", "Out[3]: False").
_ANSWER = re.compile(r"^\s{0,8}(?:Out\[\d{1,4}\]:\s{0,4}|(?:it\s{1,2})?(?:returns?|returned|gives|prints|->|=>|>>|#)"
                     r"\s{0,2}:?\s{0,2})?['\"`]?(?P<v>False|false|True|true|None)['\"`]?\.?\s{0,4}$")
NEAR = 3  # a bare value this many lines under the call or the version it answers


@record
class Printed:
    builds: List[Tuple[int, str, bool]] = field(default_factory=list)  # (1-based line, build, strong)
    states: List[Tuple[int, bool]] = field(default_factory=list)  # (1-based line, CUDA available)

    @property
    def pair(self) -> Optional[Tuple[int, str, int]]:
        """(build line, build, line of the unavailability) when CUDA was last printed
        unavailable: the build is the last one printed before it, else the first after."""
        if not self.states or self.states[-1][1]:
            return None
        u = self.states[-1][0]
        pick = _pick([b for b in self.builds if b[0] <= u], last=True) or \
            _pick([b for b in self.builds if b[0] > u], last=False)
        return (pick[0], pick[1], u) if pick else None

    @property
    def observations(self) -> List[Tuple[str, int]]:
        pair = self.pair
        if pair is None:
            return []
        name = "%s-build-cuda-unavailable" % pair[1]
        return [(name, pair[0])] if name in OBSERVATIONS else []


# Every observation an entry may list, with what it means (the KB tests check the names).
OBSERVATIONS: Dict[str, str] = {
    "cpu-build-cuda-unavailable": "a CPU-only torch printed (+cpu, torch.version.cuda None) beside CUDA "
                                  "printed or said unavailable",
    "cuda-build-cuda-unavailable": "a CUDA build of torch printed (+cuXXX, torch.version.cuda X.Y) beside CUDA "
                                   "printed or said unavailable",
}


def _tag_build(tag: str) -> str:
    return "cuda" if tag.startswith("cu") else "rocm" if tag.startswith("rocm") else tag


def _build_of(line: str, after_companion: bool) -> Tuple[Optional[str], bool, Optional[str]]:
    """(build, strong, the availability a bare line printed after the version) of one line. A
    strong build (a version tag, a ROCm/XPU/CUDA field) is never overridden by a weak one
    (CUDA printed None, which ROCm and XPU builds print too)."""
    m = _NAMED.search(line)
    if m:
        return _tag_build(m.group("tag")), True, None
    m = None if after_companion else _BARE.match(line.strip())
    if m:
        rest = m.group("rest")
        return _tag_build(m.group("tag")), True, ("False" if "False" in rest else "True" if "True" in rest else None)
    if _ROCM_BUILD.search(line):
        return "rocm", True, None
    if _XPU_BUILD.search(line):
        return "xpu", True, None
    if _CUDA_BUILD.search(line):
        return "cuda", True, None
    if _NO_CUDA.search(line):
        return "cpu", False, None
    return None, False, None


def read(lines: List[str]) -> Printed:
    """The printed facts of a paste's normalised lines."""
    text = "\n".join(lines)
    if "+" not in text and "used to build" not in text and "version." not in text:
        return Printed()  # no version string and no build field: nothing to read (the common case)
    if _NO_GPU_HERE.search(text):
        return Printed()
    builds: List[Tuple[int, str, bool]] = []  # (line, build, strong)
    states: List[Tuple[int, bool]] = []  # (line, CUDA available)
    nvidia: Optional[bool] = None
    last_source, cuda_version_call, prev = -NEAR - 1, -NEAR - 1, ""
    for i, line in enumerate(lines, 1):
        build, strong, printed = _build_of(line, _COMPANION.search(prev) is not None)
        if line.strip():
            prev = line
        if build is not None:
            builds.append((i, build, strong))
            last_source = i
            if printed is not None:
                states.append((i, printed == "True"))
                continue
        if "version.cuda" in line and "is_available" not in line:
            cuda_version_call = i
        if _CODE.search(line):
            continue
        if "cuda.is_available" in line:
            m = _CALL.search(line)
            if m:
                states.append((i, m.group("v").lower() == "true"))
            else:
                last_source = i
            continue
        m = _ANSWER.match(line)
        if m:
            v = m.group("v").lower()
            if v == "none":
                if 0 < i - cuda_version_call <= NEAR:
                    builds.append((i, "cpu", False))
            elif 0 < i - last_source <= NEAR:
                states.append((i, v == "true"))
            continue
        m = _FIELD.search(line)
        if m:
            if _COLLECT_ENV_FIELD.match(line) and m.group("v").lower() in ("false", "no"):
                if nvidia is None:
                    nvidia = _NVIDIA_SHOWN.search(text) is not None
                if not nvidia:
                    continue
            states.append((i, m.group("v").lower() in ("true", "yes")))
        elif _SAID.search(line) and not _CMAKE.search(line):
            states.append((i, False))
    return Printed(builds, states)


def _pick(builds: List[Tuple[int, str, bool]], last: bool) -> Optional[Tuple[int, str, bool]]:
    """The build a run of prints says: the last (or first) strong one, else a weak one."""
    for want in (True, False):
        chosen = [b for b in builds if b[2] is want]
        if chosen:
            return chosen[-1] if last else chosen[0]
    return None


def observations(lines: List[str]) -> List[Tuple[str, int]]:
    """(observation, 1-based line to quote) for what the paste printed."""
    return read(lines).observations


# What an observation weighs: above the matcher's POSSIBLE_BELOW, so an entry that names a cause
# is a diagnosis on it (the version string and the False together are that distinct); an entry
# that names a symptom stays "possibly", and so does any observation beside a failure that no
# match explains.
PRINTED_EVIDENCE = 12.0


def printed_pass(col, lines: List[str]) -> None:
    """Add to the matcher's Collector `col` the entries that explain what the paste printed.
    The entries come from the whole knowledge base: which KB files the caller's index loaded
    was chosen by anchors, and an observation has none."""
    found = list(col.found.values())
    beside = bool(unexplained_failures(col.context.failures, [m.text for m in found] + [m.anchor_line for m in found]))
    for name, line_no in observations(lines):
        for entry in _printing(name):
            new = entry.id not in col.found
            col.add(line_no, lines[line_no - 1], [(entry, 20 * entry.priority + PRINTED_EVIDENCE, {}, "")])
            if new:
                col.found[entry.id].observed_beside_failure = beside


@lru_cache(maxsize=None)
def _printing(name: str) -> Tuple[Entry, ...]:
    return tuple(e for e in load_entries() if name in e.printed)
