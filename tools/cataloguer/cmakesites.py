"""Messages of CMake files: the ``message(FATAL_ERROR|SEND_ERROR|WARNING|AUTHOR_WARNING ...)``
calls of the CMake files torch ships (share/cmake/Caffe2, Torch), which ``find_package(Torch)``
reads for C++ programs, CMake-built extensions and bindings that link libtorch. Branches the
build switched off are left out; helper functions and find modules are read whether or not a
caller reaches them (collect.cmake_sites_of follows include() and find_package()).

A call's arguments are quoted strings and unquoted words; CMake joins them without a separator.
The pattern is the joined literal text in ``str.format`` syntax (braces doubled), with ``{}``
wherever a variable reference (``${VAR}``, ``$ENV{VAR}``) or an unquoted word is filled in at
configure time. Text is never evaluated: a message built in a variable first
(``message(FATAL_ERROR ${msg})``) has no literal text and is no message.
"""

import re
from typing import Iterator, List, Optional, Tuple

from .text import is_message, tidy

PLACEHOLDER = "{}"
# The command name is case-insensitive in CMake, its mode keywords are not (`message(warning x)` prints a notice).
_CALL = re.compile(r"(?m)^[ \t]*(?i:message)[ \t]*\(\s*(FATAL_ERROR|SEND_ERROR|WARNING|AUTHOR_WARNING)\b")
_KINDS = {"FATAL_ERROR": "error", "SEND_ERROR": "error", "WARNING": "warning", "AUTHOR_WARNING": "warning"}
_VAR = re.compile(r"\$(?:ENV|CACHE)?\{[^{}]*\}")
_VAR_START = re.compile(r"\$(?:ENV|CACHE)?\{")
_WORD = re.compile(r"[^\s()\"#]+")
_ESCAPES = {"n": "\n", "t": "\t", "r": "", "\"": "\"", "\\": "\\", ";": ";", "$": "$", "{": "{", "}": "}"}


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _variable_end(text: str, pos: int) -> int:
    """Where the variable reference starting at `pos` ends (references nest: ${${pkg}_FOUND}); 0
    when none starts there."""
    m = _VAR_START.match(text, pos)
    if not m:
        return 0
    depth, end = 1, m.end()
    while end < len(text) and depth:
        if text.startswith("${", end):
            depth += 1
            end += 2
            continue
        depth -= text[end] == "}"
        end += 1
    return end if depth == 0 else 0


def _quoted(body: str) -> str:
    """A quoted argument's text as printed: escapes resolved, variable references as placeholders,
    a backslash before the newline joining the lines (CMake's line continuation)."""
    out: List[str] = []
    pos = 0
    while pos < len(body):
        c = body[pos]
        if c == "\\" and pos + 1 < len(body):
            nxt = body[pos + 1]
            if nxt == "\n":
                pos += 2
                continue
            out.append(_escape(_ESCAPES.get(nxt, nxt)))
            pos += 2
            continue
        end = _variable_end(body, pos)
        if end:
            out.append(PLACEHOLDER)
            pos = end
            continue
        out.append(_escape(c))
        pos += 1
    return "".join(out)


def _arguments(text: str, start: int) -> Tuple[str, int]:
    """The message's pattern from the arguments that begin at `start`, and where the call ends.
    `text` is clean()'s: bracket comments are already blanked, only line comments are left to skip."""
    out: List[str] = []
    pos, depth = start, 0
    while pos < len(text):
        c = text[pos]
        if c == "\"":
            end = pos + 1
            while end < len(text) and text[end] != "\"":
                end += 2 if text[end] == "\\" else 1
            out.append(_quoted(text[pos + 1:end]))
            pos = end + 1
            continue
        if c == "#":
            nl = text.find("\n", pos)
            pos = len(text) if nl < 0 else nl
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                return "".join(out), pos + 1
            depth -= 1
        elif not c.isspace():
            m = _WORD.match(text, pos)
            word = m.group()
            # An unquoted argument is a value CMake fills in (a variable, or a word of its own that
            # says nothing by itself): one placeholder, however many references it holds.
            if not out or out[-1] != PLACEHOLDER:
                out.append(PLACEHOLDER if _VAR.search(word) or word.startswith("${") else _escape(word))
            pos = m.end()
            continue
        pos += 1
    return "".join(out), pos


_BLOCK = re.compile(r"(?m)^[ \t]*(?i:(if|elseif|else|endif))[ \t]*\(")
_INCLUDE = re.compile(r"(?im)^[ \t]*include[ \t]*\([ \t]*\"?\$\{CMAKE_CURRENT_LIST_DIR\}/([^\")\s]+)\"?[ \t]*\)")
_FIND = re.compile(r"(?im)^[ \t]*find_package[ \t]*\([ \t]*([A-Za-z][\w.-]*)")
_BRACKET = re.compile(r"#\[(=*)\[.*?\]\1\]", re.S)
_FALSE = {"off", "false", "0", "no", "n", "ignore", "notfound"}
_TRUE = {"on", "true", "1", "yes", "y"}


def clean(text: str) -> str:
    """The text with bracket comments (#[[ ... ]], #[=[ ... ]=]) blanked, keeping every offset and
    line number: nothing inside them runs."""
    return _BRACKET.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)


def _condition(text: str, start: int) -> Optional[str]:
    """The condition of the if()/elseif() whose parenthesis opens before `start`, when it closes on
    the same line (a comment after it left out); None for one spanning lines."""
    end = text.find("\n", start)
    line = text[start:end if end >= 0 else len(text)]
    depth = 1
    for i, c in enumerate(line):
        depth += (c == "(") - (c == ")")
        if depth == 0:
            return line[:i]
    return None


def _constant(condition: Optional[str]) -> Optional[bool]:
    """A condition that the build already decided when it wrote the file (`if(OFF)`, `if(0)`,
    `if(FALSE)`, `if(0 AND NOT X)`): True, False, or None when it depends on the machine that
    reads the file."""
    if condition is None:
        return None
    c = condition.strip().lower()
    if c in _FALSE:
        return False
    if c in _TRUE:
        return True
    first = re.split(r"\s+and\s+", c, maxsplit=1)
    return False if len(first) == 2 and first[0].strip() in _FALSE else None


def dead_ranges(text: str) -> List[Tuple[int, int]]:
    """Character ranges inside branches that the build switched off: never run where the file is
    read, so their messages are never printed. `text` is clean()'s."""
    ranges: List[Tuple[int, int]] = []
    stack: List[List] = []  # [dead_above, some_branch_taken, dead_now, start_of_dead_range]
    for m in _BLOCK.finditer(text):
        word = m.group(1).lower()
        if word == "if":
            above = bool(stack) and stack[-1][2]
            value = _constant(_condition(text, m.end()))
            dead = above or value is False
            stack.append([above, value is True, dead, m.end() if dead else None])
            continue
        if not stack:
            continue
        frame = stack[-1]
        if frame[2] and frame[3] is not None:
            ranges.append((frame[3], m.start()))
        if word == "endif":
            stack.pop()
            continue
        value = _constant(_condition(text, m.end())) if word == "elseif" else None
        dead = frame[0] or frame[1] or (word == "elseif" and value is False)
        frame[1] = frame[1] or (not dead and value is True) or (word == "else" and not dead)
        frame[2], frame[3] = dead, (m.end() if dead else None)
    return ranges


def _live(ranges: List[Tuple[int, int]], pos: int) -> bool:
    return not any(a <= pos < b for a, b in ranges)


def references(text: str) -> Tuple[List[str], List[str], List[str]]:
    """(every file the text includes by a path relative to its folder, live or not: a file named
    there is no entry point of its own; the files it includes from the parts that can run; the
    packages those parts find by name)."""
    text = clean(text)
    dead = dead_ranges(text)
    includes = [(m.group(1), _live(dead, m.start())) for m in _INCLUDE.finditer(text)]
    return ([rel for rel, _ in includes], [rel for rel, live in includes if live],
            [m.group(1) for m in _FIND.finditer(text) if _live(dead, m.start())])


def sites(text: str, path: str) -> Iterator[dict]:
    """Every message() call of a problem kind in one CMake file that can run, as catalogue sites."""
    text = clean(text)
    dead = dead_ranges(text)
    for m in _CALL.finditer(text):
        if not _live(dead, m.start()):
            continue
        pattern, _ = _arguments(text, m.end())
        pattern = tidy(pattern)
        if pattern and is_message(pattern):
            yield {"text": pattern, "kind": _KINDS[m.group(1)], "exc": "",
                   "where": "%s:%d" % (path, text.count("\n", 0, m.start()) + 1)}
