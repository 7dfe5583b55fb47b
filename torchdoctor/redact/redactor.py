"""The Redactor: the rules of tokens, pairs and identifiers applied to one string or one JSON
value, with a count of what went, by kind."""

import ipaddress
import re
from ..model.records import field, record
from typing import Any, Dict, List, Optional, Set

from .identifiers import (COMMON_WORDS, EMAIL_RE, GPU_UUID_RE, HOME_PATH_RES, HOST_WORDS, IPV4_RE, IPV4_SUBNET_RE,
                          IPV6_CAND_RE, KEEP_IPS, MAC_RE, NOT_USER, UUID_RE, VERSION_KEY)
from .pairs import (BEARER_RE, DASH_P_CONTEXT, DASH_P_RE, NOT_DASH_P, NOT_SECRET_NAME, PAIR_RE, PASSWORD_WORDS,
                    PATH_PAIR_RE, SECRET_HINTS, SECRET_NAME, SERIAL_NAME, SPACE_PAIR_RE, URL_CRED_RE, UUID_NAME,
                    is_code_value, is_secret_value, key_words, secret_key_name)
from .placeholders import EMAIL, GPU_UUID, HOST, IP, MAC, SECRET, SERIAL, USER, UUID
from .tokens import TOKEN_RE, token_rule


@record
class Redactor:
    """Redacts strings; remembers how many values of each kind it replaced."""

    users: Set[str] = field(default_factory=set)
    hosts: Set[str] = field(default_factory=set)
    counts: Dict[str, int] = field(default_factory=dict)
    _word_res: Optional[List] = None

    def tally(self, kind: str, n: int = 1) -> None:
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
        self.tally("secret")
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
        self.tally("secret", n)
        return s

    def _userinfo(self, m) -> str:
        if not m.group(2) or m.group(2) == SECRET:
            return m.group(0)
        self.tally("secret")
        return m.group(1) + SECRET + "@"

    def _token(self, m) -> str:
        text = m.group(0)
        rule, secret_at = token_rule(m)
        if rule.get("needs_digit") and not any(c.isdigit() for c in text):
            return text
        self.tally("secret")
        return text[:secret_at - m.start()] + SECRET

    def _pair(self, m) -> str:
        value = m.group("value")
        if not secret_key_name(m.group("name")) or not is_secret_value(value):
            return m.group(0)
        if value[0] not in "\"'" and (m.string[m.end():m.end() + 1] in ("(", "[") or (
                (is_code_value(value) or value.isdigit() and len(value) <= 10)
                and not PASSWORD_WORDS.intersection(key_words(m.group("name"))))):
            return m.group(0)  # code (pad_token = tokenizer.eos_token, key = wandb.login(...)), gdb, a token id
        sep = m.group("sep")
        if ":" in sep and not m.groupdict().get("q") and value[0] not in "\"'" and \
                not (any(c.isdigit() for c in value) or len(value) >= 8):
            return m.group(0)  # prose ("auth: failed"), not a setting
        quote = value[0] if value[0] in "\"'" and value[-1:] == value[0] and len(value) > 1 else ""
        if not value[len(quote):].startswith(SECRET):
            self.tally("secret")
        return m.group(0)[:m.start("value") - m.start()] + quote + SECRET + quote

    def _space_pairs(self, s: str) -> str:
        out, last = [], 0
        for m in SPACE_PAIR_RE.finditer(s):
            start = m.start("value")
            if start < last:
                continue
            value, dash = m.group("value"), m.group("dash")
            if not secret_key_name(m.group("name"), camel=not dash) or not is_secret_value(value):
                continue
            if not dash and not (len(value) >= 6 and any(c.isdigit() for c in value)):
                continue
            out.append(s[last:start])
            out.append(SECRET)
            last = m.end("value")
            self.tally("secret")
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
        self.tally("secret")
        return "-p" + SECRET

    def text(self, s: str, key: str = "") -> str:
        if not s:
            return s

        def sub(rx, repl, kind, text):
            out, k = rx.subn(repl, text)
            if k:
                self.tally(kind, k)
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
            self.tally("ip")
            return IP

        return IPV6_CAND_RE.sub(repl, s)

    def value(self, v: Any, key: str = "") -> Any:
        """Redact any JSON value; ``key`` is the name it is stored under."""
        if isinstance(v, str):
            if key and SECRET_NAME.search(key) and not NOT_SECRET_NAME.match(key):
                return self.secret_value(v)
            if key and SERIAL_NAME.search(key) and v:
                self.tally("serial")
                return SERIAL
            if key and UUID_NAME.search(key) and v and not v.startswith(("<", "GPU-<")):
                self.tally("gpu_uuid")
                return GPU_UUID if v.startswith("GPU-") else UUID
            return self.text(v, key)
        if isinstance(v, dict):
            return {self.text(k) if isinstance(k, str) and not k.startswith("_") else k: self.value(x, str(k))
                    for k, x in v.items()}
        if isinstance(v, list):
            return [self.value(x, key) for x in v]
        return v
