"""What pip said about the requirements of other packages than torch: a release's Requires-Python,
the versions pip offers, a pinned release it had to build from source, extras zsh took for a glob."""

import re
from typing import Optional

from ...model.facts import Facts
from ...model import derived as F
from ...model import versions as V
from ..registry import Tailored, hook, match_groups
from .common import venv_commands
from ...advice.commands import on_interpreter


# Pythons a package's Requires-Python may admit, oldest first: the newest admitted is the one to use.
_PYTHONS = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14")
_REQUIRES = re.compile(r"Requires-Python\s{0,2}(?P<spec>[<>=!~][^;\n]{0,80}?)\s{0,2}(?:;|$)")


@hook("python-outside-requires-python")
def python_outside_requires_python(match, facts: Facts) -> Optional[Tailored]:
    """The Python the package's releases admit, from the specifier pip printed, and a venv with it."""
    g = match_groups(match)
    spec = g.get("spec")
    if not spec and g.get("ignored"):
        found = _REQUIRES.findall(g["ignored"])  # one per ignored release: the last is the newest
        spec = found[-1] if found else None
    spec = (spec or "").strip()
    have = g.get("have") or F.python_minor(facts)
    fits = [p for p in _PYTHONS if V.admits(spec, p + ".0")] if spec else []
    if not fits:
        return None
    target = fits[-1]
    notes = ["the package's releases require Python %s" % spec]
    if have:
        notes.append("this Python is %s" % have)
    cmds = venv_commands(facts, target, "<package>")
    return Tailored(summary="Its releases admit Python %s; %s is the newest of those: create an environment with it "
                            "(or install a newer release of the package, if one admits this Python)." % (spec, target),
                    commands=cmds, notes=notes)


def _offered(versions: str):
    """The releases pip listed after '(from versions:', parsed, oldest first (its own order)."""
    out = []
    for v in versions.split(","):
        parsed = V.parse(v.strip())
        if parsed is not None:
            out.append(parsed)
    return out


@hook("pip-version-not-offered")
def pip_version_not_offered(match, facts: Facts) -> Optional[Tailored]:
    """Where the version asked for sits in pip's list (missing inside it, above its top, or no list
    at all), and pip's own download command, which names the reason for every release it skipped."""
    g = match_groups(match)
    pkg, spec = g.get("pkg"), (g.get("spec") or "").strip()
    if not pkg:
        return None
    offered = _offered(g.get("versions") or "")
    req = "%s%s" % (pkg, spec)
    py = F.python_minor(facts)
    notes = ["this Python is %s" % py] if py else []
    fitting = [v for v in offered if spec and V.admits(spec, str(v))]
    if offered and (not spec or fitting):
        # pip listed a release the request admits: what failed is not the list
        return Tailored(cause="pip did list a release that %s admits (%s), so the list is not what failed: look above "
                              "this line for the conflict, hash or build error pip reported first."
                              % (req, fitting[-1] if fitting else offered[-1]), notes=notes)
    if not offered:
        cause = ("pip found no release of %s with a file for this Python and platform: every release excludes them, "
                 "the index in use has no package of that name (check the spelling and the index), or pip could not "
                 "reach the index at all (look above for 'Retrying' or 'Could not fetch URL')." % pkg)
    else:
        newest = max(offered)
        low = V.lower_bound(spec)
        exact = spec.startswith("==") and "*" not in spec
        gone = "or it was never published" if exact else "or it was yanked or never published"
        if low is not None and (low[0] > newest or (low[0] == newest and not low[1])):
            cause = ("The newest %s pip may install here is %s; %s asks for a later release, and pip skipped every "
                     "later one for this Python or platform (or the index in use does not carry them)."
                     % (pkg, newest, req))
        elif low is not None and low[0] < min(offered):
            cause = ("pip lists only releases of %s newer than the one asked for (%s): the older release has no file "
                     "for this Python or platform (its wheels are built for older Pythons and it has no source "
                     "archive), %s." % (pkg, req, gone))
        elif low is not None:
            cause = ("pip lists releases of %s before and after the one asked for (%s), but not it: that release has "
                     "no file for this Python or platform (its Requires-Python excludes this Python, or its wheels "
                     "are built for others and it has no source archive), %s." % (pkg, req, gone))
        else:
            cause = ("None of the releases pip lists for %s is one that %s admits, and the ones it admits have no "
                     "file for this Python or platform (Requires-Python, wheels for others only), %s."
                     % (pkg, req, gone))
    pip_why = "pip download \"%s\" --no-deps -d pip-why" % req
    return Tailored(cause=cause,
                    summary="Run pip's download of it: it prints each skipped release's Requires-Python ('Ignored the "
                            "following versions...'), and with -vv which wheels' tags do not fit. Then use a Python "
                            "that release admits, or a release of %s that has files for this Python." % pkg,
                    commands=[on_interpreter(pip_why, facts), on_interpreter(pip_why + " -vv", facts)], notes=notes)


@hook("zsh-glob-pip-extras")
def zsh_glob_pip_extras(match, facts: Facts) -> Optional[Tailored]:
    """The requirement zsh refused, quoted, run by the interpreter being diagnosed."""
    req = (match_groups(match).get("req") or "").strip()
    if not req:
        return None
    # a local project (".[dev]"): the command line above it may have said -e, which zsh's line drops
    notes = ["keep -e if you asked for an editable install: pip install -e \"%s\"" % req] \
        if req.startswith((".", "/", "~")) else []
    return Tailored(summary="Quote it: zsh passes a quoted word to pip unchanged.",
                    commands=[on_interpreter("pip install \"%s\"" % req, facts)], notes=notes)


# The build scripts a source archive runs, by the package they build: their errors name no package.
SOURCE_BUILD_SCRIPTS = {"build_bundled.sh": "sentencepiece"}


@hook("source-build-no-wheel")
def source_build_no_wheel(match, facts: Facts) -> Optional[Tailored]:
    """Name the release pip took as source and ask pip, wheels only, whether one fits here."""
    g = match_groups(match)
    pkg, ver = g.get("pkg"), g.get("ver")
    py = F.python_minor(facts)
    notes = ["this Python is %s" % py] if py else []
    if not pkg and "Rust" in match.text:
        # Rust's messages name no package: pip's "Building wheel for X" line above does.
        return Tailored(summary="pip is compiling a Rust package (the `Building wheel for` line above names it; "
                                "tokenizers in most torch stacks) because no wheel of the release it resolved fits "
                                "Python %s here: upgrade pip, then relax that package's pin or use a Python the pinned "
                                "release has wheels for." % (py or "(unknown)"),
                        commands=[on_interpreter("pip install --upgrade pip", facts),
                                  on_interpreter("pip install --only-binary=:all: <package>", facts)],
                        notes=notes)
    if not pkg and g.get("script"):
        pkg = SOURCE_BUILD_SCRIPTS.get(g["script"].rsplit("/", 1)[-1])
    if not pkg:
        pkg, ver = "scipy", None  # scipy's own message names no release
    spec = "%s==%s" % (pkg, ver) if ver else pkg
    return Tailored(summary="pip found no wheel of %s for the Python and platform it ran on, so it compiled the "
                            "source: use a Python that release has wheels for, or relax the pin so pip can take a newer "
                            "%s; `--only-binary` says at once whether a wheel fits." % (spec, pkg),
                    commands=[on_interpreter("pip install --only-binary=:all: \"%s\"" % spec, facts),
                              on_interpreter("pip index versions %s" % pkg, facts)], notes=notes)
