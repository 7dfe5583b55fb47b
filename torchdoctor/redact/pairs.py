"""Secrets by name and by structure: which env var, fact or pair key names a secret, and the
patterns of URL userinfo, Bearer/Basic credentials, key=value pairs (JSON, query strings,
connection strings, path components), flags with their value, and mysql-style -pPASSWORD."""

import re
from typing import List

from .placeholders import SECRET

# Keys (env var names, fact names) whose whole value is a secret.
SECRET_NAME = re.compile(
    r"(?i)(?:^|[_\-.])(?:TOKEN|TOKENS|SECRET|SECRETS|PASSWORD|PASSWD|PASSPHRASE|PASS|PWD_SECRET|"
    r"CREDENTIAL|CREDENTIALS|CREDS|APIKEY|API_KEY|ACCESS_KEY|PRIVATE_KEY|KEY|AUTH|AUTHORIZATION|COOKIE|"
    r"SESSION|SIGNATURE|DSN|WEBHOOK)(?:$|[_\-.])")
# ... except these, which look like it but are not secrets.
NOT_SECRET_NAME = re.compile(r"(?i)^(?:PWD|OLDPWD|KEY_?FILE_?PATH|SSH_AUTH_SOCK|TORCH_KEYS?)$")
SERIAL_NAME = re.compile(r"(?i)(?:^|_)(?:serial|serial_number|board_id)$")
UUID_NAME = re.compile(r"(?i)(?:^|_)uuid$")


# -- secrets by structure ---------------------------------------------------------------------
# URL userinfo: everything between "scheme://" and the LAST "@" of the authority (a password may
# hold "@"; the authority ends at the first / ? # or space, so "https://h/@scope/pkg" is a path).
URL_CRED_RE = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]{1,20}://)([^/?#\s\"'<>`]*)@")
# user:password whose password holds what ends an authority (# ? or a space), written raw: from
# the first ":" up to the last "@" before a host, within the line and before any "/". A port
# followed by prose that holds an address ("https://h:443 failed, mail a@b.org") is no password:
# the Redactor leaves a password that starts with a port or a space.
URL_RAW_CRED_RE = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]{1,20}://)([^/?#\s\"'<>`@:]{0,128}):([^/\r\n\"'<>`]{1,256})@"
                             r"(?=[A-Za-z0-9\[])")
PORT_FIRST_RE = re.compile(r"\d{1,5}(?![^\s?#])|\s")
# Bearer/Basic (and "token") credentials: the word, white space, the credential.
BEARER_RE = re.compile(r"(?i)\b(bearer|basic|token)(\s+)([A-Za-z0-9._~+/\-]{16,}=*)")

# NAME=value, NAME: value, "NAME": "value" (JSON), ?NAME=value& (query), ;NAME=value; (connection
# strings). Whether NAME says secret is decided in Python (secret_key_name), so a pair that is
# no secret costs one match and changes nothing. The value ends at a list separator (space , ; &),
# and at a ":" that starts the next element of a path list (":/usr/lib").
_VALUE_END = r"\s\"'<>;,&|`(){}\[\]"
_PAIR = (r"(?<![A-Za-z0-9_./\\])(?P<q>[\"']?)(?P<name>[A-Za-z_][A-Za-z0-9_.\-]{0,63})(?P=q)"
         r"(?P<sep>[ \t]{0,3}%s[ \t]{0,3})"
         r"(?P<value>\"(?:[^\"\\\n]|\\.){0,4096}\"|'[^'\n]{0,4096}'"
         r"|(?:<secret>|[^%s:/\\?#=])(?:[^%s:]|:(?![/\\~.$])){0,8191})")
PAIR_RE = re.compile(_PAIR % ("[=:]", _VALUE_END, _VALUE_END))
# The NAME=value pairs alone: for a text where one stood inside the value of a NAME: pair that is
# no secret ("user:password=x", PowerShell's "$env:TOKEN=...", "config": "password=x").
EQ_PAIR_RE = re.compile(_PAIR % ("=", _VALUE_END, _VALUE_END))
# /NAME=value/: a path component (the value ends at the next / or \).
PATH_PAIR_RE = re.compile(r"(?<=[/\\])(?P<name>[A-Za-z_][A-Za-z0-9_.\-]{0,63})(?P<sep>=)(?P<value>[^%s:/\\=]{1,4096})"
                          % _VALUE_END)
# --password VALUE, -token VALUE, and NAME VALUE where the value holds a digit (netrc's
# "password hunter2"). The value is in a lookahead, so it can still be the next name.
SPACE_PAIR_RE = re.compile(
    r"(?<![A-Za-z0-9_.\-])(?P<dash>--|-)?(?P<name>[A-Za-z_][A-Za-z0-9_.\-]{0,63})"
    r"(?=[ \t]{1,8}(?P<value>[^%s=\-][^%s]{0,4095}))" % (_VALUE_END, _VALUE_END))
# A command-line option given as its own word ("--password", "-token"): the next word is its value.
OPTION_RE = re.compile(r"--?(?P<name>[A-Za-z_][A-Za-z0-9_.\-]{0,63})")
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
# Values a secret-named key holds that are no secret: switches, references, placeholders (a README's
# "YOUR_TOKEN" or "HF_TOKEN_HERE", or `--gradio-auth username:password`, pasted back unchanged).
# "lambda": Python's sort key (`max(links, key=lambda link: ...)`) is code, not a secret. The key's own
# kind as its value (`use_auth_token = 'key'`, `api_key="api_key"`) is a placeholder too.
NOT_SECRET_VALUE_RE = re.compile(r"(?i)(?:true|false|none|null|nil|yes|no|on|off|0|1|-1|\*+|x+|\.\.\.|bearer|basic|"
                                 r"token|key|secret|api[_-]?key|(?:hf|access|auth)[_-]?token|digest|negotiate|required|optional|auto|default|env|lambda|[$%].*|[<\[].*|"
                                 r"(?:your|my)[_-][\w-]{1,40}|[\w-]{1,40}[_-]here|"
                                 r"(?:user(?:name|)|login):(?:pass(?:word|)|pwd))")


# Unquoted values that are code, not secrets: a dotted name (tokenizer.eos_token, MODEL.RPN.NMS), gdb's
# "sig=sig@entry=6", a counted snake_case name (c10d's "for key: store_based_barrier_key:32"), a
# snake_case name of lower-case words (PyTorch-BigGraph's "Unknown key: regularization_coef"):
# generated keys and tokens mix cases and digits.
GDB_ENTRY_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,100}@entry=")
COUNTED_NAME_RE = re.compile(r"[a-z]{1,30}(?:_[a-z]{1,30}){2,10}:[0-9]{1,10}")
SNAKE_NAME_RE = re.compile(r"[a-z]{2,30}(?:_[a-z]{2,30}){1,10}")
# yacs' and detectron2's upper-case config paths after the bare word "key" ("Non-existent config key:
# MODEL:RESNETS.RES2_OUT_CHANNELS", a hand-typed one joined with a colon too): each part letters, or
# letters and digits joined by an underscore, which a credential (AB12:CD34.EF56) is not; a user and
# password under another key ("auth: ROOT:S3CR3T.PW") is never read this way.
_CONFIG_PART = r"(?:[A-Z]{1,40}|[A-Z][A-Z0-9]{0,20}_[A-Z0-9_]{1,40})"
CONFIG_PATH_RE = re.compile(r"%s(?:[.:]%s){0,10}\.%s" % (_CONFIG_PART, _CONFIG_PART, _CONFIG_PART))


# A state_dict key after the prose word "keys" ("has keys module.student.conv1.weights"): three or
# more lower-case parts, each letters with at most a short number after them (conv1, layer4) or a
# layer's index; generated keys mix cases, or digits and letters (a1b2c3.d4e5).
STATE_DICT_KEY_RE = re.compile(r"[a-z_]{1,40}[0-9]{0,3}(?:\.(?:[a-z_]{1,40}[0-9]{0,3}|[0-9]{1,6})){2,20}")


# A reinforcement-learning environment's registry id under an environment's key (EPyMARL's
# `env_args.key="SMAC:2s3z"`, `env_key=lbforaging:Foraging-8x8-2p-3f-v3`): module:name or a -vN name.
ENV_ID_RE = re.compile(r"[A-Za-z][\w.-]{0,60}:[\w.-]{1,80}|[A-Za-z][\w-]{0,80}-v[0-9]{1,3}")


def is_env_id(name: str, value: str) -> bool:
    """An environment's registry id under a key whose words name an environment (env_args.key)."""
    words = key_words(name)
    return len(words) >= 2 and words[-1] == "key" and "env" in words[:-1] and bool(ENV_ID_RE.fullmatch(value))


def is_config_path(name: str, value: str) -> bool:
    """A config path named by the bare key word (yacs' "config key: MODEL.RPN.NMS_THRESH")."""
    return name.lower() == "key" and bool(CONFIG_PATH_RE.fullmatch(value))


def is_code_value(value: str) -> bool:
    """Whether an unquoted value is code (a dotted name, gdb's sig@entry=, a counted or a snake_case
    name), not a secret."""
    parts = value.split(".")
    return ((len(parts) > 1 and all(p.isidentifier() for p in parts)) or bool(GDB_ENTRY_RE.match(value))
            or bool(COUNTED_NAME_RE.fullmatch(value)) or bool(SNAKE_NAME_RE.fullmatch(value)))


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


def is_secret_value(value: str, password: bool = False) -> bool:
    """Whether the value of a secret-named key is a secret (not a switch, a reference or a placeholder).
    ``password``: the key says password, where one or two letters are the password (PASSWORD=x), not
    the xxx of a placeholder."""
    v = value.strip("\"'")
    if v.startswith(SECRET):  # a token already hidden; what is glued to it goes with it
        return v != SECRET
    if password and len(v) <= 2 and v.isalpha():
        return True
    return bool(v) and not NOT_SECRET_VALUE_RE.fullmatch(v)


def is_password_key(name: str, camel: bool = True) -> bool:
    return bool(PASSWORD_WORDS.intersection(key_words(name, camel)))
