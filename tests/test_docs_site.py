"""README.md stays short, the site's navigation lists every page of docs/, every example marked
for tools/capture_examples.py is well formed and captured, and the files, links and anchors the
pages outside the site name exist. Cheap: no MkDocs needed (CI builds the site with
`mkdocs build --strict`, which checks the links between the pages of docs/)."""

import glob
import os
import re

import pytest

from conftest import load_tool

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README_MAX_LINES = 400
DOCS = sorted(os.path.relpath(p, os.path.join(ROOT, "docs")) for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))
# What GitHub shows beside the site: their links are not checked by MkDocs.
ROOT_PAGES = ["README.md", "CONTRIBUTING.md", "ARCHITECTURE.md"]
ALL_PAGES = ROOT_PAGES + ["docs/" + d for d in DOCS]
REPO_PATH = re.compile(r"`((?:torchdoctor|tests|tools|benchmarks|docs|\.ci)/[^`\s]*)`")


def _read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as fh:
        return fh.read()


def _capture_tool():
    return load_tool("capture_examples")


def test_readme_stays_short():
    n = len(_read("README.md").splitlines())
    assert n <= README_MAX_LINES, "README.md has %d lines (at most %d): move the detail to docs/" % (
        n, README_MAX_LINES)


def nav_pages(text):
    """The .md files mkdocs.yml's nav names."""
    nav = text.split("\nnav:", 1)[1] if "\nnav:" in text else ""
    return re.findall(r"^\s*-\s*(?:[^:\n]+:\s*)?([\w./-]+\.md)\s*$", nav, re.M)


def test_the_site_lists_every_page_once():
    listed = nav_pages(_read("mkdocs.yml"))
    assert sorted(listed) == DOCS, "mkdocs.yml nav and docs/ differ: missing %s, not a page %s" % (
        sorted(set(DOCS) - set(listed)), sorted(set(listed) - set(DOCS)))
    assert len(listed) == len(set(listed)), "a page is listed twice"


def test_the_nav_reader_sees_a_missing_page():
    text = "site_name: x\nnav:\n  - Home: index.md\n  - Commands:\n      - check: check.md\n      - lint.md\n"
    assert nav_pages(text) == ["index.md", "check.md", "lint.md"]


def test_docs_build_strictly_in_ci():
    """A broken link fails CI only if CI builds the site strictly, from the docs extra."""
    ci = _read(".ci/run")
    assert re.search(r"pip install[^\n]*\[[^\]\n]*docs", ci) and "mkdocs build --strict" in ci
    assert "strict: true" in _read("mkdocs.yml")
    assert re.search(r"^docs =\n(\s+mkdocs[^\n]*\n)+", _read("setup.cfg"), re.M), "setup.cfg has no docs extra"


@pytest.mark.parametrize("page", ALL_PAGES)
def test_files_named_in_the_docs_exist(page):
    missing = []
    for m in REPO_PATH.finditer(_read(page)):
        path = m.group(1).split("#")[0].rstrip(".,:;)")
        if any(c in path for c in "*<>{}") or "_work" in path:
            continue  # a pattern or a placeholder, or what a benchmark run creates
        if not os.path.exists(os.path.join(ROOT, path)):
            missing.append(path)
    assert not missing, "%s names files that do not exist: %s" % (page, missing)


def github_slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`|\*\*|\[|\]\([^)]*\)", "", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(rel):
    return {github_slug(h) for h in re.findall(r"^#+ (.+)$", _read(rel), re.M)}


@pytest.mark.parametrize("page", ROOT_PAGES)
def test_links_of_the_pages_outside_the_site_resolve(page):
    bad = []
    for target in re.findall(r"\]\(([^)\s]+)\)", _read(page)):
        if re.match(r"^[a-z]+:", target):
            continue  # https:, mailto:
        path, _, anchor = target.partition("#")
        rel = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        if not os.path.exists(os.path.join(ROOT, rel)):
            bad.append("%s (no such file)" % target)
        elif anchor and rel.endswith(".md") and anchor not in anchors(rel):
            bad.append("%s (no such heading in %s)" % (target, rel))
    assert not bad, "%s: broken links: %s" % (page, bad)


def test_the_slug_is_githubs():
    assert github_slug("`torchdoctor triage`") == "torchdoctor-triage"
    assert github_slug("IPython and Jupyter") == "ipython-and-jupyter"
    assert github_slug("Why `ast` for finding and LibCST for fixing") == "why-ast-for-finding-and-libcst-for-fixing"


@pytest.mark.parametrize("page", ALL_PAGES)
def test_every_marked_example_is_well_formed_and_captured(page):
    """A marker the tool cannot read, or an example added without running the tool (an empty
    block), fails here rather than at the next capture."""
    tool = _capture_tool()
    text = _read(page)
    lines = text.split("\n")
    empty = []
    for kind, arg, flags, n in tool.examples(text, page):  # raises on a malformed marker
        if kind in ("capture", "file"):
            end = tool.fence_end(lines, n, "%s:%d" % (page, n))
            if kind == "capture" and end == n + 1:
                empty.append("%s:%d" % (page, n))
        elif kind == "generate":
            body = lines[n:lines.index(tool.END_GENERATE, n)]
            if not any(b.strip() for b in body):
                empty.append("%s:%d" % (page, n))
    assert not empty, "examples never captured (run tools/capture_examples.py): %s" % empty
