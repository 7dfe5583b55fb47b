"""A CPU-only torch where a CUDA build is wanted: in the facts of a machine, and in
`Torch not compiled with CUDA enabled` and its relatives.
"""

from typing import Optional

from ..advice import INSTALL_URL, install_advice
from ..facts import Facts
from ..facts import derived as F
from ..kb import compat
from .registry import ERROR, INFO, Tailored, check, finding, hook, installed_torch_note



@check("cpu-only-build", category="cpu-only-build", severity=ERROR)
def cpu_only_build(facts):
    """A CPU-only torch on a machine with an NVIDIA GPU or a CUDA toolkit."""
    if F.is_cuda_build(facts) is not False or F.is_rocm_build(facts) or F.os_name(facts) == "macos":
        return None
    version = F.torch_version_str(facts)
    gpus = F.all_gpus(facts)
    nvcc = F.nvcc_version(facts)
    if gpus or F.has_nvidia_driver(facts):
        adv = install_advice(facts)
        if adv.variant == "cpu":  # nothing tells which CUDA build this driver runs: no CPU-to-CPU "fix"
            adv.commands, adv.why = [], "The driver's version is unknown, so which CUDA build of torch it runs is too."
        return finding(
            "torch %s is a CPU-only build, but this machine has an NVIDIA GPU" % version,
            detail="torch.version.cuda is None, so torch.cuda.is_available() is False and every .cuda() call fails with "
                   "'Torch not compiled with CUDA enabled'. GPU(s): %s; driver %s (supports CUDA up to %s). %s"
                   % (F.gpu_names(facts) or "present", F.driver_version(facts) or "?",
                      F.driver_cuda(facts) or "?", adv.why),
            fix="Reinstall torch %s as the %s build." % (adv.torch_version, adv.variant) if adv.commands else adv.why,
            commands=adv.commands, links=[INSTALL_URL])
    if nvcc:
        variant = compat.variant_for_cuda(nvcc)
        base = F.torch_base_version(facts)
        offered = compat.cuda_variants(base) if base else []
        pick = variant if variant in offered else (offered[-1] if offered else None)
        pci = F.pci_gpus(facts)
        later = ("the %s build of torch %s" % (pick, base)) if pick else "a CUDA build of torch"
        toolkit = "nvcc %s is installed%s" % (nvcc, " (%s)" % facts.value("toolkit.nvcc_path")
                                            if facts.has("toolkit.nvcc_path") else "")
        if not pci:
            # No GPU and no driver: the CPU build is the one that works here, as the install
            # advice for a torch-less environment says too. A note for later, nothing to run now.
            return finding(
                "CPU-only torch %s beside CUDA toolkit %s (no GPU here)" % (version, nvcc), severity=INFO,
                detail="%s, but no NVIDIA driver or GPU is visible, so the CPU build of torch is the right one for "
                       "this machine now. pip wheels do not use the toolkit (they bundle their CUDA runtime); only "
                       "the NVIDIA driver is needed for GPU work." % toolkit,
                fix="Nothing to do for CPU work. Once this machine has an NVIDIA GPU and driver, install %s." % later,
                links=[INSTALL_URL])
        cmds = install_advice(facts, version=base, variant=pick).commands if pick and base else []
        return finding(
            "CPU-only torch %s beside CUDA toolkit %s" % (version, nvcc), severity=ERROR,
            detail="%s, which suggests this machine is meant for GPU work, but torch %s has no CUDA support; an "
                   "NVIDIA GPU is on the PCI bus (%d device(s)) but no driver is loaded. The toolkit is not needed by "
                   "pip wheels (they bundle their CUDA runtime); only the NVIDIA driver is." % (toolkit, version, len(pci)),
            fix="For GPU work: install the NVIDIA driver, then %s." % later,
            commands=cmds, links=[INSTALL_URL])
    return None


@hook("cpu_only_build")
def tailor_cpu_only_build(match, facts: Facts) -> Optional[Tailored]:
    notes = installed_torch_note(facts)
    tag = F.local_tag(facts)
    cuda_build = F.is_cuda_build(facts)
    if F.os_name(facts) == "macos":
        return Tailored(summary="macOS has no CUDA: use device='mps' on Apple silicon (torch.backends.mps.is_available()) or 'cpu'.",
                        commands=["python -c \"import torch; print(torch.backends.mps.is_available())\""], notes=notes)
    driver = F.driver_version(facts)
    if driver:
        notes.append(F.driver_desc(facts))
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
