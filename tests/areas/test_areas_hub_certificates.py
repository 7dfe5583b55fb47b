"""Certificate failures of torch's downloads: made for real against a local HTTPS server whose
certificate this Python does not trust, named by explain, and healed by the variable the answer
names; tailored by where this Python's certificates come from."""

import http.server
import os
import ssl
import subprocess
import sys
import threading

import pytest

from torchdoctor.diagnose import explain_match
from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import Facts

from conftest import TORCH_PYTHON, needs_torch

ENTRY = "download-certificate-verify-failed"
HUB = ('Downloading: "https://download.pytorch.org/models/resnet18-f37072fd.pth" to '
       '/Users/me/.cache/torch/hub/checkpoints/resnet18-f37072fd.pth\n'
       "urllib.error.URLError: <urlopen error [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: "
       "unable to get local issuer certificate (_ssl.c:1000)>")


def facts(system="Linux", env=None, base="/usr", pip=None):
    installed = {"pip": {"version": pip}} if pip else {}
    return Facts({"python": {"version": "3.12.4", "executable": base + "/bin/python3", "base_prefix": base,
                             "platform": {"Linux": "linux", "Darwin": "darwin", "Windows": "win32"}[system]},
                  "os": {"system": system}, "packages": {"installed": installed}, "env": env or {}})


def explained(text, f):
    found = match_text(text)
    assert found and found[0].id == ENTRY, [m.id for m in found]
    return explain_match(found[0], f)


def test_python_orgs_macos_installer_is_told_to_install_its_certificates():
    e = explained(HUB, facts("Darwin", base="/Library/Frameworks/Python.framework/Versions/3.12"))
    assert "Install Certificates.command" in e.fix.summary
    assert e.fix.commands == ["open '/Applications/Python 3.12/Install Certificates.command'"]


def test_homebrews_python_on_macos_is_not_sent_to_the_installers_command():
    e = explained(HUB, facts("Darwin", base="/opt/homebrew/opt/python@3.12/Frameworks/Python.framework/Versions/3.12"))
    assert not any("Install Certificates" in c for c in e.fix.commands)


def test_a_bundle_named_by_ssl_cert_file_lacks_the_issuer():
    e = explained(HUB, facts(env={"SSL_CERT_FILE": "/etc/corp/ca.pem"}))
    assert "/etc/corp/ca.pem" in e.fix.summary and e.fix.commands == ["unset SSL_CERT_FILE"]


def test_a_proxy_gets_its_ca_through_ssl_cert_file():
    e = explained(HUB, facts("Windows", env={"HTTPS_PROXY": "http://proxy.corp:8080"}))
    assert "proxy.corp" in e.fix.summary
    assert e.fix.commands == ["set SSL_CERT_FILE=/path/to/ca-bundle.pem"]


def test_an_expired_certificate_is_checked_in_a_browser_first():
    text = HUB.replace("unable to get local issuer certificate", "certificate has expired")
    e = explained(text, facts("Darwin", base="/Library/Frameworks/Python.framework/Versions/3.12"))
    assert "expired" in e.fix.summary and "Install Certificates" not in e.fix.summary


PIP = ("Could not fetch URL https://download.pytorch.org/whl/cu121/torch/: There was a problem confirming the ssl "
       "certificate: HTTPSConnectionPool(host='download.pytorch.org', port=443): Max retries exceeded with url: "
       "/whl/cu121/torch/ (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate "
       "verify failed: unable to get local issuer certificate (_ssl.c:1006)'))) - skipping")


def test_pip_reaching_pytorchs_index_is_told_pips_own_setting():
    e = explained(PIP, facts(pip="23.0.1"))
    assert "24.2" in e.fix.summary and "--cert" in e.fix.summary
    # nothing that saves a placeholder path into pip's configuration
    assert e.fix.commands == ["/usr/bin/python3 -m pip config list"]
    # a current pip on Python 3.10+ trusts the system's store too: no upgrade to offer
    assert "24.2" not in explained(PIP, facts(pip="25.1")).fix.summary
    # nor does a python.org macOS Python get its Install Certificates.command for pip
    mac = explained(PIP, facts("Darwin", base="/Library/Frameworks/Python.framework/Versions/3.12", pip="25.1"))
    assert not any("Install Certificates" in c for c in mac.fix.commands)


def test_an_expired_certificate_seen_by_pip_is_the_servers_not_pips_settings():
    e = explained(PIP.replace("unable to get local issuer certificate", "certificate has expired"), facts(pip="25.1"))
    assert "expired" in e.fix.summary and "--cert" not in e.fix.summary


def test_pips_retry_warning_is_pips_too():
    text = ("WARNING: Retrying (Retry(total=4, connect=None, read=None, redirect=None, status=None)) after connection "
            "broken by 'SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: "
            "self-signed certificate in certificate chain (_ssl.c:1006)'))': /whl/cu121/torch/\n"
            "Looking in indexes: https://download.pytorch.org/whl/cu121")
    assert "--cert" in explained(text, facts(pip="25.1")).fix.summary


def test_a_proxy_comes_before_python_orgs_certificates_on_macos():
    e = explained(HUB, facts("Darwin", env={"HTTPS_PROXY": "http://proxy.corp:8080"},
                             base="/Library/Frameworks/Python.framework/Versions/3.12"))
    assert "proxy.corp" in e.fix.summary and e.fix.commands == ["export SSL_CERT_FILE=/path/to/ca-bundle.pem"]


def test_with_no_fact_to_go_by_the_variable_is_set_in_this_shells_words():
    e = explained(HUB, facts("Windows"))
    assert e.fix.commands[-1] == "set SSL_CERT_FILE=/path/to/ca-bundle.pem"


@pytest.mark.parametrize("text", [
    # another program's request: no torch download in the text
    "requests.exceptions.SSLError: HTTPSConnectionPool(host='api.example.com', port=443): Max retries exceeded with url: "
    "/v4/zones (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify "
    "failed: unable to get local issuer certificate (_ssl.c:1123)')))",
    "urllib.error.URLError: <urlopen error [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed (_ssl.c:852)>",
    # pip failing on another index is not a torch download
    "Could not fetch URL https://pypi.org/simple/requests/: There was a problem confirming the ssl certificate: "
    "HTTPSConnectionPool(host='pypi.org', port=443) - skipping",
    # pip's connection to PyTorch's index cut by a proxy: no certificate failure to name
    "Could not fetch URL https://download.pytorch.org/whl/cu121/torch/: There was a problem confirming the ssl "
    "certificate: HTTPSConnectionPool(host='download.pytorch.org', port=443): Max retries exceeded (Caused by "
    "SSLError(SSLEOFError(8, 'EOF occurred in violation of protocol (_ssl.c:2426)'))) - skipping",
    # requests (huggingface_hub) under torch's cache folder: requests reads REQUESTS_CA_BUNDLE, not SSL_CERT_FILE
    "  File \"/home/u/.cache/torch/sentence_transformers/x.py\", line 3\nrequests.exceptions.SSLError: "
    "HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded (Caused by SSLError("
    "SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local "
    "issuer certificate (_ssl.c:1006)')))",
])
def test_certificate_failures_of_other_downloads_are_not_claimed(text):
    assert ENTRY not in [m.id for m in match_text(text)]


@pytest.fixture
def https_server(tmp_path):
    """A local HTTPS server with a self-signed certificate for 127.0.0.1: (url, certificate)."""
    cert, key, conf = tmp_path / "cert.pem", tmp_path / "key.pem", tmp_path / "req.cnf"
    # the subject and the address it is valid for, from a config file rather than -subj's slash form
    conf.write_text("[req]\nprompt = no\ndistinguished_name = dn\nx509_extensions = ext\n[dn]\nCN = 127.0.0.1\n"
                    "[ext]\nsubjectAltName = IP:127.0.0.1\n")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out",
                    str(cert), "-days", "1", "-config", str(conf)], check=True, capture_output=True)
    (tmp_path / "www").mkdir()
    (tmp_path / "www" / "weights.bin").write_bytes(b"0123456789" * 100)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **k):
            super().__init__(*a, directory=str(tmp_path / "www"), **k)

        def log_message(self, *a):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(cert), str(key))
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield "https://127.0.0.1:%d/weights.bin" % server.server_address[1], str(cert)
    server.shutdown()
    server.server_close()


@needs_torch
def test_a_real_torch_hub_download_fails_is_named_and_ssl_cert_file_heals_it(https_server, tmp_path):
    url, cert = https_server
    dest = str(tmp_path / "weights.bin")
    code = "import sys, torch.hub; torch.hub.download_url_to_file(sys.argv[1], sys.argv[2], progress=False)"
    env = {k: v for k, v in os.environ.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}
    broken = subprocess.run([TORCH_PYTHON, "-c", code, url, dest], capture_output=True, text=True, env=env, timeout=300)
    assert broken.returncode != 0 and "CERTIFICATE_VERIFY_FAILED" in broken.stderr, broken.stderr[-1500:]
    e = explained(broken.stderr, facts(env={"HTTPS_PROXY": "http://proxy.corp:8080"}))
    assert e.fix.commands == ["export SSL_CERT_FILE=/path/to/ca-bundle.pem"]
    env["SSL_CERT_FILE"] = cert  # the command, with the bundle that signed this server's certificate
    healed = subprocess.run([TORCH_PYTHON, "-c", code, url, dest], capture_output=True, text=True, env=env, timeout=300)
    assert healed.returncode == 0, healed.stderr[-1500:]
    assert open(dest, "rb").read() == b"0123456789" * 100


def test_the_same_failure_outside_torch_is_not_claimed(https_server):
    url, _ = https_server
    code = "import sys, urllib.request; urllib.request.urlopen(sys.argv[1])"
    p = subprocess.run([sys.executable, "-c", code, url], capture_output=True, text=True, timeout=120,
                       env={k: v for k, v in os.environ.items() if k != "SSL_CERT_FILE"})
    assert "CERTIFICATE_VERIFY_FAILED" in p.stderr
    assert ENTRY not in [m.id for m in match_text(p.stderr)]
