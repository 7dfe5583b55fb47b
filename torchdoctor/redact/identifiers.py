"""Identifying values: home-directory paths (and the user names in them), the words too common to
hide as a user or host name, IPv4/IPv6 addresses, GPU and other UUIDs, MAC and e-mail addresses."""

import re

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
# Maps of package name -> version (a dist summary's packages, NCCL wheels): their values are versions too.
VERSION_MAP_KEY = re.compile(r"(?i)^(?:packages|wheels)$")
