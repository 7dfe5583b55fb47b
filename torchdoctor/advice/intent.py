"""What a fix's install command means: its requirements, each with the release an exact pin
names and the build it must be (a pin's +tag, the /whl/<variant> index it names, else what an
untagged wheel of that release is). The commands as shell text, quoted for the shell.
"""

import re
import shlex
from typing import List, Optional, Sequence

from ..model import derived as F
from ..model import versions as V
from ..model.facts import Facts
from ..model.records import field, record
from .builds import FAMILY, untagged
from .pipdry import normalize

_WHL_TAG = re.compile(r"/whl/(?:nightly/|test/)?(cpu|cu\d+|rocm[\d.]+|xpu)/?$")
# pip install options that take a value (the token after them is not a requirement)
_VALUED = {"-i", "--index-url", "--extra-index-url", "-f", "--find-links", "-c", "--constraint", "-r",
           "--requirement", "-t", "--target", "--prefix", "--root", "--platform", "--python-version",
           "--implementation", "--abi", "--progress-bar", "--src", "-e", "--editable", "--upgrade-strategy",
           "-C", "--config-settings", "--global-option", "--no-binary", "--only-binary", "--timeout",
           "--retries", "--cache-dir", "--log", "--proxy", "--cert", "--client-cert", "--trusted-host",
           "--exists-action", "--report", "--python"}


@record
class Want:
    """One requirement of a fix command as the fix means it."""
    name: str
    spec: str  # the requirement as written: 'torchvision==0.28.0'
    version: Optional[str] = None  # the release an exact pin names (no +tag)
    variant: Optional[str] = None  # the build it must be: 'cpu', 'cu130' (None: any)


@record
class Step:
    """A `<python> -m pip install ...` command of a fix, as tokens after `install`."""
    head: str
    args: List[str]
    wants: List[Want] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "%s install %s" % (self.head, " ".join(_shell(a) for a in self.args))


def _shell(token: str) -> str:
    return '"%s"' % token if re.search(r"[*<>|;&$ !]", token) else token


def parse(cmd: str, facts: Facts) -> Optional[Step]:
    """The Step of `cmd` when it is a pip install into the target interpreter, else None."""
    head = F.pip_cmd(facts)
    if not cmd.startswith(head + " install "):
        return None
    try:
        args = shlex.split(cmd[len(head) + len(" install "):])
    except ValueError:
        return None
    step = Step(head=head, args=args)
    index = _index_variant(args)
    skip = False
    for tok in args:
        if skip:
            skip = False
            continue
        if tok.startswith("-"):
            skip = tok in _VALUED
            continue
        want = _want(tok, index, facts)
        if want is None:
            return None  # a path, a URL, an extra: not something this can hold to a build
        step.wants.append(want)
    return step if step.wants else None


def _index_variant(args: Sequence[str]) -> Optional[str]:
    for i, tok in enumerate(args):
        url = args[i + 1] if tok in ("-i", "--index-url") and i + 1 < len(args) else \
            tok.split("=", 1)[1] if tok.startswith("--index-url=") else None
        if url:
            m = _WHL_TAG.search(url)
            return m.group(1) if m else None
    return None


def _want(token: str, index_variant: Optional[str], facts: Facts) -> Optional[Want]:
    from packaging.requirements import InvalidRequirement, Requirement
    try:
        req = Requirement(token)
    except InvalidRequirement:
        return None
    if req.url or req.extras:
        return None
    name = normalize(req.name)
    version = tag = None
    specs = list(req.specifier)
    if len(specs) == 1 and specs[0].operator in ("==", "===") and "*" not in specs[0].version:
        version, tag = V.base(specs[0].version), V.local_tag(specs[0].version)
    variant = None
    if name in FAMILY:
        # A pin's +tag, else the /whl/<variant> index it names, else what an untagged wheel of
        # that release is (a plain `torch==2.13.0` means PyPI's build, not a +cpu from find-links).
        variant = tag or index_variant or (untagged(name, version, facts) if version else None)
    return Want(name=name, spec=token, version=version, variant=variant)


