#!/usr/bin/env python3
"""Write docs/lint-rules.md from the lint rule modules (torchdoctor/verbs/lint/rules/).

    python3 tools/lint_rules_doc.py           # rewrite docs/lint-rules.md
    python3 tools/lint_rules_doc.py --check   # exit 1 if the committed page is not current

The page is each rule's docstring, facts and examples (verbs/lint/ruledocs.py writes it);
tests/verbs/lint/test_verbs_lint_meta.py fails while the committed page differs.
"""

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "docs", "lint-rules.md")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare, do not write")
    a = ap.parse_args(argv)
    sys.path.insert(0, ROOT)
    from torchdoctor.verbs.lint.ruledocs import page
    text = page()
    if a.check:
        try:
            with open(PAGE, encoding="utf-8") as f:
                current = f.read() == text
        except OSError:
            current = False
        if not current:
            print("docs/lint-rules.md is not current: run python3 tools/lint_rules_doc.py", file=sys.stderr)
        return 0 if current else 1
    with open(PAGE, "w", encoding="utf-8") as f:
        f.write(text)
    print("wrote %s" % os.path.relpath(PAGE, ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
