"""Redaction: take identifying and secret values out of a finished Report.

A pure function on the Report (facts + findings), applied before any renderer
sees it, so the Markdown, JSON and text outputs can never disagree about what
was hidden. Nothing here reads the machine: the caller passes the local user
names and host names it wants hidden as well (``extra_users``, ``extra_hosts``).

What goes, and what it becomes:

* secrets - by *name* (an env var or key that says TOKEN, SECRET, PASSWORD,
  API_KEY, CREDENTIALS...) the whole value; by *value* anywhere (GitHub ``ghp_``
  and ``github_pat_``, Hugging Face ``hf_``, OpenAI/Anthropic ``sk-``, AWS
  ``AKIA``/``ASIA``, Slack ``xox?-``, Google ``AIza``, JWTs, ``Bearer`` tokens,
  private-key blocks, ``NAME=value`` pairs whose name says secret) ->
  ``<secret>``; credentials in URLs (``https://user:pass@host``) -> ``<secret>@``;
* user names - from home-directory paths (``/home/u/``, ``/Users/u/``,
  ``C:\\Users\\u\\``) and from the caller -> ``<user>``, wherever the name
  appears as a word;
* host names - ``os.hostname`` and the caller's -> ``<host>``;
* IPv4/IPv6 addresses (not loopback, not version numbers) -> ``<ip>``;
* GPU UUIDs, other UUIDs, serial numbers, MAC addresses, e-mail addresses.

The report records that redaction ran and how many values of each kind went
(counts only), under ``facts.redaction``.
"""

import copy
import ipaddress
import os
import re
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

from .facts import Facts
from .findings import Finding, Fix
from .report import Report

USER = "<user>"
HOST = "<host>"
IP = "<ip>"
SECRET = "<secret>"
UUID = "<uuid>"
GPU_UUID = "GPU-<uuid>"
SERIAL = "<serial>"
MAC = "<mac>"
EMAIL = "<email>"

# Keys (env var names, fact names) whose whole value is a secret.
SECRET_NAME = re.compile(
    r"(?i)(?:^|[_\-.])(?:TOKEN|TOKENS|SECRET|SECRETS|PASSWORD|PASSWD|PASSPHRASE|PASS|PWD_SECRET|"
    r"CREDENTIAL|CREDENTIALS|CREDS|APIKEY|API_KEY|ACCESS_KEY|PRIVATE_KEY|KEY|AUTH|AUTHORIZATION|COOKIE|"
    r"SESSION|SIGNATURE|DSN|WEBHOOK)(?:$|[_\-.])")
# ... except these, which look like it but are not secrets.
NOT_SECRET_NAME = re.compile(r"(?i)^(?:PWD|OLDPWD|KEY_?FILE_?PATH|SSH_AUTH_SOCK|TORCH_KEYS?)$")
SERIAL_NAME = re.compile(r"(?i)(?:^|_)(?:serial|serial_number|board_id)$")
UUID_NAME = re.compile(r"(?i)(?:^|_)uuid$")

# Secrets recognised by their shape, wherever they are.
_TOKEN_PATTERNS = [
    r"gh[pousr]_[A-Za-z0-9]{20,255}",
    r"github_pat_[A-Za-z0-9_]{20,255}",
    r"glpat-[A-Za-z0-9_\-]{20,}",
    r"hf_[A-Za-z0-9]{20,}",
    r"sk-(?:ant-|proj-|svcacct-)?[A-Za-z0-9_\-]{20,}",
    r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA)[A-Z0-9]{16}",
    r"xox[abposr]-[A-Za-z0-9\-]{10,}",
    r"AIza[0-9A-Za-z_\-]{35}",
    r"npm_[A-Za-z0-9]{36}",
    r"pypi-[A-Za-z0-9_\-]{50,}",
    r"wandb_v1_[A-Za-z0-9_]{20,}|(?<=WANDB_API_KEY=)[0-9a-f]{40}",
    r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",  # JWT
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
]
TOKEN_RE = re.compile(r"(?<![A-Za-z0-9])(?:%s)" % "|".join(_TOKEN_PATTERNS))
BEARER_RE = re.compile(r"(?i)\b(bearer|basic|token)(\s+)([A-Za-z0-9._~+/\-]{16,}=*)")
# NAME=value / NAME: value / --name value where NAME says secret.
ASSIGN_RE = re.compile(
    r"(?i)\b([A-Z0-9_\-.]*(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API[_\-]?KEY|ACCESS[_\-]?KEY|"
    r"PRIVATE[_\-]?KEY|CREDENTIALS?)[A-Z0-9_\-]*)(\"?'?\s*[=:]\s*\"?'?|\s+(?=[^\s]*\d))([^\s\"',;&|<>]{6,})")
URL_CRED_RE = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]{1,20}://)([^/\s:@]+)(:[^/\s@]*)?@")

HOME_PATH_RES = [
    # /home/<u>/, /Users/<u>/, /export/home/<u>, /var/home/<u> (Silverblue)
    re.compile(r"(?<![A-Za-z]:)((?:/export|/var)?/home/|/Users/)([^/\s:;\"'<>|]+)"),  # C:/Users/: below
    # C:\Users\<u>\ and C:/Users/<u>/ (and doubled backslashes of escaped text). Windows
    # profile folders often hold a space ("C:\Users\Jane Doe\"): words joined by single
    # spaces belong to the name when a path separator follows them.
    re.compile(r"(?i)([A-Z]:(?:\\\\|\\|/)(?:Users|Documents and Settings)(?:\\\\|\\|/))"
               r"([^\\/\s:;\"'<>|]+(?: [^\\/\s:;\"'<>|]+)*(?=\\|/)|[^\\/\s:;\"'<>|]+)"),
]
NOT_USER = {"", "<user>", "shared", "public", "default", "all users", "default user", "common", "runner",
            "linuxbrew", "..", "."}
# Words too common to replace everywhere, even when they are someone's user name:
# their home-directory paths are still redacted.
COMMON_WORDS = {"root", "user", "users", "admin", "ubuntu", "debian", "fedora", "centos", "ec2-user",
                "python", "conda", "torch", "pytorch", "cuda", "nvidia", "home", "test", "dev", "build",
                "docker", "jovyan", "vscode", "codespace", "runner", "work", "data", "local", "opt", "lib",
                "bin", "main", "master", "default", "guest", "linux", "windows", "mac", "admin1", "ai", "ml",
                "gpu", "cpu", "x86_64", "amd64", "arm64", "lib64", "site-packages", "anaconda3", "miniconda3",
                "miniforge3", "app", "apps", "src", "tmp", "var", "usr", "etc", "none", "null", "true", "false",
                "localhost", "server", "node", "host", "pc", "desktop", "laptop", "workstation"}

# Default host names that are also ordinary words in a report.
HOST_WORDS = {"raspberrypi", "archlinux", "arch", "kali", "pop-os", "manjaro", "mint", "opensuse", "suse",
              "rocky", "alma", "almalinux", "amzn", "amazon", "colab", "kaggle", "dgx", "a100", "h100",
              "jetson", "nano", "orin", "macbook", "macbook-pro", "macbook-air", "imac", "mac-mini", "wsl"}

IPV4_RE = re.compile(r"(?<![\w.\-+])(?<!==)((?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3})"
                     r"(?![\w.]|/\d|-\d|\+)")
IPV4_SUBNET_RE = re.compile(r"(?<![\w.\-+])(?<!==)((?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3})(/\d{1,2})(?![\w.])")
IPV6_CAND_RE = re.compile(r"(?<![\w:.])((?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?:%[\w.]+)?)(?![\w:])")
KEEP_IPS = {"127.0.0.1", "0.0.0.0", "255.255.255.255", "::1", "::"}
GPU_UUID_RE = re.compile(r"\b(?:GPU|MIG)-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
                         r"|\bMIG-GPU-[0-9a-fA-F\-]{36}/\d+/\d+\b")
UUID_RE = re.compile(r"(?<![\w<-])[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}(?![\w-])")
MAC_RE = re.compile(r"(?<![\w:])(?:[0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}(?![\w:])")
EMAIL_RE = re.compile(r"(?<![\w.+\-])[A-Za-z0-9._%+\-]{1,64}@[A-Za-z0-9\-]{1,63}(?:\.[A-Za-z0-9\-]{1,63})*\.[A-Za-z]{2,24}\b")
# Values in these keys are versions, where "8.9.2.26" is not an IP address.
VERSION_KEY = re.compile(r"(?i)version|_ver$|^ver$")


@dataclass
class Redactor:
    """Redacts strings; remembers how many values of each kind it replaced."""

    users: Set[str] = field(default_factory=set)
    hosts: Set[str] = field(default_factory=set)
    counts: Dict[str, int] = field(default_factory=dict)
    _word_res: Optional[List] = None

    def _count(self, kind: str, n: int = 1) -> None:
        if n:
            self.counts[kind] = self.counts.get(kind, 0) + n

    # -- learning names -------------------------------------------------------
    def learn_user(self, name: Any) -> None:
        if isinstance(name, str):
            name = name.strip()
            if name and name.lower() not in NOT_USER and not name.startswith("<") and "$" not in name \
                    and "%" not in name:
                self.users.add(name)
                self._word_res = None

    def learn_host(self, name: Any) -> None:
        if isinstance(name, str):
            name = name.strip().rstrip(".")
            if name and name.lower() not in ("localhost", "localhost.localdomain", "<host>"):
                self.hosts.add(name)
                short = name.split(".")[0]
                if short != name and len(short) >= 3:
                    self.hosts.add(short)
                self._word_res = None

    def learn_from_text(self, text: str) -> None:
        for rx in HOME_PATH_RES:
            for m in rx.finditer(text):
                self.learn_user(m.group(2))

    def _words(self):
        """(regex, replacement, kind) for names replaced wherever they stand as a word."""
        if self._word_res is None:
            out = []
            for h in sorted(self.hosts, key=len, reverse=True):
                # A host called "ubuntu" or "gpu" must not eat the distro or GPU names:
                # such names are hidden only where they are the host name (os.hostname).
                if len(h) >= 3 and h.lower() not in COMMON_WORDS and h.lower() not in HOST_WORDS:
                    out.append((re.compile(r"(?<![\w\-.])%s(?![\w\-])" % re.escape(h)), HOST, "hostname"))
            for u in sorted(self.users, key=len, reverse=True):
                if len(u) >= 3 and u.lower() not in COMMON_WORDS:
                    out.append((re.compile(r"(?<![A-Za-z0-9])%s(?![A-Za-z0-9])" % re.escape(u)), USER, "user"))
            self._word_res = out
        return self._word_res

    # -- redacting --------------------------------------------------------------
    def secret_value(self, value: str) -> str:
        if value == "" or value == SECRET:
            return value
        self._count("secret")
        return SECRET

    def text(self, s: str, key: str = "") -> str:
        if not s:
            return s

        def sub(rx, repl, kind, text):
            out, k = rx.subn(repl, text)
            if k:
                self._count(kind, k)
            return out

        # Secrets first, so nothing later half-hides a token.
        s = sub(URL_CRED_RE, lambda m: m.group(1) + SECRET + "@", "secret", s)
        s = sub(TOKEN_RE, SECRET, "secret", s)
        s = sub(BEARER_RE, lambda m: m.group(1) + m.group(2) + SECRET, "secret", s)
        s = sub(ASSIGN_RE, lambda m: m.group(1) + m.group(2) + SECRET if m.group(3) != SECRET else m.group(0),
                "secret", s)
        s = sub(GPU_UUID_RE, GPU_UUID, "gpu_uuid", s)
        s = sub(UUID_RE, UUID, "uuid", s)
        s = sub(EMAIL_RE, EMAIL, "email", s)
        # Home directories: the user part of the path.
        for rx in HOME_PATH_RES:
            s = sub(rx, lambda m: m.group(1) + USER if m.group(2) not in NOT_USER and not m.group(2).startswith("<")
                    else m.group(0), "home_path", s)
        for rx, repl, kind in self._words():
            s = sub(rx, repl, kind, s)
        if not VERSION_KEY.search(key):
            s = sub(IPV4_SUBNET_RE, lambda m: m.group(0) if m.group(1) in KEEP_IPS else IP + m.group(2), "ip", s)
            s = sub(IPV4_RE, lambda m: m.group(0) if m.group(1) in KEEP_IPS else IP, "ip", s)
            s = self._ipv6(s)
            s = sub(MAC_RE, MAC, "mac", s)
        return s

    def _ipv6(self, s: str) -> str:
        if s.count(":") < 2:
            return s

        def repl(m):
            cand = m.group(1)
            addr = cand.split("%", 1)[0]
            groups = [g for g in addr.split(":") if g]
            if addr in KEEP_IPS or len(groups) < 3 or not any(c.isdigit() for c in addr):
                return cand
            if "::" not in addr and addr.count(":") != 7:
                return cand  # 14:51:19 is a time, not an address
            if all(g.isdigit() and len(g) <= 2 for g in groups):
                return cand
            try:
                ipaddress.IPv6Address(addr)
            except ValueError:
                return cand
            self._count("ip")
            return IP

        return IPV6_CAND_RE.sub(repl, s)

    def value(self, v: Any, key: str = "") -> Any:
        """Redact any JSON value; ``key`` is the name it is stored under."""
        if isinstance(v, str):
            if key and SECRET_NAME.search(key) and not NOT_SECRET_NAME.match(key):
                return self.secret_value(v)
            if key and SERIAL_NAME.search(key) and v:
                self._count("serial")
                return SERIAL
            if key and UUID_NAME.search(key) and v and not v.startswith(("<", "GPU-<")):
                self._count("gpu_uuid")
                return GPU_UUID if v.startswith("GPU-") else UUID
            return self.text(v, key)
        if isinstance(v, dict):
            return {self.text(k) if isinstance(k, str) and not k.startswith("_") else k: self.value(x, str(k))
                    for k, x in v.items()}
        if isinstance(v, list):
            return [self.value(x, key) for x in v]
        return v


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
    for f in report.findings:
        for s in [f.title, f.detail, f.fix.summary] + list(f.fix.commands) + list(f.links):
            r.learn_from_text(s)

    prior = data.pop("redaction", None)
    out = r.value(data)
    if isinstance(out.get("os"), dict) and isinstance(out["os"].get("hostname"), str) and out["os"]["hostname"]:
        if out["os"]["hostname"] != HOST:
            r._count("hostname")
        out["os"]["hostname"] = HOST
    findings = [Finding(id=f.id, category=f.category, severity=f.severity, title=r.text(f.title),
                        detail=r.text(f.detail),
                        fix=Fix(summary=r.text(f.fix.summary), commands=[r.text(c) for c in f.fix.commands]),
                        links=[r.text(x) for x in f.links], check=f.check)
                for f in report.findings]
    counts = dict(prior.get("counts", {})) if isinstance(prior, dict) and prior.get("enabled") else {}
    for k, n in r.counts.items():
        counts[k] = counts.get(k, 0) + n
    out["redaction"] = {"enabled": True, "counts": dict(sorted(counts.items())),
                        "kinds": ["secrets (by name and by value)", "user names and home directories",
                                  "host names", "IP addresses", "GPU UUIDs and serials", "MAC and e-mail addresses"]}
    return Report(Facts(out), findings)


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
