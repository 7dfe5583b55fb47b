"""One line of error text as the patterns see it: ANSI colours, CRs and shell/REPL
prompts removed, full-width CJK punctuation and escaped quotes folded to ASCII, and an
enormous line cut to its first and last 32 KiB. The paste matcher and the log scan
both normalise with this, so a line matches the same wherever it came from.
"""

import re

MAX_LINE = 64 * 1024  # longer lines are matched on their first and last 32 KiB

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
# The same, for whole chunks of bytes: a sequence never spans a newline.
ANSI_BYTES = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
PROMPT = re.compile(r"^(?:>>> |\.\.\. |\$ |# |In \[\d+\]: |PS [^>\n]{0,200}> )")


# Full-width punctuation from CJK input methods and Windows messages, and the
# escaped quotes of a repr()'d or JSON-logged message, as the ASCII the patterns use.
FOLD = str.maketrans({"\uff1a": ":", "\uff08": "(", "\uff09": ")", "\uff0c": ",", "\uff1f": "?",
                       "\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'", "\uff07": "'",
                       "\uff02": '"', "\u3000": " "})
FOLD_CHARS = frozenset("\uff1a\uff08\uff09\uff0c\uff1f\u201c\u201d\u2018\u2019\uff07\uff02\u3000")


def normalize(line: str) -> str:
    if "\x1b" in line:
        line = ANSI.sub("", line)
    return normalize_rest(line.rstrip("\r\n").replace("\r", ""))


def normalize_rest(line: str) -> str:
    """All of normalize() but removing ANSI sequences and CRs (the log scan does
    those on whole chunks)."""
    if "\\'" in line:
        line = line.replace("\\'", "'")
    if not line.isascii() and not FOLD_CHARS.isdisjoint(line):
        line = line.translate(FOLD)
    if len(line) > MAX_LINE:
        line = line[: MAX_LINE // 2] + " ... " + line[-MAX_LINE // 2:]
    return PROMPT.sub("", line, count=1)
