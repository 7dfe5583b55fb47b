"""Intel GPUs (XPU): a torch build with XPU support and Intel's runtime stack.
"""

from typing import Optional

from ..advice import install_advice
from ..model import derived as F
from ..model.facts import Facts
from .registry import Tailored, hook, installed_torch_note


@hook("torch-xpu-build")
def torch_xpu_build(match, facts: Facts) -> Optional[Tailored]:
    tag = F.local_tag(facts)
    if not F.torch_version_str(facts):
        return None
    notes = installed_torch_note(facts)
    if tag == "xpu":
        return Tailored(summary="torch here is an XPU build (%s), so the failing code ran with another torch: check "
                                "which interpreter runs it." % F.torch_version_str(facts),
                        commands=['python -c "import sys, torch; print(sys.executable, torch.__version__)"'], notes=notes)
    adv = install_advice(facts, variant="xpu")
    return Tailored(summary="torch %s is not an XPU build: install the XPU build from download.pytorch.org/whl/xpu."
                            % F.torch_version_str(facts),
                    commands=adv.commands or None, notes=notes)
