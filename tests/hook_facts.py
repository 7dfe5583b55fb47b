"""The facts a tailoring hook sees for a venv at /home/u/venv (Linux unless `system` says
otherwise), as explain's cheap facts would read them; keyword sections add or replace parts.
Shared by the hook tests of tests/areas/ and the known-error tests of tests/kb/errors/."""

from torchdoctor.model.facts import Facts, absent

SITE = "/home/u/venv/lib/python3.11/site-packages"


def facts(torch=None, py="3.11.7", exe="/home/u/venv/bin/python", bits=64, machine="x86_64",
          system="Linux", packages=None, **sections):
    installed = {}
    if torch:
        installed["torch"] = {"version": torch, "location": SITE}
    installed.update(packages or {})
    data = {"python": {"version": py, "executable": exe, "bits": bits, "machine": machine,
                       "platform": {"Linux": "linux", "Windows": "win32", "Darwin": "darwin"}.get(system, "linux"),
                       "prefix": "/home/u/venv", "conda": False, "sys_path": ["", SITE]},
            "os": {"system": system, "machine": machine},
            "packages": {"installed": installed},
            "driver": {"present": False, "driver_version": absent("no driver")}}
    for k, v in sections.items():
        if isinstance(v, dict) and isinstance(data.get(k), dict):
            data[k].update(v)
        else:
            data[k] = v
    return Facts(data)
