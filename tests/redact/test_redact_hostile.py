"""Values a hostile user would try against redaction: URL passwords with the characters that
end a URL's authority, tokens glued to a word, a private key cut short, a secret key=value
hidden behind another pair or holding one letter, and secrets given as separate command-line
words. Each: what is secret goes, everything else of the text stays."""

import pytest

from torchdoctor.redact import Redactor

S = "<secret>"
HF = "hf_" + "QwErTyUiOpAsDfGhJkLzXcVbNm12345678"
GHP = "ghp_" + "R8x2LmQ9vTz4KpW7nYb3Jc6Hd1Fs5Ga0Ue8Xo"
B64 = "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM2Ck1f8T0Bz6rPHaQ1mO+Xz/9Yw=="


def red(text, key=""):
    r = Redactor()
    return r.text(text, key), r.counts


# -- URL passwords holding what ends an authority ------------------------------------------------
@pytest.mark.parametrize("text,expected", [
    ("https://bob:pa#ss1word@h.example.com/x", "https://" + S + "@h.example.com/x"),
    ("https://bob:pa?ss1word@h.example.com/x", "https://" + S + "@h.example.com/x"),
    ("https://bob:pa ss1word@h.example.com/x", "https://" + S + "@h.example.com/x"),
    ("redis://:p#w?1 2@cache.example.net:6379/0", "redis://" + S + "@cache.example.net:6379/0"),
    ("pip install --index-url https://ci:a#b?c d@pypi.example.com/simple torch",
     "pip install --index-url https://" + S + "@pypi.example.com/simple torch"),
])
def test_url_password_with_hash_question_mark_or_space(text, expected):
    out, counts = red(text)
    assert out == expected
    assert counts == {"secret": 1}


@pytest.mark.parametrize("text,expected", [
    # a port, then prose that holds an address: no user:password there
    ("https://example.com:443 failed, mail admin@example.com", "https://example.com:443 failed, mail <email>"),
    ("see http://localhost:8000?next=/x then bob@example.com", "see http://localhost:8000?next=/x then <email>"),
    ("http://h:29500#frag and me@example.org", "http://h:29500#frag and <email>"),
])
def test_a_port_followed_by_an_address_is_no_password(text, expected):
    assert red(text)[0] == expected


# -- tokens glued to a word ---------------------------------------------------------------------------
@pytest.mark.parametrize("text,expected", [
    ("x" + HF, "x" + S),
    ("token" + GHP, "token" + S),
    ("echo id=abc" + HF, "echo id=abc" + S),
    ("auth9" + "github_pat_11ABCDEFG0" + "x1" * 30, "auth9" + S),
])
def test_a_token_glued_to_a_word(text, expected):
    assert red(text)[0] == expected


@pytest.mark.parametrize("text", [
    "scikit-learn sk-learn task-1234 disk-0",
    "task_test_abcdefghij12 run_task_live_0123456789",
    "conv_layer8_block_attention_weight_projection_bias",
    "MASK0123456789abcdef0123456789abcdef",
])
def test_words_that_end_like_a_token_prefix_stay(text):
    assert red(text) == (text, {})


# -- a private key cut short ---------------------------------------------------------------------------
def test_an_unterminated_private_key_hides_its_body_not_the_rest_of_the_output():
    text = ("loading key\n-----BEGIN RSA PRIVATE KEY-----\n%s\n%s\nTraceback (most recent call last):\n"
            "  File \"train.py\", line 3\nRuntimeError: CUDA error: out of memory" % (B64, B64[::-1]))
    out, counts = red(text)
    assert out == ("loading key\n" + S + "\nTraceback (most recent call last):\n  File \"train.py\", line 3\n"
                   "RuntimeError: CUDA error: out of memory")
    assert counts == {"secret": 1}


def test_an_unterminated_key_with_pem_headers_and_a_blank_line():
    text = ("-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F17F5316E2BAC89\n\n"
            "%s\n%s\nepoch 2 loss 0.3" % (B64, B64[:20]))
    assert red(text)[0] == S + "\nepoch 2 loss 0.3"


def test_an_unterminated_key_in_json_escaped_text():
    text = '{"private_key_data": "-----BEGIN PRIVATE KEY-----\\n%s\\n%s", "client_email": "ci"}' % (B64, B64[:30])
    out = red(text)[0]
    assert out == '{"private_key_data": "%s", "client_email": "ci"}' % S
    assert B64[:30] not in out


def test_an_unterminated_key_on_one_line():
    out = red("KEY_PEM=-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAA %s\nnext line" % B64)[0]
    assert out == "KEY_PEM=" + S + "\nnext line"


def test_a_terminated_key_is_hidden_whole_even_through_prefixed_lines():
    text = ("[rank0]: -----BEGIN PRIVATE KEY-----\n[rank0]: %s\n[rank0]: -----END PRIVATE KEY-----\n[rank0]: done"
            % B64)
    assert red(text)[0] == "[rank0]: " + S + "\n[rank0]: done"


# -- key=value keeps its key ---------------------------------------------------------------------------------
@pytest.mark.parametrize("text,expected", [
    ("PASSWORD=x", "PASSWORD=" + S),
    ("db_password=q ./run.sh", "db_password=" + S + " ./run.sh"),
    ("user:password=abc1", "user:password=" + S),
    ('$env:PASSWORD="abc1"', '$env:PASSWORD="' + S + '"'),
    ('"config": "password=hunter2"', '"config": "password=' + S + '"'),
])
def test_a_secret_pair_keeps_its_key(text, expected):
    out, counts = red(text)
    assert out == expected
    assert counts == {"secret": 1}


@pytest.mark.parametrize("text", [
    "PASSWORD=xxxx", "password=<your password>", "sorted(items, key=x)", "max(a, key=x)",
    "KMP_AFFINITY=granularity=fine,compact,1,0",
])
def test_placeholders_and_code_still_stay(text):
    assert red(text) == (text, {})


# -- secrets as separate command-line words -------------------------------------------------------------------
ARGV = ["python", "train.py", "--password", "X", "--token", "abc", "--db-pass", "hunter2", "--api-key", "k1",
        "--lr", "1", "-p", "8080", "--token-file", "/run/secrets/hf", "--password-stdin", "--hub-token=tok123"]


def test_argv_words_after_a_secret_option_are_redacted():
    r = Redactor()
    out = r.value({"command": ARGV})["command"]
    assert out == ["python", "train.py", "--password", S, "--token", S, "--db-pass", S, "--api-key", S,
                   "--lr", "1", "-p", "8080", "--token-file", "/run/secrets/hf", "--password-stdin",
                   "--hub-token=" + S]
    assert r.counts == {"secret": 5}


def test_the_same_command_as_one_line_is_redacted_the_same():
    assert red(" ".join(ARGV))[0] == " ".join(Redactor().value(ARGV))


def test_an_option_at_the_end_or_before_another_option_hides_nothing():
    assert Redactor().value(["x", "--password"]) == ["x", "--password"]
    assert Redactor().value(["--password", "--verbose"]) == ["--password", "--verbose"]
