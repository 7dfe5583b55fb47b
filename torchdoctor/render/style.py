"""Terminal styling: colour only on a TTY, never when NO_COLOR is set, and
ASCII marks when the output encoding cannot carry the Unicode ones."""

import os
import sys

MARKS = {"ok": "\u2713", "bad": "\u2717", "warn": "!", "na": "\u2013", "info": "\u00b7", "unknown": "?"}
ASCII_MARKS = {"ok": "+", "bad": "x", "warn": "!", "na": "-", "info": ".", "unknown": "?"}
COLORS = {"ok": "32", "bad": "31", "warn": "33", "na": "2", "info": "36", "unknown": "35",
          "error": "1;31", "warning": "1;33", "title": "1", "dim": "2", "cmd": "36"}


class Style:
    def __init__(self, color: bool = False, unicode: bool = True):
        self.color = color
        self.marks = MARKS if unicode else ASCII_MARKS

    @classmethod
    def for_stream(cls, stream=None, color=None) -> "Style":
        stream = stream or sys.stdout
        if color is None:
            color = bool(getattr(stream, "isatty", lambda: False)()) and "NO_COLOR" not in os.environ \
                and os.environ.get("TERM") != "dumb"
        enc = (getattr(stream, "encoding", None) or "ascii")
        try:
            "".join(MARKS.values()).encode(enc)
            uni = True
        except (UnicodeEncodeError, LookupError):
            uni = False
        return cls(color=color, unicode=uni)

    def paint(self, text: str, what: str) -> str:
        code = COLORS.get(what)
        if not self.color or not code:
            return text
        return "\x1b[%sm%s\x1b[0m" % (code, text)

    def command(self, cmd: str) -> str:
        """A command to run: '$ cmd' for a shell; a notebook cell's %pip or !cmd as it is
        typed into the cell (a '$' in front would not run there)."""
        return self.paint(cmd if cmd.startswith(("%", "!")) else "$ " + cmd, "cmd")

    def mark(self, kind: str) -> str:
        return self.paint(self.marks.get(kind, "?"), kind)
