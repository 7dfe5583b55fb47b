"""Every check, in one explicit tuple: what `check` runs is read here, not decided by which
modules happen to be imported. A check is a ``@rule("check", ...)`` function in its area's
module (model/rules.py has the shape); tests/areas/test_areas_meta.py holds this tuple to the
checks the area modules define, and every check to a fixture that fires it and one that keeps
it quiet. Listings show checks by id; the order here is by area.

What only checks do on top of the one runner (`run_check`): the facts a check read become its
evidence, and its fix commands and verification are made runnable by the target interpreter.
"""

from typing import Dict, Iterable, List, Optional

from ..advice.commands import finish, runnable_verify
from ..model import rules
from ..model.facts import UNKNOWN, Facts
from ..model.findings import Finding
from ..model.rules import Rule, rules_of
from . import backends_api
from .companions import numpy as companions_numpy
from .companions import vision_audio as companions_vision_audio
from . import compile
from . import compile_preflight
from . import config
from . import env_vars
from . import cpu_only_build
from .cuda import arch as cuda_arch
from .cuda import driver as cuda_driver
from .cuda import visibility as cuda_visibility
from . import cudnn
from . import dataloader
from . import import_time
from . import distributed
from .install import files as install_files
from .install import probe as install_probe
from .install import wheels as install_wheels
from . import mps
from .native_libs import extensions as native_libs_extensions
from .native_libs import foreign as native_libs_foreign
from .native_libs import libs as native_libs_libs
from . import runtime

CHECKS = rules_of((
    backends_api.backends_mps_missing,
    companions_numpy.numpy_abi,
    companions_numpy.numpy_unavailable,
    companions_numpy.torch_import_warning,
    companions_vision_audio.torchvision_mismatch,
    companions_vision_audio.torchaudio_mismatch,
    compile.triton_missing,
    compile_preflight.compile_preflight,
    compile_preflight.compile_timings,
    config.cudnn_benchmark,
    config.cudnn_deterministic,
    config.cudnn_disabled,
    config.deterministic_algorithms,
    config.cublas_workspace_config,
    config.fp32_precision,
    config.thread_oversubscription,
    config.cuda_launch_blocking,
    config.no_cuda_memory_caching,
    env_vars.alloc_conf_unknown_key,
    config.torch_cuda_arch_list,
    config.cuda_module_loading_eager,
    config.expandable_segments_unsupported,
    cpu_only_build.cpu_only_build,
    cuda_arch.arch_unsupported,
    cuda_driver.no_gpu_driver,
    cuda_driver.driver_too_old,
    cuda_driver.cuda_unavailable,
    cuda_driver.cuda_init_hang,
    cuda_visibility.gpu_hidden,
    cudnn.cudnn_unavailable,
    cudnn.cudnn_version_mismatch,
    cudnn.cudnn_old_gpu,
    dataloader.small_shm,
    import_time.slow_torch_import,
    distributed.omp_threads_distributed,
    install_files.torch_install_damaged,
    install_files.torch_shadowed,
    install_files.torch_duplicate_install,
    install_probe.probe_failed,
    install_probe.torch_import_failed,
    install_probe.torch_import_crash,
    install_probe.probe_crashed,
    install_wheels.torch_not_installed,
    install_wheels.python_unsupported,
    mps.mps_not_built,
    mps.mps_unavailable,
    mps.mps_fallback_enabled,
    native_libs_extensions.toolkit_mismatch,
    native_libs_foreign.foreign_library,
    native_libs_libs.omp_duplicate_lib_ok,
    runtime.determinism_cublas,
))
BY_ID = {c.id: c for c in CHECKS}


def all_checks() -> List[Rule]:
    # By id: listings and "not run" lists do not change when a check moves between modules.
    return sorted(CHECKS, key=lambda c: c.id)


def _unknown(chk: Rule, facts: Facts) -> List[str]:
    return [p for p in chk.requires if facts.state(p) == UNKNOWN]


def run_check(chk: Rule, facts: Facts) -> List[Finding]:
    """One check by the one runner, with what only checks add: the facts it read are its
    evidence; then the finishing step every finding takes (advice.commands.finish)."""
    facts.start_recording()
    try:
        out = rules.call(chk, facts)
    finally:
        evidence = facts.stop_recording()
    for f in out:
        if f.id != rules.CRASHED:
            f.evidence = f.evidence or list(evidence)
            finish(f, facts, lambda: runnable_verify(chk.verify, facts) if chk.verify else None)
    return out


def select(only: Optional[Iterable[str]] = None, skip: Optional[Iterable[str]] = None) -> List[Rule]:
    checks = all_checks()
    known = {c.id for c in checks}
    for name in list(only or []) + list(skip or []):
        if name not in known:
            raise KeyError(name)
    if only:
        wanted = set(only)
        checks = [c for c in checks if c.id in wanted]
    if skip:
        unwanted = set(skip)
        checks = [c for c in checks if c.id not in unwanted]
    return checks


def run_checks(facts: Facts, only=None, skip=None,
               skipped: Optional[List[Dict[str, object]]] = None) -> List[Finding]:
    """Findings of the selected checks; checks whose required facts are unknown
    are appended to `skipped` as {"id", "needs"} instead of being run."""
    out = rules.run(select(only, skip), facts, missing=_unknown, each=run_check)
    if skipped is not None:
        skipped.extend(out.skipped)
    return out.findings
