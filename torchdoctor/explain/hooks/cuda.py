"""Tailoring for CUDA build / driver errors."""

from typing import Optional

from ...checks import _facts as F
from ...facts import Facts
from ..tailor import Tailored, hook, installed_torch_note


@hook("cpu_only_build")
def cpu_only_build(match, facts: Facts) -> Optional[Tailored]:
    from ...advice import install_advice
    notes = installed_torch_note(facts)
    tag = F.local_tag(facts)
    cuda_build = F.is_cuda_build(facts)
    if F.os_name(facts) == "macos":
        return Tailored(summary="macOS has no CUDA: use device='mps' on Apple silicon (torch.backends.mps.is_available()) or 'cpu'.",
                        commands=["python -c \"import torch; print(torch.backends.mps.is_available())\""], notes=notes)
    driver = F.driver_version(facts)
    if driver:
        notes.append("NVIDIA driver %s (supports CUDA up to %s)" % (driver, facts.value("driver.cuda_driver_version", "?")))
    else:
        notes.append("no NVIDIA driver found (%s)" % facts.reason("driver.driver_version"))
    if cuda_build:
        return Tailored(cause="Yet the installed torch (%s) *is* a CUDA build: the process that failed probably ran another "
                              "interpreter or environment. Compare `which python` with %s."
                              % (F.torch_version_str(facts), facts.value("python.executable")), notes=notes)
    if not driver:
        return Tailored(summary="This machine has no usable NVIDIA driver, so no torch build can use CUDA here: run on the CPU "
                                "(device='cpu'), or install the NVIDIA driver first and then a CUDA build of torch.",
                        commands=["nvidia-smi"], notes=notes)
    adv = install_advice(facts)
    if not adv.commands:
        return Tailored(summary=adv.why, notes=notes)
    what = "the installed wheel is +%s" % tag if tag else "the installed wheel has no CUDA"
    return Tailored(summary="%s; %s" % (what, adv.why), commands=adv.commands, notes=notes)
