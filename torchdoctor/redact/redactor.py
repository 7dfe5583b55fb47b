"""The Redactor: the rules of tokens, pairs and identifiers applied to one string or one JSON
value, with a count of what went, by kind."""

import ipaddress
import re
from ..model.records import field, record
from typing import Any, Dict, List, Optional, Set

from .identifiers import (COMMON_WORDS, EMAIL_RE, GPU_UUID_RE, HOME_PATH_RES, HOST_WORDS, IPV4_RE, IPV4_SUBNET_RE,
                          IPV6_CAND_RE, KEEP_IPS, MAC_RE, NOT_USER, UUID_RE, VERSION_KEY, VERSION_MAP_KEY)
from .keyblocks import block_end
from .pairs import (BEARER_RE, DASH_P_CONTEXT, DASH_P_RE, EQ_PAIR_RE, NOT_DASH_P, NOT_SECRET_NAME, OPTION_RE, PAIR_RE,
                    PATH_PAIR_RE, PORT_FIRST_RE, SECRET_HINTS, SECRET_NAME, SERIAL_NAME, SPACE_PAIR_RE,
                    STATE_DICT_KEY_RE, URL_CRED_RE, URL_RAW_CRED_RE, UUID_NAME, is_code_value, is_config_path,
                    is_env_id, is_password_key, is_secret_value, secret_key_name)
from .placeholders import EMAIL, GPU_UUID, HOST, IP, MAC, SECRET, SERIAL, USER, UUID
from .tokens import TOKEN_RE, token_rule


# Account names a URL carries by convention, no one's secret (pip's "git+https://git@github.com/...").
PUBLIC_USERS = frozenset(("git", "anonymous"))


@record
class Redactor:
    """Redacts strings; remembers how many values of each kind it replaced."""

    users: Set[str] = field(default_factory=set)
    hosts: Set[str] = field(default_factory=set)
    versions: Set[str] = field(default_factory=set)  # seen as versions: kept wherever they appear
    counts: Dict[str, int] = field(default_factory=dict)
    _word_res: Optional[List] = None
    _nested_pair: bool = False  # a NAME: pair that is no secret held a NAME=value in its value

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

    def learn_version(self, value: Any) -> None:
        """A version string ("13.1.1.3"): kept in any text that quotes it, not taken for an address."""
        if isinstance(value, str) and value.strip():
            self.versions.add(value.strip())

    def learn_versions(self, data: Any) -> None:
        """Every version in `data` that a version key or a map of versions holds, before text that
        quotes them (a finding's words) is redacted."""
        stack = [(data, "")]
        while stack:
            node, key = stack.pop()
            if isinstance(node, dict):
                stack.extend((x, "version" if VERSION_MAP_KEY.search(key) else str(k)) for k, x in node.items())
            elif isinstance(node, list):
                stack.extend((x, key) for x in node)
            elif key and VERSION_KEY.search(key):
                self.learn_version(node)

    def learn_from_text(self, text: str) -> None:
        for rx in HOME_PATH_RES:
            for m in rx.finditer(text):
                self.learn_user(m.group(2))

    def _words(self):
        """(name, regex, replacement, kind) for names replaced wherever they stand as a word."""
        if self._word_res is None:
            out = []
            for h in sorted(self.hosts, key=len, reverse=True):
                # A host called "ubuntu" or "gpu" must not eat the distro or GPU names:
                # such names are hidden only where they are the host name (os.hostname).
                if len(h) >= 3 and h.lower() not in COMMON_WORDS and h.lower() not in HOST_WORDS:
                    out.append((h, re.compile(r"(?<![\w\-.])%s(?![\w\-])" % re.escape(h)), HOST, "hostname"))
            for u in sorted(self.users, key=len, reverse=True):
                if len(u) >= 3 and u.lower() not in COMMON_WORDS:
                    out.append((u, re.compile(r"(?<![A-Za-z0-9])%s(?![A-Za-z0-9])" % re.escape(u)), USER, "user"))
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
            s = URL_RAW_CRED_RE.sub(self._raw_userinfo, s)
        if len(s) >= 10:
            s = self._tokens(s)
        if " " in s or "\t" in s:
            s, k = BEARER_RE.subn(lambda m: m.group(1) + m.group(2) + SECRET, s)
            n += k
        low = s.lower()
        if any(h in low for h in SECRET_HINTS):
            if "=" in s or ":" in s:
                s = PATH_PAIR_RE.sub(self._pair, s)
                self._nested_pair = False
                s = PAIR_RE.sub(self._pair, s)
                if self._nested_pair:
                    s = EQ_PAIR_RE.sub(self._pair, s)
            if " " in s or "\t" in s:
                s = self._space_pairs(s)
        if "-p" in s and DASH_P_CONTEXT.search(s):
            s = DASH_P_RE.sub(lambda m: self._dash_p(m, s), s)
        self.tally("secret", n)
        return s

    def _userinfo(self, m) -> str:
        if not m.group(2) or m.group(2) == SECRET or m.group(2).lower() in PUBLIC_USERS:
            return m.group(0)
        self.tally("secret")
        return m.group(1) + SECRET + "@"

    def _raw_userinfo(self, m) -> str:
        if PORT_FIRST_RE.match(m.group(3)) or "://" in m.group(3):
            return m.group(0)
        self.tally("secret")
        return m.group(1) + SECRET + "@"

    def _tokens(self, s: str) -> str:
        """The tokens of TOKEN_RE out of `s`; a private key's block up to where its body ends."""
        out, last, pos, seen = [], 0, 0, {}
        while True:
            m = TOKEN_RE.search(s, pos)
            if m is None:
                break
            pos = m.end()
            rule, secret_at = token_rule(m)
            if rule.get("needs_digit") and not any(c.isdigit() for c in m.group(0)):
                continue
            if rule.get("block"):
                pos = block_end(s, pos, seen)
            self.tally("secret")
            out += (s[last:secret_at], SECRET)
            last = pos
        if not out:
            return s
        out.append(s[last:])
        return "".join(out)

    def _pair(self, m) -> str:
        value = m.group("value")
        name = m.group("name")
        if not secret_key_name(name):
            if ":" in m.group("sep") and "=" in value:
                self._nested_pair = True
            return m.group(0)
        password = is_password_key(name)
        if not is_secret_value(value, password) or (not password and is_env_id(name, value.strip("\"'"))):
            return m.group(0)
        if value[0] not in "\"'" and (m.string[m.end():m.end() + 1] in ("(", "[") or (
                (is_code_value(value) or is_config_path(name, value) or value.isdigit() and len(value) <= 10)
                and not password)):
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
            value, dash, name = m.group("value"), m.group("dash"), m.group("name")
            password = bool(dash) and is_password_key(name, camel=False)
            if not secret_key_name(name, camel=not dash) or not is_secret_value(value, password):
                continue
            if not dash and not (len(value) >= 6 and any(c.isdigit() for c in value)):
                continue
            # "key" in prose is mostly a word ("dispatch key PrivateUse1", "primary key id42"): a key
            # written after it is as long as keys are
            if not dash and name.lower() in ("key", "keys") and (
                    len(value) < 16 or name.lower() == "keys" and STATE_DICT_KEY_RE.fullmatch(value)):
                continue  # ... or state_dict keys ("has keys module.student.conv1.weights")
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

        # Each pattern runs only on a string holding what every match of it holds (a UUID's four
        # dashes, an address's three dots, the name itself): most strings of a report hold none.
        s = self.secrets(s)  # first, so nothing later half-hides a token
        if s.count("-") >= 4:
            s = sub(GPU_UUID_RE, GPU_UUID, "gpu_uuid", s)
            s = sub(UUID_RE, UUID, "uuid", s)
        if "@" in s:
            s = sub(EMAIL_RE, EMAIL, "email", s)
        # Home directories: the user part of the path.
        low = s.lower()
        if "home/" in s or "users" in low or "documents and settings" in low:
            for rx in HOME_PATH_RES:
                s = sub(rx, lambda m: m.group(1) + USER if m.group(2) not in NOT_USER and not m.group(2).startswith("<")
                        else m.group(0), "home_path", s)
        for name, rx, repl, kind in self._words():
            if name in s:
                s = sub(rx, repl, kind, s)
        if not VERSION_KEY.search(key):
            if s.count(".") >= 3:
                s = sub(IPV4_SUBNET_RE, lambda m: m.group(0) if m.group(1) in KEEP_IPS else IP + m.group(2), "ip", s)
                s = sub(IPV4_RE, lambda m: m.group(0) if m.group(1) in KEEP_IPS or m.group(1) in self.versions
                        else IP, "ip", s)
            s = self._ipv6(s)
            if s.count(":") >= 5 or s.count("-") >= 5:
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
            versions = bool(key) and VERSION_MAP_KEY.search(key)
            return {self.text(k) if isinstance(k, str) and not k.startswith("_") else k:
                    self.value(x, "version" if versions else str(k)) for k, x in v.items()}
        if isinstance(v, list):
            return self._list(v, key)
        return v

    def _list(self, v: List[Any], key: str) -> List[Any]:
        """A list, and in it a command line's words: the word after an option that says secret
        (``--password``, ``--api-key``, ``-token``) is its value, a secret."""
        out: List[Any] = []
        option = None
        for x in v:
            if option and isinstance(x, str) and not x.startswith("-") and \
                    is_secret_value(x, is_password_key(option, camel=False)):
                out.append(self.secret_value(x))
                option = None
                continue
            out.append(self.value(x, key))
            m = OPTION_RE.fullmatch(x) if isinstance(x, str) else None
            option = m.group("name") if m and secret_key_name(m.group("name"), camel=False) else None
        return out
