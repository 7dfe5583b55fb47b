"""Cheap facts for `explain`: read without importing torch or starting a child.

Installed versions come from dist-info directory names (the same reader the
probe uses), the driver only when a tailoring hook asks for it.
"""

from ..facts import SCHEMA_VERSION, Facts, failed
from ..probe import target


def _driver():
    from ..probe import system
    return system.merge_driver(system.nvml_facts(5), system.nvidia_smi_facts(5))


def _toolkit():
    from ..probe import system
    return system.toolkit_facts(5)


def _env():
    from ..probe import system
    return system.env_facts()


def _os():
    from ..probe import system
    return system.os_facts()


def light_facts() -> Facts:
    data = {"schema_version": SCHEMA_VERSION, "source": "explain"}
    for key, fn in (("python", target.python_facts), ("packages", target.package_facts)):
        try:
            data[key] = fn()
        except Exception as e:  # noqa: BLE001
            data[key] = failed("%s: %s" % (type(e).__name__, e))
    return Facts(data, loaders={"driver": _driver, "toolkit": _toolkit, "os": _os, "env": _env})


def no_facts() -> Facts:
    return Facts({"schema_version": SCHEMA_VERSION, "source": "none"})

