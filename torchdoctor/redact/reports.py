"""A whole Report: its redacted copy, the --no-redact mark, the one-line summary of what went,
and this machine's user and host names."""

import copy
import os
import re
from typing import Any, Dict, Iterable, List, Sequence, Tuple

from ..model import records
from ..model.facts import Facts
from ..model.findings import Finding, Fix, Verify
from ..model.report import Report
from .placeholders import HOST
from .redactor import Redactor


def _strings(node: Any) -> Iterable[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for k, v in node.items():
            if isinstance(k, str):
                yield k
            yield from _strings(v)
    elif isinstance(node, list):
        for x in node:
            yield from _strings(x)


def redact_report(report: Report, extra_users: Iterable[str] = (), extra_hosts: Iterable[str] = ()) -> Report:
    """A redacted copy of ``report``; the original is not touched.

    ``extra_users``/``extra_hosts``: names the caller knows (the local user and
    host, $HOME's last part) in addition to those found in the facts.
    """
    data = copy.deepcopy(report.facts.to_dict())
    r = _learned(data, [s for f in report.findings for s in _finding_texts(f)], extra_users, extra_hosts)
    findings = [_redacted_finding(f, r) for f in report.findings]
    return Report(Facts(_redacted_facts(data, r)), findings)


def redact_output(data: Any, texts: Sequence[str] = ()) -> Tuple[Any, List[str]]:
    """Whatever a surface hands out of this machine (the MCP server's tool results): a JSON value
    and some texts (its summary), redacted by one Redactor that knows this machine's user and host
    names and those the facts in it name. A report in it (an object with "facts") is redacted as
    redact_report does, and says so in facts.redaction; the original is not touched."""
    users, hosts = local_names()
    facts = data.get("facts") if isinstance(data, dict) and isinstance(data.get("facts"), dict) else None
    r = _learned(copy.deepcopy(facts) if facts is not None else {}, list(_strings(data)) + list(texts), users, hosts)
    if facts is None:
        out = r.value(data)
    else:  # the rest first, so the redaction record counts it too
        out = {k: v if k == "facts" else r.value(v, k) for k, v in data.items()}
        out["facts"] = _redacted_facts(copy.deepcopy(facts), r)
    return out, [r.text(t) for t in texts]


def _learned(data: Dict[str, Any], texts: Iterable[str], extra_users: Iterable[str] = (),
             extra_hosts: Iterable[str] = ()) -> Redactor:
    """A Redactor that knows the names to hide: the caller's, and those the facts `data` and the
    `texts` name (the host, the user of $HOME and of home-directory paths, the rendezvous host)."""
    r = Redactor()
    for u in extra_users:
        r.learn_user(u)
    for h in extra_hosts:
        r.learn_host(h)
    os_ = data.get("os") if isinstance(data.get("os"), dict) else {}
    r.learn_host(os_.get("hostname"))
    env = data.get("env") if isinstance(data.get("env"), dict) else {}
    for k in ("USER", "USERNAME", "LOGNAME"):
        r.learn_user(env.get(k))
    for k in ("MASTER_ADDR",):  # the rendezvous host of a distributed job: a host name unless an address
        v = env.get(k)
        if isinstance(v, str) and "<" not in v and not re.fullmatch(r"[\d.:\[\]a-fA-F]*", v.strip()):
            r.learn_host(v)
    for k in ("HOME", "USERPROFILE"):
        if isinstance(env.get(k), str):
            r.learn_user(re.split(r"[\\/]", env[k].rstrip("\\/"))[-1])
    for s in _strings(data):
        r.learn_from_text(s)
    for s in texts:
        r.learn_from_text(s)
    return r


def _redacted_facts(data: Dict[str, Any], r: Redactor) -> Dict[str, Any]:
    """The facts `data` redacted by `r`, with the record of what went (this pass's counts, and
    those of a pass before it) in facts.redaction."""
    prior = data.pop("redaction", None)
    out = r.value(data)
    if isinstance(out.get("os"), dict) and isinstance(out["os"].get("hostname"), str) and out["os"]["hostname"]:
        if out["os"]["hostname"] != HOST:
            r.tally("hostname")
        out["os"]["hostname"] = HOST
    counts = dict(prior.get("counts", {})) if isinstance(prior, dict) and prior.get("enabled") else {}
    for k, n in r.counts.items():
        counts[k] = counts.get(k, 0) + n
    out["redaction"] = {"enabled": True, "counts": dict(sorted(counts.items())),
                        "kinds": ["secrets (by name and by value)", "user names and home directories",
                                  "host names", "IP addresses", "GPU UUIDs and serials", "MAC and e-mail addresses"]}
    return out


def _finding_texts(f: Finding) -> List[str]:
    verify = [f.verify.command, f.verify.expect] if f.verify else []
    return [f.title, f.detail, f.fix.summary, f.fix.resolution] + list(f.fix.commands) + list(f.links) + list(f.evidence) + verify


def _redacted_finding(f: Finding, r: Redactor) -> Finding:
    """The finding with every text redacted; what is not text (id, severity, confidence,
    the check's id) kept as it is."""
    return records.replace(
        f, title=r.text(f.title), detail=r.text(f.detail),
        fix=Fix(summary=r.text(f.fix.summary), commands=[r.text(c) for c in f.fix.commands],
                resolved=f.fix.resolved, resolution=r.text(f.fix.resolution)),
        links=[r.text(x) for x in f.links], evidence=[r.text(x) for x in f.evidence],
        verify=Verify(r.text(f.verify.command), r.text(f.verify.expect)) if f.verify else None)


def mark_unredacted(report: Report) -> Report:
    """``--no-redact``: the report says so, so nobody assumes it is safe to post."""
    data = copy.deepcopy(report.facts.to_dict())
    data["redaction"] = {"enabled": False,
                         "note": "redaction turned off with --no-redact: user names, host names, addresses, "
                                 "tokens and other secrets may be in this report"}
    return Report(Facts(data), list(report.findings))


def redaction_summary(facts: Facts) -> str:
    """One sentence for the top of a report."""
    red = facts.value("redaction")
    if not isinstance(red, dict):
        return "Redaction: unknown (this report does not say)."
    if not red.get("enabled"):
        return "NOT REDACTED (--no-redact): this report may contain user names, host names, addresses and secrets."
    counts = red.get("counts") or {}
    if not counts:
        return "Redacted: nothing identifying or secret was found."
    names = {"secret": "secret", "user": "user name", "home_path": "home path", "hostname": "host name",
             "ip": "IP address", "gpu_uuid": "GPU UUID", "uuid": "UUID", "serial": "serial number", "mac": "MAC address",
             "email": "e-mail address"}
    parts = ["%d %s%s" % (n, names.get(k, k), "" if n == 1 else ("es" if names.get(k, k).endswith("ss") else "s"))
             for k, n in sorted(counts.items())]
    return "Redacted: " + ", ".join(parts) + "."


def local_names() -> Tuple[List[str], List[str]]:
    """This machine's user and host names, to hide wherever they appear."""
    import getpass
    import platform
    import socket
    users, hosts = [], []
    for fn in (getpass.getuser, lambda: os.path.basename(os.path.expanduser("~").rstrip("\\/")),
               lambda: os.environ.get("USER"), lambda: os.environ.get("USERNAME")):
        try:
            v = fn()
        except Exception:  # noqa: BLE001 - no user name is fine
            v = None
        if v:
            users.append(v)
    for fn in (socket.gethostname, platform.node):
        try:
            v = fn()
        except Exception:  # noqa: BLE001
            v = None
        if v:
            hosts.append(v)
    return users, hosts
