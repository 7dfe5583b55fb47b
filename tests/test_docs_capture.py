"""tools/capture_examples.py, the tool that keeps every example output of the docs real: on a
small page written here, with real commands in the test venv."""

import os
import sys

import pytest

from conftest import load_tool

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
capture = load_tool("capture_examples")
VENV = sys.prefix  # the test venv: `python` and `torchdoctor` there

PAGE = '''# A page

<!-- file: notes/hello.txt -->
```text
hello from a file
```

<!-- copy: tests/fixtures/collect_env/torch2.4_wsl2_rtx4070.txt paste.txt -->
<!-- capture: cat notes/hello.txt && head -c 0 paste.txt && pwd -->
```
old output, replaced
```

<!-- capture head=2 tail=1 status: python -c "print(*range(1, 9), sep=chr(10)); raise SystemExit(1)" -->
```
```

<!-- capture lines=1,3-: python -c "print('a'); print('b'); print('c'); print('d')" -->
```
```

<!-- capture: python -m torchdoctor explain --no-env "RuntimeError: Torch not compiled with CUDA enabled" -->
```
```

<!-- generate: printf '| a | b |\\n|---|---|\\n' -->
stale
<!-- /generate -->

The end.
'''


def run_page(tmp_path, text, name="page.md"):
    page = tmp_path / name
    page.write_text(text)
    work = tmp_path / "work"
    n = capture.process_page(str(page), VENV, str(work))
    return n, page.read_text()


def test_a_page_is_captured_by_running_its_commands(tmp_path):
    n, out = run_page(tmp_path, PAGE)
    assert n == 5
    # the file and the copy were there for the command; its folder is shown as the docs show it
    assert "$ cat notes/hello.txt && head -c 0 paste.txt && pwd\nhello from a file\n/home/me/project\n```" in out
    assert "old output" not in out
    # head/tail keep the ends and mark the gap; status shows the exit status
    assert "\n1\n2\n...\n8\n$ echo $?\n1\n```" in out
    assert "$ python -c \"print('a'); print('b'); print('c'); print('d')\"\na\n...\nc\nd\n```" in out
    # a real torchdoctor answer
    assert "[torch-not-compiled-with-cuda, cpu-only-build]" in out
    assert "<!-- generate: printf '| a | b |\\n|---|---|\\n' -->\n| a | b |\n|---|---|\n<!-- /generate -->" in out
    # the file block itself and the prose are kept as written
    assert "```text\nhello from a file\n```" in out and out.endswith("The end.\n")
    # a second run gives the same page: nothing accumulates
    assert run_page(tmp_path, out)[1] == out


def test_this_machines_paths_and_names_are_redacted(tmp_path):
    home = os.path.expanduser("~")
    text = "<!-- capture: echo %s/x %s/bin/python %s -->\n```\n```\n" % (home, VENV, ROOT)
    _, out = run_page(tmp_path, text)
    shown = out.split("```\n", 1)[1].split("\n", 1)[1]  # the output, after the "$ command" line
    assert "/home/me/x" in shown and "/home/me/project/.venv/bin/python" in shown
    assert "/home/me/torchdoctor" in shown
    assert VENV + "/bin/python" not in shown and ROOT not in shown
    assert home == "/home/me" or home + "/x" not in shown


@pytest.mark.parametrize("marker, says", [
    ("<!-- capture: exit 3 -->\n```\n```\n", "exited with 3"),
    ("<!-- capture: python -c 'import nothing_here' -->\n```\n```\n", "printed a traceback"),
    ("<!-- capture: echo hi -->\nno fence here\n", "a fenced block must follow"),
    ("<!-- capture hed=3: echo hi -->\n```\n```\n", "unknown flag 'hed'"),
    ("<!-- capture lines=1-x: echo hi -->\n```\n```\n", "bad lines= item"),
    ("<!-- generate: echo hi -->\nno end\n", "no <!-- /generate -->"),
])
def test_a_broken_example_stops_the_tool_and_leaves_the_page(tmp_path, marker, says):
    text = "# A page\n\n<!-- capture: echo first -->\n```\n```\n\n" + marker
    page = tmp_path / "page.md"
    page.write_text(text)
    with pytest.raises(capture.ExampleError) as e:
        capture.process_page(str(page), VENV, str(tmp_path / "work"))
    assert says in str(e.value)
    assert page.read_text() == text


def test_an_expected_failure_is_an_example(tmp_path):
    _, out = run_page(tmp_path, "<!-- capture expect=3 status: exit 3 -->\n```\n```\n")
    assert "$ exit 3\n$ echo $?\n3\n```" in out


def test_the_command_line_lists_what_is_marked(tmp_path, capsys):
    assert capture.main(["--list", "README.md"]) == 0
    listed = capsys.readouterr().out
    assert "README.md:" in listed and "capture" in listed and "torchdoctor check" in listed
