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
from .confidence import failure_lines, unexplained_failures

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
# Code, not output: a block header shaped like code, or the call assigned or compared.
_CODE = re.compile(r"^\s{0,16}(?:(?:if|elif|while)\b[^\n]{0,200}(?:==|!=|:\s{0,4}$)|assert\b|def\b)"
                   r"|\w\s{0,2}=\s{0,4}(?:not\s{1,3}|)(?:torch\.)?cuda\.is_available")
# Another expression typed at a prompt: a bare value under it is its answer, not CUDA's.
_EXPR = re.compile(r"^\s{0,8}(?:print\(|torch\.|[\w.]{1,60}\(\)\s{0,2}$)")
# A line that may say CUDA or a GPU is unavailable: _SAID costs too much to run on every line.
_SAID_HINTS = ("not", "n't", "no ", "unable", "unavailable", "false", "instead", "不可用", "用不了", "无法", "未启用")
# A line that holds none of these (lower-cased) can say nothing about CUDA's availability.
_STATE_WORDS = ("avail", "false", "true", "none", "cuda", "gpu", "()", "torch.", "print(")
_SAID = re.compile(
    r"(?i)(?<![a-z])(?:cuda|gpu)(?![a-z])[^\n.]{0,30}?\b(?:not|no|isn't|isnt|wasn't|is never)\s{1,3}(?:be\s{1,2}|being\s{1,2}|getting\s{1,2})?"
    r"(?:available|avaible|avalible|availabe|avaliable|detected|found|recogni[sz]ed|usable"
    r"|used(?!\s{1,3}(?:fully|efficiently|much|enough|to\s{1,3}(?:its|the)\s{1,3}full|at\s{1,3}(?:full|100))))"
    r"|\b(?:doesn't|does not|don't|do not|can't|cannot|couldn't|could not|won't|unable to)\s{1,3}"
    r"(?:use|detect|find|see|recogni[sz]e)\s{1,3}(?:the\s{1,2}|my\s{1,2}|any\s{1,2})?(?:gpu|cuda|nvidia)"
    r"|\bno\s{1,3}(?:nvidia\s{1,3}|cuda[- ]capable\s{1,3}|)(?:gpu|cuda)s?\s{1,3}(?:devices?\s{1,3}|)(?:is\s|are\s|was\s|were\s|)"
    r"(?:found|detected|available)"
    r"|(?:cuda|gpu)\s{0,2}(?:不可用|用不了|无法使用|未启用)|无法使用\s{0,2}(?:gpu|cuda)"
    r"|\bcpu\s{1,3}instead\s{1,3}of\s{1,3}(?:the\s{1,2}|my\s{1,2})?(?:gpu|cuda)"
    # "it says GPU unavailable", "my PyTorch's CUDA is false": the words, not a field or a flag
    # (not a flag's value, a config field or a test's skip reason: "--cuda false", "(CUDA unavailable)")
    r"|(?<![-\w(])(?:cuda|gpu)s?\s{1,3}(?:is\s{1,2}|was\s{1,2}|are\s{1,2}|)unavailable\b"
    r"|(?<![-\w(])cuda\s{1,3}(?:is|was|returns?|shows?)\s{1,2}false\b|(?<='s )cuda\s{1,3}false\b")
_CMAKE = re.compile(r"^\s{0,8}-- |Could NOT find")  # CMake's probe of a toolkit, not torch's
_NVIDIA_SHOWN = re.compile(r"GPU \d{1,2}: (?:NVIDIA|GeForce|Tesla|Quadro|TITAN)|Nvidia driver version: \d"
                           r"|NVIDIA-SMI \d{2,3}\.")
# The paste says the machine has no GPU to use: a CPU build is then no fault. A possession
# ("I have no GPU", "without a GPU", a CPU-only machine), an Apple machine (collect_env's OS
# field, "on an M1 Mac") or a README's "Expected output:" heading; never where the paste names
# an NVIDIA GPU ("No GPU found" is the complaint itself, not a machine without one).
_NO_GPU_HERE = re.compile(
    r"(?i)\b(?:i|we|it|(?:my|this|the|our)\s{1,3}(?:laptop|machine|computer|pc|server|mac|box|vm|host))\s{1,3}"
    r"(?:has|have|had|got)\s{1,3}no\s{1,3}(?:nvidia\s|dedicated\s|discrete\s|)(?:gpu|graphics card)"
    r"|\b(?:don't|do not|doesn't|does not)\s{1,3}have\s{1,3}an?\s{1,3}(?:nvidia\s|dedicated\s|discrete\s|)(?:gpu|graphics card)"
    r"|\bwithout\s{1,3}an?\s{1,3}(?:nvidia\s|dedicated\s|discrete\s|)(?:gpu|graphics card)"
    r"|\bcpu[- ]only\s(?:machine|laptop|server|host|box|system|vm)"
    r"|^\s{0,8}(?:OS: macOS|Python platform: macOS)|\bon\s{1,3}an?\s{1,3}(?:M[1-5]\w{0,6}\s|Apple [Ss]ilicon\s|Intel\s|)Mac(?:Book)?\b"
    r"|^\s{0,8}Expected (?:output|result)s?\s{0,2}:?\s{0,4}$", re.M)
_INSTALL_LINE = re.compile(r"(?i)pip3?\s{1,3}install|uv\s{1,3}(?:add|pip|sync)|^\s{0,8}RUN\s|conda\s{1,3}install|Downloading|"
                           r"Collecting|Found existing installation|[Uu]ninstall|Successfully (?:un)?installed|"
                           r"Requirement already|\.whl\b")
# A program's banner that says it runs on the CPU with a CPU-only torch (Ultralytics, YOLOv5:
# `torch-2.2.1+cpu CPU (...)`, `torch 1.11.0+cpu CPU`); with a CUDA torch it names `CUDA:0 (GPU)`.
# Every GPU-less user prints it, so it counts only where the paste also asks for a GPU.
_CPU_CHOSEN = re.compile(r"[Tt]orch[- ][12]\.\d{1,2}(?:\.\d{1,2})?\+cpu\s{1,3}CPU\b")
_GPU_WANTED = re.compile(r"(?i)\bcuda\b|\bgpus?\b|device[= ]['\"]?0\b|nvidia")
_GPU_NAMED = re.compile(r"\b(?:RTX|GTX|Tesla|Quadro|TITAN)\s{0,2}[A-Z]?\d{2,4}|NVIDIA (?:GeForce|RTX|[AHLBTV]\d)")
# A line that is only the value a call printed, as pasted or retold ("return False", "Out[3]: False").
_ANSWER = re.compile(r"^\s{0,8}(?:Out\[\d{1,4}\]:\s{0,4}|(?:it\s{1,2})?(?:returns?|returned|gives|prints|->|=>|>>|#)"
                     r"\s{0,2}:?\s{0,2})?['\"`]?(?P<v>False|false|True|true|None)['\"`]?\.?\s{0,4}$")
NEAR = 3  # a bare value this many lines under the call or the version it answers


@record
class Printed:
    builds: List[Tuple[int, str, bool]] = field(default_factory=list)  # (1-based line, build, strong)
    states: List[Tuple[int, bool]] = field(default_factory=list)  # (1-based line, CUDA available)
    nvidia: bool = False  # the paste names an NVIDIA GPU or shows its driver
    # A torch version appears on an install, download or command line: the build it names is
    # what was fetched or asked for, not necessarily what runs (a fix log, a README's options).
    install_log: bool = False
    # A program's banner said it chose the CPU beside the CPU build, and the paste asks for a GPU.
    cpu_chosen: bool = False
    # A short paste that prints no build says, in words, that CUDA or the GPU is unavailable or
    # unused (the question itself, without its cause): the line that says it, else 0.
    said: int = 0

    @property
    def pair(self) -> Optional[Tuple[int, str, int]]:
        """(build line, build, line of the unavailability) when CUDA was last printed
        unavailable: the build is the last one printed before it, else the first after. A CPU
        build printed beside an NVIDIA GPU says the same without the False: that torch cannot
        use the GPU the paste names; and so, more weakly, does a banner saying the program chose
        the CPU with that build."""
        if not self.states:
            last = _pick(self.builds, last=True)
            ok = ((self.nvidia or self.cpu_chosen) and last and last[1:] == ("cpu", True)
                  and not self.install_log)
            return (last[0], "cpu", 0) if ok else None
        if self.states[-1][1]:
            return None
        u = self.states[-1][0]
        pick = _pick([b for b in self.builds if b[0] <= u], last=True) or \
            _pick([b for b in self.builds if b[0] > u], last=False)
        return (pick[0], pick[1], u) if pick else None

    @property
    def observations(self) -> List[Tuple[str, int, int]]:
        """(observation, build line, line of the unavailability: 0 where the paste printed none,
        only a CPU build beside an NVIDIA GPU, which is then a possibility, not a diagnosis)."""
        pair = self.pair
        if pair is None:
            return [("cuda-said-unavailable", self.said, self.said)] if self.said else []
        name = "%s-build-cuda-unavailable" % pair[1]
        return [(name, pair[0], pair[2])] if name in OBSERVATIONS else []


# Every observation an entry may list, with what it means (the KB tests check the names).
OBSERVATIONS: Dict[str, str] = {
    "cpu-build-cuda-unavailable": "a CPU-only torch printed (+cpu, torch.version.cuda None) beside CUDA "
                                  "printed or said unavailable, or beside an NVIDIA GPU the paste names or a "
                                  "banner saying the program chose the CPU",
    "cuda-build-cuda-unavailable": "a CUDA build of torch printed (+cuXXX, torch.version.cuda X.Y) beside CUDA "
                                   "printed or said unavailable",
    "cuda-said-unavailable": "a short paste that prints no torch build says in words that CUDA or the GPU is "
                             "unavailable, not found or not used (\"No GPU found\", \"my GPU is not getting used\"), "
                             "on a machine it does not say lacks a GPU",
}


def _tag_build(tag: str) -> str:
    return "cuda" if tag.startswith("cu") else "rocm" if tag.startswith("rocm") else tag


def _build_of(line: str, prev: str) -> Tuple[Optional[str], bool, Optional[bool]]:
    """(build, strong, CUDA's availability a bare line printed after the version, if any) of one
    line (`prev`: the line before it that holds text). A strong build (a version tag, a
    ROCm/XPU/CUDA field) is never overridden by a weak one (CUDA printed None, which ROCm and
    XPU builds print too)."""
    m = _NAMED.search(line) if "orch" in line else None
    if m:
        return _tag_build(m.group("tag")), True, None
    bare = line.strip()
    if bare[:1] in ("1", "2", "'", '"', "`", "O") and "+" in bare:
        m = _BARE.match(bare)
        if m and not _COMPANION.search(prev):
            rest = m.group("rest")
            printed = True if "True" in rest else False if "False" in rest else None
            return _tag_build(m.group("tag")), True, printed
    if "used to build" not in line and "version." not in line:
        return None, False, None
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
        return _said(lines, text)  # no version string and no build field (the common case)
    builds, bare_states = _builds(lines)
    if not builds:
        return _said(lines, text)
    nvidia_shown = _NVIDIA_SHOWN.search(text) is not None
    nvidia = nvidia_shown or _GPU_NAMED.search(text) is not None
    if _NO_GPU_HERE.search(text) and not nvidia:
        return Printed()
    install_log = any(_INSTALL_LINE.search(lines[b[0] - 1]) for b in builds)
    cpu_chosen = _CPU_CHOSEN.search(text) is not None and _GPU_WANTED.search(text) is not None
    return Printed(builds, _states(lines, {b[0] for b in builds}, bare_states, nvidia_shown), nvidia, install_log,
                   cpu_chosen)


# A paste longer than this is a log, whose "no GPU found" is one notice among many, not the question.
SAID_LINES = 40
# Lines that say it without being the user's report of it: code (a print, a log call, a comment),
# a condition ("If no GPU is found, ..."), a wish or a how-to ("how do I force the CPU instead of
# the GPU", "allow a CPU-only mode").
_NOT_REPORTED = re.compile(r"(?i)print\(|log(?:ger|ging|)\.\w{1,12}\(|^\s{0,8}(?:#|//|if\b|when\b|whenever\b|unless\b)"
                           r"|\b(?:how (?:do|can|to)|force|allow|option|flag|want to|would like)\b")
# Not CUDA's question: another vendor's GPU.
_OTHER_GPU = re.compile(r"(?i)\brocm\b|\bradeon\b|\bamd\s{1,3}(?:gpu|rx|radeon)|\bintel\s{1,3}arc\b")


def _said(lines: List[str], text: str) -> Printed:
    """A short paste without a build printed and without a failure line: the last line where the
    user says CUDA or the GPU is unavailable or unused, where nothing after it says it works and the
    paste does not say the machine has no NVIDIA GPU."""
    low = text.lower()
    if len(lines) > SAID_LINES or ("gpu" not in low and "cuda" not in low):
        return Printed()
    if _OTHER_GPU.search(text) or _NO_GPU_HERE.search(text) or next(failure_lines(text), None) is not None:
        return Printed()
    said = [i for i, line in enumerate(lines, 1) if _says_unavailable(line) and not _NOT_REPORTED.search(line)]
    if not said:
        return Printed()
    # a later print or word that CUDA works (the fix worked) clears it
    if any(ok for i, ok in _states(lines, set(), {}, False) if i > said[-1]):
        return Printed()
    return Printed(said=said[-1])


def _says_unavailable(line: str) -> bool:
    """Whether a line says, in words, that CUDA or the GPU is unavailable or unused."""
    low = line.lower()
    return (("cuda" in low or "gpu" in low or "cpu" in low) and any(h in low for h in _SAID_HINTS)
            and not _CODE.search(line) and not _CMAKE.search(line) and _SAID.search(line) is not None)


def _builds(lines: List[str]) -> Tuple[List[Tuple[int, str, bool]], Dict[int, bool]]:
    """(line, build, strong) for every build printed, and {line: CUDA available} for the bare
    version lines that printed the availability after the version."""
    out: List[Tuple[int, str, bool]] = []
    bare_states: Dict[int, bool] = {}
    cuda_version_call, prev = -NEAR - 1, ""
    for i, line in enumerate(lines, 1):
        if "+" in line or "used to build" in line or "version." in line:
            build, strong, printed = _build_of(line, prev)
            if build is not None:
                out.append((i, build, strong))
                if printed is not None:
                    bare_states[i] = printed
            if "version.cuda" in line and "is_available" not in line:
                cuda_version_call = i
        elif 0 < i - cuda_version_call <= NEAR and line.strip().strip("'\"`") == "None":
            out.append((i, "cpu", False))  # print(torch.version.cuda) printed None
        if line.strip():
            prev = line
    return out, bare_states


def _states(lines: List[str], build_lines, bare_states: Dict[int, bool], nvidia_shown: bool) -> List[Tuple[int, bool]]:
    """(line, CUDA available) for every line that prints or says it (`nvidia_shown`: the paste
    shows an NVIDIA GPU or driver, without which collect_env's False is no question)."""
    states: List[Tuple[int, bool]] = []
    last_source = -NEAR - 1
    for i, line in enumerate(lines, 1):
        if i in build_lines:
            last_source = i
            if i in bare_states:
                states.append((i, bare_states[i]))
                continue
        low = line.lower()
        if not any(w in low for w in _STATE_WORDS):
            continue  # most lines of a log: nothing about CUDA, no value, no call
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
            if v != "none" and 0 < i - last_source <= NEAR:
                states.append((i, v == "true"))
            continue
        if i not in build_lines and _EXPR.match(line):
            last_source = -NEAR - 1  # another call's value follows, not CUDA's
            continue
        m = _FIELD.search(line)
        if m:
            if _COLLECT_ENV_FIELD.match(line) and m.group("v").lower() in ("false", "no") and not nvidia_shown:
                continue
            states.append((i, m.group("v").lower() in ("true", "yes")))
            continue
        if ("cuda" in low or "gpu" in low) and _says_unavailable(line):
            states.append((i, False))
    return states


def _pick(builds: List[Tuple[int, str, bool]], last: bool) -> Optional[Tuple[int, str, bool]]:
    """The build a run of prints says: the nearest one (the last before the unavailability, or
    the first after it), except that CUDA printed None never stands for a ROCm or XPU build
    printed in the same run (those builds print it too)."""
    if not builds:
        return None
    near = builds[-1] if last else builds[0]
    if not near[2]:
        other = [b for b in builds if b[2] and b[1] in ("rocm", "xpu")]
        if other:
            return other[-1] if last else other[0]
    return near


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
    seen = [m.text for m in found] + [m.anchor_line for m in found]
    for name, build_line, state_line in read(lines).observations:
        # The unavailability may itself be the failure ("ValueError: CUDA is not available").
        # Nothing printed unavailable (a CPU build beside a named GPU): only a possibility.
        explained = seen + [lines[build_line - 1]] + ([lines[state_line - 1]] if state_line else [])
        beside = not state_line or bool(unexplained_failures(col.context.failures, explained))
        for entry in _printing(name):
            new = entry.id not in col.found
            col.add(build_line, lines[build_line - 1], [(entry, 20 * entry.priority + PRINTED_EVIDENCE, {}, "")])
            if new:
                col.found[entry.id].observed_beside_failure = beside


@lru_cache(maxsize=None)
def _printing(name: str) -> Tuple[Entry, ...]:
    return tuple(e for e in load_entries() if name in e.printed)
