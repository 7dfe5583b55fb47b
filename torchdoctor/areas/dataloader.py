"""DataLoader workers: shared memory, workers that die, spawn start methods.
"""

from typing import Optional

from ..model.facts import Facts
from ..model import derived as F
from .registry import WARNING, Tailored, rule, finding, hook
from .companions.common import python_minor
from .config import MANY_CORES



DOCKER_SHM_URL = "https://docs.docker.com/reference/cli/docker/container/run/#ipc"


SHM_MIN_BYTES = 1 << 30


SHM_MIN_BYTES_MANY_CORES = 8 << 30


@rule("check", "small-shm", category="dataloader-shm", severity=WARNING)
def small_shm(facts):
    """/dev/shm in this container is too small for DataLoader workers."""
    where = F.container(facts)
    shm = facts.value("memory.shm_bytes")
    if not where or not isinstance(shm, int) or isinstance(shm, bool):
        return None
    cores = F.usable_cores(facts) or 0
    need = SHM_MIN_BYTES_MANY_CORES if cores >= MANY_CORES else SHM_MIN_BYTES
    if shm >= need:
        return None
    k8s = where in ("kubepods", "kubernetes") or F.env(facts, "KUBERNETES_SERVICE_HOST") is not None
    cmds = ["df -h /dev/shm"]
    if k8s:
        fix = ("In Kubernetes, mount an emptyDir with medium: Memory (sizeLimit e.g. 8Gi) at /dev/shm in the pod spec, "
               "or use DataLoader(num_workers=0) meanwhile.")
    else:
        fix = "Restart the container with a bigger /dev/shm (or the host's IPC namespace)."
        cmds += ["docker run --shm-size=8g ...", "docker run --ipc=host ..."]
    return finding(
        "/dev/shm is only %s in this %s container" % (F.gib(shm), where),
        detail="DataLoader workers (num_workers > 0) hand batches to the main process through shared memory in "
               "/dev/shm. At %s%s, it fills up and workers die with 'ERROR: Unexpected bus error encountered in "
               "worker. This might be caused by insufficient shared memory (shm)' or 'DataLoader worker (pid N) is "
               "killed by signal: Bus error'. Docker's default is 64 MiB."
               % (F.gib(shm), " with %d cores' worth of workers" % cores if cores >= MANY_CORES else ""),
        fix=fix, commands=cmds, links=[DOCKER_SHM_URL])


# -- DataLoader --------------------------------------------------------------------
BIG_SHM = 2 << 30  # 2 GiB: docker's default is 64 MB; a few GiB carry dozens of image batches


@hook("dataloader-shm")
def dataloader_shm(match, facts: Facts) -> Optional[Tailored]:
    if F.os_name(facts) != "linux":
        return None
    container = facts.value("os.container")
    notes = ["container: %s" % (container if isinstance(container, str) else "none detected")]
    shm = facts.value("memory.shm_bytes")
    if isinstance(shm, int) and not isinstance(shm, bool) and shm > 0:
        notes.append("/dev/shm here: %s" % F.gib(shm))
        if shm >= BIG_SHM:
            # The measured size, not a default: a large /dev/shm here means the run that failed
            # had less (another container or node), or the workers really filled all of it.
            return Tailored(summary="/dev/shm on this machine is %s, far above what DataLoader workers normally need, so "
                                    "either the failing run had a smaller one (another container, pod or node: check "
                                    "`df -h /dev/shm` there) or the workers filled it (many workers, large batches, "
                                    "tensors kept alive): watch it while the loader runs and lower num_workers or "
                                    "batch size." % F.gib(shm),
                            commands=["df -h /dev/shm"], notes=notes)
    if container in ("docker", "podman", "containerd"):
        tool = "podman" if container == "podman" else "docker"
        size = ("is %s" % F.gib(shm)) if isinstance(shm, int) and shm > 0 else "defaults to 64 MB"
        return Tailored(summary="This runs in a %s container, whose /dev/shm %s. Restart it with a "
                                "larger shared-memory size (or the host's IPC namespace); in docker compose set "
                                "shm_size. As a stopgap, lower num_workers." % (tool, size),
                        commands=["df -h /dev/shm", "%s run --shm-size=16g ... <image>" % tool,
                                  "%s run --ipc=host ... <image>" % tool], notes=notes)
    if container in ("kubepods", "kubernetes"):
        return Tailored(summary="This runs in a Kubernetes pod, whose /dev/shm is small by default: mount an emptyDir "
                                "with medium: Memory (and a sizeLimit) at /dev/shm in the pod spec.",
                        commands=["df -h /dev/shm"], notes=notes)
    return Tailored(summary="Check how full /dev/shm is while the loader runs; enlarge it (tmpfs remount, lasts until "
                            "reboot) or lower num_workers / batch size.",
                    commands=["df -h /dev/shm", "sudo mount -o remount,size=16G /dev/shm"], notes=notes)


@hook("dataloader-worker-exit")
def dataloader_worker_exit(match, facts: Facts) -> Optional[Tailored]:
    osn = F.os_name(facts)
    py = python_minor(facts)
    notes = ["OS: %s" % osn, "Python %s" % ("%d.%d" % py if py else "?")]
    if osn in ("windows", "macos"):
        return Tailored(summary="%s starts DataLoader workers with 'spawn': every worker re-imports the main script, so "
                                "the training code must sit under `if __name__ == \"__main__\":` and the dataset, its "
                                "transforms and collate_fn must be picklable (no lambdas or local functions). The "
                                "real error is printed above this line." % ("Windows" if osn == "windows" else "macOS"),
                        commands=[], notes=notes)
    shm = dataloader_shm(match, facts)
    if shm is not None:
        shm.summary = ("The worker's own error is printed above this line: 'Bus error' means shared memory, "
                       "'Killed' the out-of-memory killer. " + (shm.summary or ""))
    return shm


@hook("dataloader-spawn")
def dataloader_spawn(match, facts: Facts) -> Optional[Tailored]:
    osn = F.os_name(facts)
    py = python_minor(facts)
    notes = ["OS: %s" % osn, "Python %s" % ("%d.%d" % py if py else "?")]
    if osn == "linux" and py and py >= (3, 14):
        return Tailored(cause="On Linux, Python 3.14 changed multiprocessing's default start method from 'fork' to "
                              "'forkserver', so code that worked on 3.13 now re-imports the main module in every "
                              "worker.", notes=notes)
    if osn == "linux":
        return Tailored(cause="Linux uses 'fork' by default on this Python, so the code or a library chose 'spawn' or "
                              "'forkserver' (multiprocessing.set_start_method or multiprocessing_context=).",
                        notes=notes)
    if osn in ("windows", "macos"):
        return Tailored(cause="%s always starts worker processes with 'spawn'." % (
            "Windows" if osn == "windows" else "macOS (Python 3.8+)"), notes=notes)
    return None
