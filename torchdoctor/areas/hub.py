"""Downloads: torch.hub from GitHub (the API rate limit, offline use), torchvision's MNIST mirrors, and a
Hugging Face model named by an id the Hub does not give.
"""

import re
from typing import Optional

from ..model import derived as F
from ..model import versions as V
from ..model.facts import Facts
from .registry import Tailored, entry_commands, hook, match_groups


@hook("torch-hub-github")
def torch_hub_github(match, facts: Facts) -> Optional[Tailored]:
    if "rate limit" not in getattr(match, "text", ""):
        return None
    if F.env(facts, "GITHUB_TOKEN"):
        return Tailored(summary="GITHUB_TOKEN is set here, so this process's torch.hub calls are authenticated: the "
                                "failing run did not see it (another shell, a service, a notebook kernel started "
                                "without it), or the token is invalid or exhausted.",
                        notes=["GITHUB_TOKEN is set"])
    return Tailored(summary="GITHUB_TOKEN is not set here: set it to a GitHub token (5,000 API calls an hour instead of "
                            "60 per IP), or pass skip_validation=True / trust_repo=True for a repo you trust.",
                    commands=[F.set_env_cmd(facts, "GITHUB_TOKEN", "YOUR_GITHUB_TOKEN")],
                    notes=["GITHUB_TOKEN is not set"])


MNIST_S3 = "https://ossci-datasets.s3.amazonaws.com/mnist/"


def _https_proxy(facts: Facts) -> Optional[str]:
    return F.env(facts, "HTTPS_PROXY") or F.env(facts, "https_proxy")


@hook("mnist-mirrors")
def mnist_mirrors(match, facts: Facts) -> Optional[Tailored]:
    """Which mirrors the installed torchvision tries, in which order: a refusal from
    yann.lecun.com is the failure only where it is the one mirror."""
    tv = F.package_release(facts, "torchvision")
    if not tv or V.older(tv, "0.9.1") is None:
        return None
    notes = ["torchvision %s" % tv]
    proxy = _https_proxy(facts)
    notes.append("HTTPS_PROXY=%s here" % proxy if proxy else "no HTTPS_PROXY set here")
    if V.older(tv, "0.9.1"):
        return Tailored(summary="torchvision %s downloads MNIST from yann.lecun.com alone, which refuses downloads on and "
                                "off (403, 503): 0.9.1 added the S3 copy as a second mirror. Upgrade torchvision together "
                                "with a torch it matches, or fetch the four files from %s into <root>/MNIST/raw and pass "
                                "download=False." % (tv, MNIST_S3), notes=notes)
    # FashionMNIST, KMNIST and EMNIST fetch the same file names from their own hosts: the mirrors below are MNIST's
    order = "S3 first, then yann.lecun.com" if V.at_least(tv, "0.22") else "yann.lecun.com first, then S3"
    return Tailored(summary="For MNIST, torchvision %s tries %s, so a 403 from yann.lecun.com alone is not the failure: "
                            "`Error downloading` means this process could not fetch from %s either (no internet on "
                            "the node, a proxy%s or firewall). Open that URL from the same machine, or fetch the files "
                            "elsewhere into <root>/MNIST/raw and pass download=False."
                            % (tv, order, MNIST_S3, " (HTTPS_PROXY=%s)" % proxy if proxy else " it was not told of"),
                    notes=notes)


# A name that is a path, not a Hub id: a separator other than the one slash of org/name, a leading
# dot or tilde, a drive letter, or a file name.
_PATH_LIKE = re.compile(r"^(?:[.~]|[A-Za-z]:|/)|\\|/.*/|\.(?:txt|json|bin|pt|pth|safetensors|model)$")


# The Hub's early models, whose ids have no organisation and still resolve (they redirect to their
# organisations since 2024): the shortcut names transformers 2.x-3.x listed for its own classes.
_CANONICAL = frozenset("""
bert-base-uncased bert-large-uncased bert-base-cased bert-large-cased bert-base-multilingual-uncased
bert-base-multilingual-cased bert-base-chinese bert-base-german-cased bert-large-uncased-whole-word-masking
bert-large-cased-whole-word-masking bert-large-uncased-whole-word-masking-finetuned-squad
bert-large-cased-whole-word-masking-finetuned-squad bert-base-cased-finetuned-mrpc bert-base-german-dbmdz-cased
bert-base-german-dbmdz-uncased gpt2 gpt2-medium gpt2-large gpt2-xl distilgpt2 openai-gpt distilbert-base-uncased
distilbert-base-cased distilbert-base-uncased-distilled-squad distilbert-base-uncased-finetuned-sst-2-english
distilbert-base-cased-distilled-squad
distilbert-base-multilingual-cased distilbert-base-german-cased distilroberta-base roberta-base roberta-large
roberta-large-mnli roberta-base-openai-detector roberta-large-openai-detector xlm-roberta-base xlm-roberta-large
xlm-roberta-large-finetuned-conll03-english
t5-small t5-base t5-large t5-3b t5-11b albert-base-v1 albert-large-v1 albert-xlarge-v1 albert-xxlarge-v1
albert-base-v2 albert-large-v2 albert-xlarge-v2 albert-xxlarge-v2 xlnet-base-cased xlnet-large-cased ctrl
camembert-base xlm-mlm-en-2048
""".split())


@hook("hf-model-id")
def hf_model_id(match, facts: Facts) -> Optional[Tailored]:
    """What the name says: a path, an id without its organisation, or a gated repository; and
    what this machine sets for the Hub (a mirror, a token, offline mode)."""
    g = match_groups(match)
    name = g.get("name") or ""
    notes = []
    endpoint, token = F.env(facts, "HF_ENDPOINT"), F.env(facts, "HF_TOKEN") or F.env(facts, "HUGGING_FACE_HUB_TOKEN")
    offline = F.env(facts, "HF_HUB_OFFLINE") or F.env(facts, "TRANSFORMERS_OFFLINE")
    if endpoint:
        notes.append("HF_ENDPOINT=%s here" % endpoint)
    notes.append("HF_TOKEN is set here" if token else "HF_TOKEN is not set here")
    if offline and offline not in ("0", "false", "False"):
        notes.append("offline mode is set here")
    if "gated" in g:
        return Tailored(summary="%s is gated: accept its licence on https://huggingface.co/%s with your account, then log "
                                "in where the process runs (hf auth login; huggingface-cli login before huggingface_hub "
                                "0.34) or set HF_TOKEN to a token of that account%s."
                                % (name or "The model", name or "<model>", "" if token else " (none is set here)"),
                        notes=notes)
    if not name:
        return Tailored(notes=notes)
    if _PATH_LIKE.search(name):
        return Tailored(summary="'%s' is a path: it does not exist relative to the directory the process ran in. Pass "
                                "the absolute path of the downloaded model (or run from the directory it is relative "
                                "to)." % name, notes=notes)
    # the API's URL for an id: .../models/<id>/revision/main, .../tree/main; a sentence's full stop
    name = re.sub(r"/(?:revision|tree|resolve)$", "", name).rstrip(".")
    if g.get("what") and not _PATH_LIKE.search(name):
        # transformers 4.16-4.4x print `Can't load <what> for` when no file could be fetched at all
        return Tailored(summary="'%s' needs the Hub: this wording also comes when huggingface.co cannot be reached "
                                "(a firewall, a proxy, no internet on the node), so check that first (or set "
                                "HF_ENDPOINT to a reachable mirror, or load the model from a downloaded folder); "
                                "else the name is wrong or gated, or a local folder named '%s' in the working "
                                "directory hides the Hub." % (name, name), notes=notes)
    line = getattr(match, "text", "") or ""
    # transformers 2.x-3.4 list the shortcut names they know in the message itself
    listed = re.search(r"[\w.-]{1,100}/" + re.escape(name) + r"\b", line) if "model name list" in line else None
    if "/" not in name and listed:
        return Tailored(summary="The message's own list names it '%s': transformers 2.11 moved the community shortcuts "
                                "under their authors, so pass that id." % listed.group(0), notes=notes)
    if name in _CANONICAL:
        return Tailored(summary="'%s' is one of the Hub's early models, valid without an organisation: the request "
                                "did not reach the Hub's answer for it (a firewall, a proxy or mirror answering "
                                "401/404, an outage), or a misspelling." % name, notes=notes)
    if "/" not in name:
        return Tailored(summary="'%s' has no organisation: most Hub ids are organisation/name (search huggingface.co "
                                "for the full id), or it is meant as a local folder, which is not in the directory the "
                                "process ran in (download the model there, or pass its absolute path)." % name,
                        notes=notes)
    if endpoint:
        return Tailored(summary="HF_ENDPOINT sends the request to %s: a mirror without %s, or one that refuses it, "
                                "answers as if the model did not exist. Check the id there, or unset HF_ENDPOINT."
                                % (endpoint, name), commands=[F.unset_env_cmd(facts, "HF_ENDPOINT")], notes=notes)
    return Tailored(summary="Check that %s exists on huggingface.co under exactly that name (it may have been renamed "
                            "or deleted); if it is private or gated, log in with an account that has access%s."
                            % (name, "" if token else " (no HF_TOKEN is set here)"), notes=notes)


# The python.org installer for macOS puts each Python under this framework folder and its
# certificate installer beside the Python in /Applications.
_MACOS_FRAMEWORK = re.compile(r"^/Library/Frameworks/Python\.framework/Versions/(?P<minor>\d+\.\d+)")


# pip's own lines around a failed fetch: its retry warnings and the index it gave up on.
_PIP_LINE = re.compile(r"Could not fetch URL|Retrying \(Retry\(|There was a problem confirming the ssl certificate|pip\._vendor")


@hook("download-certificate")
def download_certificate(match, facts: Facts) -> Optional[Tailored]:
    """Whose certificates this Python verifies with: pip's own settings, a proxy that re-signs TLS, the
    macOS installer's empty store, or a bundle named by SSL_CERT_FILE."""
    line = getattr(match, "text", "") or ""
    notes = []
    cert_file, proxy = F.env(facts, "SSL_CERT_FILE"), _https_proxy(facts)
    notes.append("SSL_CERT_FILE=%s here" % cert_file if cert_file else "SSL_CERT_FILE is not set here")
    if proxy:
        notes.append("HTTPS_PROXY=%s here" % proxy)
    if "has expired" in line:
        store = ("pip's own certificates (upgrade pip, which brings a current certifi)" if _PIP_LINE.search(line) else
                 "this Python's CA store (update the system's ca-certificates, or point SSL_CERT_FILE at a current "
                 "bundle)")
        return Tailored(summary="A certificate in the chain has expired: open the same URL in a browser on this "
                                "machine. If the browser accepts it, %s is older than the server's chain or the "
                                "machine's clock is wrong; if the browser refuses it too, the " % store +
                                "server's certificate expired: wait for its owner to renew it, or fetch the file from "
                                "a mirror.", commands=entry_commands(match)[:1], notes=notes)
    if _PIP_LINE.search(line):
        pip, py = F.package_release(facts, "pip"), F.python_minor(facts)
        notes += ["pip %s" % pip] if pip else []
        # pip 24.2+ verifies with the system's store (truststore), which needs Python 3.10
        old = (bool(pip) and V.older(pip, "24.2")) or (bool(py) and V.older(py, "3.10"))
        new = bool(pip) and not old and bool(py)
        return Tailored(summary="pip could not verify the index's certificate. Give pip the CA bundle that signed the "
                                "chain with --cert or PIP_CERT (`pip config set global.cert <file>` keeps it)%s."
                                % (": this pip verifies with its own bundled certificates, while pip 24.2 and later on "
                                   "Python 3.10+ also trust the system's store" if old else
                                   "; this pip also trusts the system's store, so a CA the system lacks (a proxy's) "
                                   "belongs there or in that bundle" if new else
                                   "; pip 24.2 and later on Python 3.10+ also trust the system's store"),
                        commands=["%s config list" % F.pip_cmd(facts)], notes=notes)
    if proxy:
        return Tailored(summary="Downloads go through the proxy %s: a proxy that inspects TLS re-signs every site "
                                "with its own CA. Ask for that CA's certificate (a .pem) and point SSL_CERT_FILE at a "
                                "bundle that holds it." % proxy,
                        commands=[F.set_env_cmd(facts, "SSL_CERT_FILE", "/path/to/ca-bundle.pem")], notes=notes)
    base = facts.value("python.base_prefix")
    framework = _MACOS_FRAMEWORK.match(base) if isinstance(base, str) and F.os_of(facts) == "macos" else None
    if framework and not cert_file:
        app = "/Applications/Python %s/Install Certificates.command" % framework.group("minor")
        notes.append("Python from python.org's macOS installer (%s)" % base)
        return Tailored(summary="This Python comes from python.org's macOS installer, which ships no CA certificates: "
                                "run its Install Certificates.command once (it installs certifi and links OpenSSL's "
                                "store to it), then download again.",
                        commands=["open %s" % F.shell_path(facts, app)], notes=notes)
    if cert_file:
        return Tailored(summary="SSL_CERT_FILE points this Python at %s, and no certificate in it signed the server's "
                                "chain: add the issuing CA (your company's, behind a TLS-inspecting proxy) to that "
                                "file, or unset SSL_CERT_FILE to use the system's store." % cert_file,
                        commands=[F.unset_env_cmd(facts, "SSL_CERT_FILE")], notes=notes)
    return Tailored(commands=[entry_commands(match)[0], F.set_env_cmd(facts, "SSL_CERT_FILE", "/path/to/ca-bundle.pem")]
                    if entry_commands(match) else None, notes=notes)
