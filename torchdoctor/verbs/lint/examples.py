"""A rule's examples: code on which it fires and code on which it stays quiet.

Every rule module under rules/ holds two tuples of them, FIRES and QUIET. They are the
rule's examples in its documentation (`lint --explain`, docs/lint-rules.md) and the
fixtures of the meta-test (tests/verbs/lint/test_verbs_lint_meta.py), which lints each one
as `torchdoctor lint` would (a file of that name in an empty directory, beside `files`,
against `torch`) and fails a rule that lacks either tuple, that does not fire on every
FIRES example or that fires on a QUIET one.
"""

from typing import Dict

from ...model.records import field, record


@record
class Example:
    text: str                         # the file's content
    torch: str = "2.13"               # the target, as --torch
    file: str = "example.py"          # its name (requirements.txt, Dockerfile, nb.ipynb, ...)
    note: str = ""                    # what it shows, one line (the docs print it above the code)
    files: Dict[str, str] = field(default_factory=dict)   # other files beside it
