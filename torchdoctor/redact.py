"""Redaction: take identifying and secret values out of a finished Report.

A pure function on the Report (facts + findings), applied before any renderer
sees it, so the Markdown, JSON and text outputs can never disagree about what
was hidden. Nothing here reads the machine: the caller passes the local user
names and host names it wants hidden as well (``extra_users``, ``extra_hosts``).

What goes, and what it becomes:

* secrets -> ``<secret>``, and only the secret: the rest of the value stays,
  list separators (``:`` ``;`` ``,`` spaces) included.
  - by the *name* of an env var or fact key (TOKEN, SECRET, PASSWORD, API_KEY,
    CREDENTIALS...): the whole value;
  - by *shape* anywhere: the token formats of kb/data/secrets.json (prefix,
    character set and length of GitHub, GitLab, Slack, Stripe, AWS, GCP, Azure,
    OpenAI, Anthropic, Hugging Face, Replicate, W&B, npm, PyPI... tokens, JWTs,
    private-key blocks; facts copied from gitleaks and kingfisher);
  - by *structure*: URL userinfo (``scheme://user:pass@host``, up to the last
    ``@`` of the authority) -> ``scheme://<secret>@host``; the value of a
    ``key=value`` / ``key: value`` / JSON ``"key": "value"`` pair, a query
    parameter or a ``key=value;`` connection-string field whose key says secret
    (``X-Amz-Signature``, ``sig``, ``AccountKey``, ``SharedAccessSignature``,
    ``hf_auth``, ``pwd``...; secret_key_name); ``/tok=value/`` in a path;
    ``--password VALUE``; ``Bearer``/``Basic`` credentials; ``-pPASSWORD`` of a
    mysql-style client;
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
import json
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

# -- secrets by shape: kb/data/secrets.json (facts from gitleaks and kingfisher) --------------
SECRETS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kb", "data", "secrets.json")


def load_secret_rules() -> List[Dict[str, Any]]:
    """The token-shape rules of kb/data/secrets.json, in file order."""
    with open(SECRETS_FILE, encoding="utf-8") as fh:
        return json.load(fh)["rules"]


def _token_re(rules):
    """One alternation of every rule, in plain groups: each alternative starts with its literal, so
    the regex engine drops it on one comparison (named groups around them cost 20x)."""
    alts = ["(?:%s)%s" % (rule["keep"], rule["regex"]) if rule.get("keep") else rule["regex"] for rule in rules]
    return re.compile(r"(?<![A-Za-z0-9])(?:%s)" % "|".join(alts))


TOKEN_RULES = load_secret_rules()
TOKEN_RE = _token_re(TOKEN_RULES)
_ALONE: List[Any] = []  # each rule by itself, (?:keep)(secret): compiled at the first match


def token_rule(m):
    """(rule, where its secret part starts) for a match of TOKEN_RE: the first rule that matches
    there, which is the alternative the alternation took."""
    if not _ALONE:
        _ALONE.extend(re.compile("(?:%s)(%s)" % (rule.get("keep", ""), rule["regex"])) for rule in TOKEN_RULES)
    for rule, rx in zip(TOKEN_RULES, _ALONE):
        one = rx.match(m.string, m.start())
        if one and one.end() == m.end():
            return rule, one.start(1)
    raise AssertionError("TOKEN_RE matched %r, which no rule does" % m.group(0))

BEARER_RE = re.compile(r"(?i)\b(bearer|basic|token)(\s+)([A-Za-z0-9._~+/\-]{16,}=*)")

# -- secrets by structure ---------------------------------------------------------------------
# URL userinfo: everything between "scheme://" and the LAST "@" of the authority (a password may
# hold "@"; the authority ends at the first / ? # or space, so "https://h/@scope/pkg" is a path).
URL_CRED_RE = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]{1,20}://)([^/?#\s\"'<>`]*)@")

# NAME=value, NAME: value, "NAME": "value" (JSON), ?NAME=value& (query), ;NAME=value; (connection
# strings). Whether NAME says secret is decided in Python (secret_key_name), so a pair that is
# no secret costs one match and changes nothing. The value ends at a list separator (space , ; &),
# and at a ":" that starts the next element of a path list (":/usr/lib").
_VALUE_END = r"\s\"'<>;,&|`(){}\[\]"
PAIR_RE = re.compile(
    r"(?<![A-Za-z0-9_./\\])(?P<q>[\"']?)(?P<name>[A-Za-z_][A-Za-z0-9_.\-]{0,63})(?P=q)"
    r"(?P<sep>[ \t]{0,3}[=:][ \t]{0,3})"
    r"(?P<value>\"(?:[^\"\\\n]|\\.){0,4096}\"|'[^'\n]{0,4096}'"
    r"|(?:<secret>|[^%s:/\\?#=])(?:[^%s:]|:(?![/\\~.$])){0,8191})" % (_VALUE_END, _VALUE_END))
# /NAME=value/: a path component (the value ends at the next / or \).
PATH_PAIR_RE = re.compile(r"(?<=[/\\])(?P<name>[A-Za-z_][A-Za-z0-9_.\-]{0,63})(?P<sep>=)(?P<value>[^%s:/\\=]{1,4096})"
                          % _VALUE_END)
# --password VALUE, -token VALUE, and NAME VALUE where the value holds a digit (netrc's
# "password hunter2"). The value is in a lookahead, so it can still be the next name.
SPACE_PAIR_RE = re.compile(
    r"(?<![A-Za-z0-9_.\-])(?P<dash>--|-)?(?P<name>[A-Za-z_][A-Za-z0-9_.\-]{0,63})"
    r"(?=[ \t]{1,8}(?P<value>[^%s=\-][^%s]{0,4095}))" % (_VALUE_END, _VALUE_END))
# Cheap test before the pair passes: a key that says secret holds one of these (lower case).
SECRET_HINTS = ("tok", "secret", "pass", "pw", "cred", "sig", "key", "auth", "cookie", "sas", "dsn", "pat")
# mysql -pPASSWORD (the value glued to -p), only in a text that runs such a client.
DASH_P_RE = re.compile(r"(?<![\w\-])-p(?P<value>[^\s\"'`;|&]{1,4096})")
DASH_P_CONTEXT = re.compile(r"(?i)(?<![\w\-])(?:mysql\w{0,20}|mariadb[\w\-]{0,20}|sshpass|7za?|unrar|rar|zip)"
                            r"(?![\w\-])|(?<![\w\-])-u ?[A-Za-z_$]")
NOT_DASH_P = re.compile(r"(?:thread|threads|ipe|ie|g|edantic|rint|aram|lugin|rofile|ass-exit-codes|arallel|ort)\b")

# Words of a key name. A key is secret when a long secret word stands anywhere in it (unless the
# name ends in a word that makes it about the secret: token_type, password_file, secret_name),
# when a short one is its last word (hf_auth, db_pass, sig), or when it ends in "key".
LONG_SECRET_WORDS = ("token", "secret", "password", "passwd", "passphrase", "credential", "credentials", "signature",
                     "apikey", "accesskey", "secretkey", "accountkey", "privatekey", "masterkey", "cookie")
SHORT_SECRET_WORDS = {"tok", "sig", "pw", "pwd", "pass", "auth", "sas", "key", "keys", "creds", "cred", "dsn",
                      "authorization", "pat"}
NOT_SECRET_LAST = {"file", "files", "path", "paths", "dir", "directory", "name", "names", "id", "ids", "type", "types",
                   "len", "length", "size", "count", "num", "limit", "url", "uri", "endpoint", "env", "var", "mode",
                   "format", "header", "prefix", "suffix", "location", "policy", "expiry", "expires", "expiration",
                   "ttl", "algorithm", "algo", "version", "provider", "method", "scope", "kind", "host", "port",
                   "user", "username", "cache", "timeout", "interval", "enabled", "required", "fingerprint",
                   "budget", "index", "idx", "rate", "ratio", "dim", "dims", "parallelism", "regex", "pattern",
                   "field", "source", "store", "helper", "command", "cmd", "program", "manager", "service",
                   "server", "lifetime", "level", "min", "max", "flag", "flags", "option", "options", "sock",
                   "socket", "agent", "words", "ms", "sec", "secs", "seconds", "stdin", "stdout", "prompt"}
WORD_SPLIT_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
# Values a secret-named key holds that are no secret: switches, references, placeholders.
NOT_SECRET_VALUE_RE = re.compile(r"(?i)(?:true|false|none|null|nil|yes|no|on|off|0|1|-1|\*+|x+|\.\.\.|bearer|basic|"
                                 r"token|digest|negotiate|required|optional|auto|default|env|[$%].*|[<\[].*)")


# Unquoted values that are code, not secrets: a dotted name (tokenizer.eos_token), gdb's
# "sig=sig@entry=6".
GDB_ENTRY_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,100}@entry=")


def _code_value(value: str) -> bool:
    parts = value.split(".")
    return (len(parts) > 1 and all(p.isidentifier() for p in parts)) or bool(GDB_ENTRY_RE.match(value))


# A number or a dotted name under a token-ish key is an id or code (llama.cpp's "EOG token =
# 248065", Hydra's "full_key: train.lr"); under a password-ish key it is still the password.
PASSWORD_WORDS = {"password", "passwd", "pwd", "pw", "pass", "passphrase", "pin", "secret"}


def key_words(name: str, camel: bool = True) -> List[str]:
    """hf_auth -> [hf, auth]; SharedAccessSignature -> [shared, access, signature]; X-Amz-Credential too.
    ``camel=False``: split at - _ . only (a command-line flag, where -pS3cret is a flag glued to its value)."""
    if not camel:
        return [w for w in re.split(r"[-_.]+", name.lower()) if w]
    return [w.lower() for w in WORD_SPLIT_RE.findall(name)]


def secret_key_name(name: str, camel: bool = True) -> bool:
    """Whether a key (of a pair, a JSON object, a query string, a flag) names a secret."""
    words = key_words(name, camel)
    if not words:
        return False
    last = words[-1]
    if last in NOT_SECRET_LAST:
        return "private" in words and "key" in words  # a GCP private_key_id still identifies the key
    if last in SHORT_SECRET_WORDS:
        return True
    return any(w.endswith(LONG_SECRET_WORDS) for w in words)


def _secret_value(value: str) -> bool:
    v = value.strip("\"'")
    if v.startswith(SECRET):  # a token already hidden; what is glued to it goes with it
        return v != SECRET
    return bool(v) and not NOT_SECRET_VALUE_RE.fullmatch(v)


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

    def secrets(self, s: str) -> str:
        """Secrets out of one string, by shape and by structure; everything else of it stays."""
        n = 0
        if "@" in s and "://" in s:
            s = URL_CRED_RE.sub(self._userinfo, s)
        if len(s) >= 10:
            s = TOKEN_RE.sub(self._token, s)
        if " " in s or "\t" in s:
            s, k = BEARER_RE.subn(lambda m: m.group(1) + m.group(2) + SECRET, s)
            n += k
        low = s.lower()
        if any(h in low for h in SECRET_HINTS):
            if "=" in s or ":" in s:
                s = PATH_PAIR_RE.sub(self._pair, s)
                s = PAIR_RE.sub(self._pair, s)
            if " " in s or "\t" in s:
                s = self._space_pairs(s)
        if "-p" in s and DASH_P_CONTEXT.search(s):
            s = DASH_P_RE.sub(lambda m: self._dash_p(m, s), s)
        self._count("secret", n)
        return s

    def _userinfo(self, m) -> str:
        if not m.group(2) or m.group(2) == SECRET:
            return m.group(0)
        self._count("secret")
        return m.group(1) + SECRET + "@"

    def _token(self, m) -> str:
        text = m.group(0)
        rule, secret_at = token_rule(m)
        if rule.get("needs_digit") and not any(c.isdigit() for c in text):
            return text
        self._count("secret")
        return text[:secret_at - m.start()] + SECRET

    def _pair(self, m) -> str:
        value = m.group("value")
        if not secret_key_name(m.group("name")) or not _secret_value(value):
            return m.group(0)
        if value[0] not in "\"'" and (m.string[m.end():m.end() + 1] in ("(", "[") or (
                (_code_value(value) or value.isdigit() and len(value) <= 10)
                and not PASSWORD_WORDS.intersection(key_words(m.group("name"))))):
            return m.group(0)  # code (pad_token = tokenizer.eos_token, key = wandb.login(...)), gdb, a token id
        sep = m.group("sep")
        if ":" in sep and not m.groupdict().get("q") and value[0] not in "\"'" and \
                not (any(c.isdigit() for c in value) or len(value) >= 8):
            return m.group(0)  # prose ("auth: failed"), not a setting
        quote = value[0] if value[0] in "\"'" and value[-1:] == value[0] and len(value) > 1 else ""
        if not value[len(quote):].startswith(SECRET):
            self._count("secret")
        return m.group(0)[:m.start("value") - m.start()] + quote + SECRET + quote

    def _space_pairs(self, s: str) -> str:
        out, last = [], 0
        for m in SPACE_PAIR_RE.finditer(s):
            start = m.start("value")
            if start < last:
                continue
            value, dash = m.group("value"), m.group("dash")
            if not secret_key_name(m.group("name"), camel=not dash) or not _secret_value(value):
                continue
            if not dash and not (len(value) >= 6 and any(c.isdigit() for c in value)):
                continue
            out.append(s[last:start])
            out.append(SECRET)
            last = m.end("value")
            self._count("secret")
        if not out:
            return s
        out.append(s[last:])
        return "".join(out)

    def _dash_p(self, m, s: str) -> str:
        value = m.group("value")
        if value == SECRET or NOT_DASH_P.match(value):
            return m.group(0)
        if value.isdigit() and not re.search(r"(?i)mysql|mariadb|sshpass", s):
            return m.group(0)  # -p8080 after "python -u": a port
        self._count("secret")
        return "-p" + SECRET

    def text(self, s: str, key: str = "") -> str:
        if not s:
            return s

        def sub(rx, repl, kind, text):
            out, k = rx.subn(repl, text)
            if k:
                self._count(kind, k)
            return out

        s = self.secrets(s)  # first, so nothing later half-hides a token
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
