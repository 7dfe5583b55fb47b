"""pysource: a file parsed a chunk of top-level statements at a time gives the statements,
line numbers and errors of one parse of the whole file, wherever it is cut."""

import ast
import textwrap

import pytest

from torchdoctor.verbs.lint import pysource
from torchdoctor.verbs.lint.lintfile import Settings, lint_python
from torchdoctor.verbs.lint.rules import default_codes
from torchdoctor.verbs.lint.target import from_option

SOURCES = {
    "continuation keywords": """\
        if a:
            x = 1
        elif b:
            x = 2
        else:
            x = 3
        try:
            pass
        except ValueError:
            pass
        else:
            pass
        finally:
            pass
        for i in y:
            pass
        else:
            pass
        """,
    "strings that look like code": '''\
        s = """
        def f():
        x = 1
        """
        t = \'\'\'
        import torch
        \'\'\'
        u = "a" \\
        "b"
        ''',
    "brackets, decorators, backslashes": """\
        x = [1,
        2,
        ]
        @dec
        @dec2(a,
        b)
        def f():
            return (1
        + 2)
        y = 1 + \\
        2
        # a comment at column 0
        z = 3
        class C:
            a = 1
        # between methods
            def m(self):
                pass
        """,
    "line breaks of every kind": "a = 1\r\nb = 2\rc = 3\nd = (4,\r\n5)\n\x0ce = 6\n",
    "non-ASCII": "s = 'caf\xe9'\nt = '\u6f22\u5b57'; u = s\n",
    "no final newline": "a = 1\nb = 2",
}


def _dumps(statements, offset=0):
    out = []
    for s in statements:
        ast.increment_lineno(s, offset)
        out.append(ast.dump(s, include_attributes=True))
    return out


@pytest.mark.parametrize("name", sorted(SOURCES))
@pytest.mark.parametrize("size", [1, 7, 64, pysource.CHUNK_CHARS])
def test_chunks_give_the_statements_of_one_parse(name, size):
    text = textwrap.dedent(SOURCES[name]) if "\r" not in SOURCES[name] else SOURCES[name]
    whole = _dumps(ast.parse(text).body)
    pieces = []
    for chunk in pysource.chunks(text, size):
        pieces.extend(_dumps(chunk.body, chunk.line0))
    assert pieces == whole


@pytest.mark.parametrize("src", ["x = 1\ny = (\nz = 2\n", "x = 1\ndef f(:\n    pass\n", "a = 1\n  b = 2\n",
                                 "x = '''\nnever closed\n", "a = 1\nb = 1 +\\\n"])
def test_chunks_raise_the_error_of_one_parse(src):
    with pytest.raises(SyntaxError) as whole:
        ast.parse(src)
    with pytest.raises(SyntaxError) as pieces:
        for _ in pysource.chunks(src, 1):
            pass
    assert (pieces.value.msg, pieces.value.lineno, pieces.value.offset) == \
        (whole.value.msg, whole.value.lineno, whole.value.offset)


def test_columns_are_characters():
    text = "s = 'caf\xe9 \u6f22'; x = 1\n"
    chunk = next(pysource.chunks(text))
    x = chunk.body[1].targets[0]
    assert chunk.col(1, x.col_offset) == text.index("x = 1") + 1


def test_noqa_counts_lines_as_the_parser_does(tmp_path):
    # a form feed is whitespace to the parser; str.splitlines took it for a line break
    src = b"import torch\n\x0c\nx = torch.backends.mps.is_available()  # noqa: TD101\n" \
          b"y = torch.backends.mps.is_available()\r\n"
    t = from_option("1.11")
    res = lint_python("m.py", Settings(targets=list(t.versions), cuda=t.cuda, select=frozenset(default_codes())), src)
    assert [(f.line, f.code) for f in res.findings] == [(4, "TD101")]
