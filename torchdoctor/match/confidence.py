"""How sure a match is: the score bands below which a match is dropped or only "possible", and
the failure lines beside which a notice entry is no diagnosis (matcher.Context, Match.confidence).
"""
import re
from typing import Iterable, Iterator, Union

# Confidence floor: a weak match must not read as a cause. Chosen from the scores of the
# top match of every text in tests/eval/*.jsonl (about 1,900 labelled texts and 290
# unrelated ones):
# * EVIDENCE_FLOOR: a match whose evidence (Match.evidence) is below it is no
#   diagnosis and is dropped. The weakest correct top match in the eval sets has
#   evidence 5.4 (a 4-character anchor with a Chinese sentence); below 5 there
#   is nothing but a case-folded hit of a short anchor ("a.CUDA() hangs": -1.7),
#   where the anchor no longer says what it said in its own case.
# * POSSIBLE_BELOW: a match scoring below it is kept but marked POSSIBLE. Every
#   wrong top match and every false diagnosis on the unrelated sets scores 15 or
#   more, so the band costs no right answer; what falls in it (score < 10: all
#   negative scores, i.e. catch-all entries such as cuda-not-available or
#   nccl-warn-log found alone, and exact hits of very short anchors) is right
#   in the eval sets but is an observation, not a cause. A negative score is
#   therefore never a HIGH diagnosis; since the ranking is by score, a POSSIBLE
#   match never ranks above a HIGH one.
EVIDENCE_FLOOR = 5.0
POSSIBLE_BELOW = 10.0

# The line of a failure: a traceback, an exception, a crash. A notice entry (a deprecation, a
# launcher's note) matched beside one is not that failure's cause. Bounded repeats: linear.
# Prefixes: torchrun's [rankN]: and --tee's [defaultN]:, pytest's "E   ". A CUDA or link tool's
# fatal line (ptxas fatal, nvcc fatal), a compiler's "fatal error:" (gcc's, MSVC's C1083, LINK's
# LNK1181), ninja's and a SIGILL are failures too; of git's "fatal:" lines only a failed clone or
# fetch is (pip builds print its "No names found" harmlessly).
FAILURE_LINE = (r"^(?:\[(?:rank|default)\d{1,6}\]:|E {1,8}|)[ \t]{0,8}(?:Traceback \(most recent call last\)|"
                r"(?:[A-Za-z_][\w.]{0,120}|)(?:Error|Exception)(?::|$)|Segmentation fault|Aborted \(core dumped\)|"
                r"terminate called|Illegal instruction|"
                r"(?:ptxas|nvcc|nvlink|fatbinary|cicc|ld|collect2|hipcc) {1,4}fatal[ \t]{0,8}:|ninja: fatal:|"
                r"fatal: (?:unable to access|repository [^\n]{1,300} not found|could not read)|"
                r"(?:\S{1,200} ?: |)fatal error(?: [A-Z]{1,3}\d{3,5}|)[ \t]{0,8}:)[^\n]{0,300}")
# A chunk of a log holds no failure line unless it holds one of these: a clean log skips the regex.
_FAILURE_WORDS = (b"rror", b"xception", b"Traceback", b"Segmentation fault", b"Aborted", b"terminate called",
                  b"Illegal instruction", b"fatal")
_FAILURE = re.compile(FAILURE_LINE, re.M)
_FAILURE_BYTES = re.compile(FAILURE_LINE.encode(), re.M)
FAILURES_KEPT = 32  # distinct failure lines remembered: enough to tell one from a notice's own


def failure_lines(text: Union[str, bytes]) -> Iterator[str]:
    """The failure lines of a text, or of a chunk of a log's bytes."""
    if isinstance(text, bytes):
        if not any(w in text for w in _FAILURE_WORDS):
            return iter(())
        return (m.group(0).decode("utf-8", "replace") for m in _FAILURE_BYTES.finditer(text))
    return (m.group(0) for m in _FAILURE.finditer(text))


# A warning raised as an exception (python -W error, pytest's filterwarnings=error): the line
# starts with its class, where a printed warning starts with the file that warned.
_RAISED_WARNING = re.compile(r"^(?:\[(?:rank|default)\d{1,6}\]:|)[ \t]{0,8}[A-Za-z_][\w.]{0,80}Warning: ")


def _own(failure: str, line: str) -> bool:
    """Whether a failure line is the notice's matched line itself (read raw or normalised); a
    short one ('KeyError') inside the notice's text is not its own."""
    failure, line = failure.strip(), line.strip()
    return failure == line or (len(failure) >= 24 and (failure in line or line in failure))


def beside_failure(line: str, failures: Iterable[str]) -> bool:
    """Whether a notice matched on `line` stands beside a failure of its text: a failure line
    other than its own. When the warning was itself raised, the traceback it ends is its own."""
    raised = _RAISED_WARNING.match(line) is not None
    return any(not _own(f, line) and not (raised and "Traceback (most recent call last)" in f) for f in failures)


def unexplained_failures(failures: Iterable[str], lines: Iterable[str]) -> list:
    """The failure lines that are none of `lines` (the lines matches were found on). A
    traceback's header is no failure of its own: the error line that ends it is."""
    lines = list(lines)
    return [f for f in failures if not f.startswith("Traceback (most recent call last)")
            and not any(_own(f, ln) for ln in lines)]


def mark_notices(matches, failures: Iterable[str]) -> None:
    """Set Match.beside_failure on each match: a notice entry's match beside a failure line."""
    failures = list(failures)
    for m in matches:
        m.beside_failure = m.entry.notice and beside_failure(m.anchor_line, failures)
