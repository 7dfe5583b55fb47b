"""The rules' documentation, written from the rule modules: one rule for `lint --explain
TD301`, all of them for docs/lint-rules.md (tools/capture_examples.py writes its generated
part from `page()`; a test holds the committed page to what this module writes now).

A rule's page is its module's docstring (its first line the summary, then the sections
What it finds / Why it matters / Fix), a line of facts (severity, since, fixable, on by
default, source, links) and its examples (FIRES, QUIET: examples.py), each with the command
that shows it.
"""

from typing import List

from . import history as H
from . import rules as R
from .output import api_table, rules_table


def _facts(code: str) -> str:
    r = R.BY_CODE[code]
    o = r.options
    fixable = {True: "yes", False: "no", "some": "some"}.get(o.get("fixable"), str(o.get("fixable")))
    parts = ["severity: %s" % r.severity, "since: %s" % (o.get("since") or "any"), "fixable: %s" % fixable,
             "on by default" if o.get("default", True) else "off by default (select it)"]
    source = o.get("source")
    if source:
        cited = source if source.startswith("kb/") else H.source_text(source)
        parts.append("source: %s" % cited)
    return "; ".join(parts) + "."


def _examples(code: str, kind: str, examples) -> List[str]:
    out = []
    for ex in examples:
        lang = "python" if ex.file.endswith(".py") else ""
        head = "%s `torchdoctor lint --torch \"%s\" %s`" % (kind, ex.torch, ex.file)
        out.append(head + (": %s" % ex.note if ex.note else ""))
        out.append("")
        out.append("```%s" % lang)
        out.append(ex.text.rstrip("\n"))
        out.append("```")
        out.append("")
    return out


def explain(code: str, level: int = 1) -> str:
    """One rule's page (Markdown, readable as text), its title at heading `level`."""
    r = R.BY_CODE[code]
    mod = R.module_of(r)
    summary, _, body = r.docs.partition("\n")
    sub = "#" * (level + 1)
    out = ["%s %s `%s`" % ("#" * level, code, r.name), "", summary, "", _facts(code), ""]
    for line in body.strip().splitlines():
        out.append(sub + line[2:] if line.startswith("## ") else line)
    out.append("")
    if r.links:
        out += ["See: " + ", ".join(r.links), ""]
    out += ["%s Examples" % sub, ""]
    out += _examples(code, "Reported by", getattr(mod, "FIRES", ()))
    out += _examples(code, "Not reported by", getattr(mod, "QUIET", ()))
    return "\n".join(out).rstrip("\n") + "\n"


def page() -> str:
    """docs/lint-rules.md's generated part: the table, every rule's page, the API history."""
    out = ["## The rules", "", rules_table(markdown=True)]
    for code in R.all_codes():
        out.append(explain(code, level=3))
    out += ["## The API history outside torch.backends", "",
            "Every API the rules about API history (TD101, TD102, TD201) know beyond `torch.backends`, "
            "each entry with its source in `torchdoctor/verbs/lint/data/api_history.json`; "
            "`torch.backends` itself comes from `torchdoctor/kb/data/compat.json`, the knowledge base's copy of "
            "the shared reference's `backends_api.json`.", "", api_table()]
    return "\n".join(out).rstrip("\n") + "\n"
