"""spaCy 2 code on spaCy 3 (E966, E941, `.string`): keep spaCy 2 where a wheel exists for this
Python, else port the code; read against the installed spaCy and Python."""

from typing import Optional

from ...advice.commands import pip, which_import
from ...model import derived as F
from ...model import versions as V
from ...model.facts import Facts
from ..registry import Tailored, hook, match_groups
from .common import python_minor

# spaCy 3's own table of the v2 shortcut names (spacy/errors.py OLD_MODEL_SHORTCUTS, 3.0.0 to 3.2.0).
OLD_MODEL_SHORTCUTS = {
    "en": "en_core_web_sm", "de": "de_core_news_sm", "es": "es_core_news_sm", "pt": "pt_core_news_sm",
    "fr": "fr_core_news_sm", "it": "it_core_news_sm", "nl": "nl_core_news_sm", "el": "el_core_news_sm",
    "nb": "nb_core_news_sm", "lt": "lt_core_news_sm", "xx": "xx_ent_wiki_sm",
}
# spaCy 2.3.9, the last 2.x release, has wheels for CPython 3.6 to 3.11 only (PyPI's file list).
LAST_SPACY2_PYTHON = (3, 11)


@hook("spacy-major")
def tailor_spacy_major(match, facts: Facts) -> Optional[Tailored]:
    g = match_groups(match)
    py = python_minor(facts)
    if g.get("obj") == "doc.Doc":
        return Tailored(summary="Doc lost `.string` in spaCy 2.0, so this is spaCy 1 code: no spaCy 2 pin brings it "
                                "back. Use `doc.text` (or `doc.text_with_ws`) in the code that reads it.", commands=[])
    model = g.get("model")
    full = OLD_MODEL_SHORTCUTS.get(model or "")
    installed = F.package_release(facts, "spacy")
    notes = ["installed spaCy: %s" % (installed or "not installed"),
             "Python %s" % ("%d.%d" % py if py else "?")]
    major = (V.release(installed) or (None,))[0]
    if major is not None and major < 3:
        return Tailored(summary="spaCy %s here is older than 3.0 and has this API: the failing code ran in another "
                                "environment, or imported another spaCy. Print which one it imports." % installed,
                        commands=[which_import(facts, "spacy", has_version=False)],
                        notes=notes)
    port = ("spacy.load(\"%s\") after `python -m spacy download %s`" % (full, full) if full
            else "nlp.add_pipe(\"sentencizer\") and span.text for .string")
    if py and py > LAST_SPACY2_PYTHON:
        return Tailored(summary="spaCy 2's last release (2.3.9) has no wheel for Python %d.%d, so a `spacy<3` pin would "
                                "build it from source (C++ toolchain, old Cython and thinc): port the code to spaCy 3 "
                                "instead (%s), or run it in a Python 3.11 environment." % (py[0], py[1], port),
                        commands=[], notes=notes)
    # spaCy 2.3.9's compiled parts (thinc 7.4, blis) were built against NumPy 1: beside the NumPy 2 that
    # spaCy 3 brings they stop at import with "numpy.dtype size changed", so the pin carries numpy's too
    cmds = [pip(facts, 'install "spacy<3" "numpy<2"')]
    if full:
        # spaCy 2's download links the shortcut name only when given it: `download de` makes
        # spacy.load("de") work again, `download de_core_news_sm` does not
        cmds.append("%s -m spacy download %s" % (F.python_cmd(facts), model))
    return Tailored(summary="spaCy%s is 3.x and the code was written for spaCy 2. Keep spaCy 2 for it (2.3.9 has "
                            "wheels up to Python 3.11 and needs NumPy 1, so a package that needs NumPy 2 beside it, "
                            "such as opencv-python 4.12, needs an older release too; a 3.x model does not load in "
                            "spaCy 2, so download its 2.3 model after the pin), or port the code: %s."
                            % (" " + installed if installed else "", port),
                    commands=cmds, notes=notes)
