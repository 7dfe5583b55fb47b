"""A CPU-only torch where a CUDA build is wanted: in the facts of a machine, and in
`Torch not compiled with CUDA enabled` and its relatives.
"""

from typing import Optional

from ..advice import INSTALL_URL, install_advice
from ..advice.commands import pip
from ..model.facts import Facts
from ..model import derived as F
from ..kb import compat
from ..model.facts import UNKNOWN
from .registry import ERROR, INFO, Remedy, Tailored, rule, finding, hook, installed_torch_note, remedy_verify



def _later_build(facts: Facts) -> str:
    """The CUDA build to install once the GPU can be used: the installed release's variant that
    matches the CUDA toolkit here (nvcc), else its newest one."""
    base = F.torch_base_version(facts)
    offered = compat.cuda_variants(base) if base else []
    nvcc = F.nvcc_version(facts)
    variant = compat.variant_for_cuda(nvcc) if nvcc else None
    pick = variant if variant in offered else (offered[-1] if offered else None)
    return ("the %s build of torch %s" % (pick, base)) if pick else "a CUDA build of torch"


def cpu_only_remedy(facts: Facts) -> Optional[Remedy]:
    """What to do about a CPU-only torch where CUDA is wanted, for this machine: on macOS
    MPS; with a driver, the CUDA build it runs; with a GPU but no driver, the driver first;
    with neither, nothing to run (the CPU build is right here). None when nobody looked for
    a driver (a paste explained without machine facts)."""
    if F.os_name(facts) == "macos":
        return Remedy("macOS has no CUDA: use device='mps' on Apple silicon (torch.backends.mps.is_available()) or 'cpu'.",
                      ["python -c \"import torch; print(torch.backends.mps.is_available())\""])
    if F.all_gpus(facts) or F.has_nvidia_driver(facts):
        adv = install_advice(facts)
        if adv.variant == "cpu" or not adv.commands:  # nothing tells which CUDA build this driver runs
            why = adv.why if adv.variant != "cpu" else "The driver's version is unknown, so which CUDA build of torch it runs is too."
            return Remedy(why)
        return Remedy("Reinstall torch %s as the %s build: %s" % (adv.torch_version, adv.variant, adv.why), adv.commands)
    if facts.state("driver.present") == UNKNOWN and facts.state("driver.driver_version") == UNKNOWN:
        return None
    later = _later_build(facts)
    pci = F.pci_gpus(facts)
    if pci:
        pick = later.split()[1] if later.startswith("the ") else None
        cmds = install_advice(facts, version=F.torch_base_version(facts), variant=pick).commands if pick else []
        return Remedy("For GPU work: install the NVIDIA driver, then %s." % later, cmds)
    return Remedy("No NVIDIA GPU or driver is visible here, so the CPU build is the right one for this machine: run "
                  "on the CPU (device='cpu'). Once it has an NVIDIA GPU and driver, install %s." % later, settled=True)


@rule("check", "cpu-only-build", category="cpu-only-build", severity=ERROR,
       verify=('python -c "import torch; print(torch.version.cuda, torch.cuda.is_available())"', "torch's CUDA version and True"))
def cpu_only_build(facts):
    """A CPU-only torch on a machine with an NVIDIA GPU or a CUDA toolkit; a ROCm torch where only an
    NVIDIA GPU is there to use."""
    if F.is_cuda_build(facts) is not False or F.os_name(facts) == "macos":
        return None
    version = F.torch_version_str(facts)
    if F.is_rocm_build(facts):
        return _rocm_build_on_nvidia(facts, version)
    nvcc = F.nvcc_version(facts)
    remedy = cpu_only_remedy(facts)
    if remedy is None:
        return None
    if F.all_gpus(facts) or F.has_nvidia_driver(facts):
        return finding(
            "torch %s is a CPU-only build, but this machine has an NVIDIA GPU" % version,
            detail="torch.version.cuda is None, so torch.cuda.is_available() is False and every .cuda() call fails with "
                   "'Torch not compiled with CUDA enabled'. GPU(s): %s; driver %s (supports CUDA up to %s)."
                   % (F.gpu_names(facts) or "present", F.driver_version(facts) or "?", F.driver_cuda(facts) or "?"),
            fix=remedy.summary, commands=remedy.commands, links=[INSTALL_URL], verify=remedy_verify(remedy, facts))
    if not nvcc:
        return None
    pci = F.pci_gpus(facts)
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
            fix=remedy.summary, commands=remedy.commands, links=[INSTALL_URL], verify=remedy_verify(remedy, facts))
    return finding(
        "CPU-only torch %s beside CUDA toolkit %s" % (version, nvcc), severity=ERROR,
        detail="%s, which suggests this machine is meant for GPU work, but torch %s has no CUDA support; an "
               "NVIDIA GPU is on the PCI bus (%d device(s)) but no driver is loaded. The toolkit is not needed by "
               "pip wheels (they bundle their CUDA runtime); only the NVIDIA driver is." % (toolkit, version, len(pci)),
        fix=remedy.summary, commands=remedy.commands, links=[INSTALL_URL], verify=remedy_verify(remedy, facts))


# A ROCm torch told to hide or pick its AMD GPUs: then seeing none is that choice, not the build.
_AMD_VISIBILITY = ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL")


def rocm_on_nvidia(facts: Facts) -> bool:
    """A ROCm torch (it drives AMD GPUs only) that imported and reported no usable GPU, on a
    machine whose NVIDIA driver works, with no variable hiding AMD GPUs: installers that pick the
    build from the GPUs they list take an AMD integrated GPU beside the NVIDIA card for the target."""
    return (F.is_rocm_build(facts) and F.has_nvidia_driver(facts) and facts.value("cuda.is_available") is False
            and not F.torch_gpus(facts) and not any(F.env(facts, v) is not None for v in _AMD_VISIBILITY))


def rocm_on_nvidia_remedy(facts: Facts) -> Optional[Remedy]:
    """The CUDA build this driver runs, as for a CPU-only torch, after the ROCm build's own triton:
    a reinstall of torch alone leaves pytorch-triton-rocm behind, and it writes the same `triton`
    package as the CUDA build's, so it goes first (removed after, it would take the new files)."""
    remedy = cpu_only_remedy(facts)
    if remedy is None:
        return None
    leftover = [pip(facts, "uninstall -y pytorch-triton-rocm")] if F.package_version(facts, "pytorch-triton-rocm") else []
    return Remedy(remedy.summary, leftover + remedy.commands, verify=remedy.verify, settled=remedy.settled)


def _rocm_build_on_nvidia(facts: Facts, version: Optional[str]):
    remedy = rocm_on_nvidia_remedy(facts) if rocm_on_nvidia(facts) else None
    if remedy is None:
        return None
    return finding(
        "torch %s is a ROCm (AMD) build, but this machine's GPU is NVIDIA" % version,
        detail="torch.version.hip is set and torch.version.cuda is None: a ROCm build drives AMD GPUs only; it reports "
               "no usable GPU (torch.cuda.is_available() is False) beside this machine's NVIDIA GPU(s) (%s; driver %s)."
               % (F.gpu_names(facts) or "present", F.driver_version(facts) or "?"),
        fix=remedy.summary, commands=remedy.commands, links=[INSTALL_URL], verify=remedy_verify(remedy, facts))


@hook("cpu-only-build")
def tailor_cpu_only_build(match, facts: Facts) -> Optional[Tailored]:
    notes = installed_torch_note(facts)
    driver = F.driver_version(facts)
    if F.os_name(facts) != "macos":
        notes.append(F.driver_desc(facts) if driver else F.no_driver_desc(facts))
    if rocm_on_nvidia(facts):
        remedy = rocm_on_nvidia_remedy(facts)
        cause = ("The installed torch (%s) is a ROCm build, which drives AMD GPUs only, and it sees none; this machine's "
                 "NVIDIA driver works (an installer that took an AMD integrated GPU for the target may have picked the "
                 "ROCm build)." % F.torch_version_str(facts))
        if remedy is None:
            return Tailored(cause=cause, notes=notes)
        return Tailored(cause=cause, summary=remedy.summary, commands=remedy.commands, notes=notes,
                        verify=remedy_verify(remedy, facts))
    if F.is_cuda_build(facts) and F.os_name(facts) != "macos":
        return Tailored(cause="Yet the installed torch (%s) *is* a CUDA build: the process that failed probably ran another "
                              "interpreter or environment. Compare `which python` with %s."
                              % (F.torch_version_str(facts), facts.value("python.executable")), notes=notes)
    remedy = cpu_only_remedy(facts)
    if remedy is None:
        return Tailored(notes=notes)
    return Tailored(summary=remedy.summary, commands=remedy.commands, notes=notes,
                    verify=remedy_verify(remedy, facts))
