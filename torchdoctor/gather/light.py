"""Cheap facts for `explain`: read without importing torch or starting a child.

Installed versions come from dist-info directory names (the same reader the
probe uses), the driver only when a tailoring hook asks for it.
"""

import sys

from ..model.facts import SCHEMA_VERSION, Facts, failed
from . import target


def _driver():
    from . import system
    return system.merge_driver(system.nvml_facts(5), system.nvidia_smi_facts(5))


def _toolkit():
    from . import system
    return system.toolkit_facts(5)


def _env():
    from . import system
    return system.env_facts()


def _os():
    from . import system
    return system.os_facts()


def _memory():
    from . import system
    return system.memory_facts()


def _programs():
    from . import system
    return system.program_facts()


def _network():
    from . import network
    return network.listening_facts()


def _scripts(data):
    def load():
        from . import scripts
        return scripts.scripts_facts(data.get("python"))
    return load


def _torch_files(data):
    def load():
        from . import target
        return target.torch_files_facts(data.get("packages"))
    return load


def light_facts(python=None, isolated_from=None) -> Facts:
    """`python`: another interpreter (the one the user works in), read by a light child
    probe (isolated_from: an isolated one, probe.ISOLATE); default: this one, read in-process."""
    data = {"schema_version": SCHEMA_VERSION, "source": "explain"}
    if python and python != sys.executable:
        from .probe import run_target
        sections = run_target(python, timeout=20.0, light=True, isolated_from=isolated_from)
        for key in ("python", "packages"):
            data[key] = sections.get(key, failed("the probe of %s did not report it" % python))
    else:
        for key, fn in (("python", target.python_facts), ("packages", target.package_facts)):
            try:
                data[key] = fn()
            except Exception as e:  # noqa: BLE001
                data[key] = failed("%s: %s" % (type(e).__name__, e))
    loaders = {"driver": _driver, "toolkit": _toolkit, "os": _os, "env": _env, "memory": _memory,
               "network": _network, "programs": _programs, "scripts": _scripts(data)}
    if not python or python == sys.executable:
        loaders["torch_files"] = _torch_files(data)  # this interpreter's torch, against its RECORD
    return Facts(data, loaders=loaders)


