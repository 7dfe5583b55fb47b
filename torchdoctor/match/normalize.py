"""One line of error text as the patterns see it: ANSI colours, CRs and shell/REPL
prompts removed, full-width CJK punctuation, no-break spaces and escaped quotes folded to
ASCII, and an enormous line cut to its first and last 32 KiB. The paste matcher and the log
scan both normalise with this, so a line matches the same wherever it came from.
`unmarkup` undoes HTML escaping of a whole pasted text (a message copied from a page's source
or an e-mail: `&#39;`, `&quot;`, `<br>`), URL escaping of one copied out of a link or a search box
(`undefined%20symbol`), and the links a Markdown editor makes of file names that look like host
names (`[libcudnn.so](http://libcudnn.so/).8`).
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
                       "\uff02": '"', "\u3000": " ", "\u00a0": " "})
FOLD_CHARS = frozenset("\uff1a\uff08\uff09\uff0c\uff1f\u201c\u201d\u2018\u2019\uff07\uff02\u3000\u00a0")

# HTML character references and line breaks (the named ones error text uses).
MARKUP = r"(?i)&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|(quot|amp|lt|gt|apos|nbsp));|<br\s{0,4}/?>"
NAMED = {"quot": '"', "amp": "&", "lt": "<", "gt": ">", "apos": "'", "nbsp": " "}


def _unmark(m: "re.Match[str]") -> str:
    dec, hexa, name = m.groups()
    if name:
        return NAMED[name.lower()]
    if dec or hexa:
        code = int(dec) if dec else int(hexa, 16)
        return chr(code) if 0 < code < 0x110000 and not 0xD800 <= code < 0xE000 else m.group(0)
    return "\n"  # <br>


# A Markdown autolink whose text is its own host: GitHub's editor turns `libcudnn.so` or
# `torch.cuda` into one when a paste is copied back as Markdown.
AUTOLINK = r"\[([\w.-]{1,100})\]\(https?://\1/?\)"


def unmarkup(text: str) -> str:
    """`text` with HTML character references and <br> tags replaced by what they stand for
    (one pass: '&amp;lt;' becomes '&lt;', as a browser shows it), URL-escaped when its
    spaces are all '%20', and Markdown's autolinks of host-like names undone."""
    text = unquote_url(text)
    if "](http" in text:
        text = re.sub(AUTOLINK, r"\1", text)
    if "&" not in text and "<br" not in text and "<BR" not in text:
        return text
    return re.sub(MARKUP, _unmark, text)  # compiled on first use: most pastes hold no '&' or '<'


def unquote_url(text: str) -> str:
    """A text whose spaces were URL-escaped (more '%20' than spaces), decoded; any other text
    as it is, so a real '%20' in a log line stays."""
    n = text.count("%20")
    if n < 2 or text.count(" ") >= n:
        return text
    from urllib.parse import unquote  # only for such texts: explain's start-up does without it
    return unquote(text)


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
