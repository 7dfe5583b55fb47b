"""Redaction by structure: every miss and every over-redaction found in keys, URLs and
lists of values, one test each, on the exact string - what is secret goes, everything
else of the value stays, list separators included."""

import pytest

from torchdoctor.redact import Redactor
from torchdoctor.redact.pairs import key_words, secret_key_name

S = "<secret>"
SIG = "9f1c" * 16  # 64 hex, the shape of X-Amz-Signature


def red(text, key=""):
    r = Redactor()
    return r.text(text, key), r.counts


# -- misses: each reached Markdown, JSON and text before ------------------------------------
MISSES = [
    ("aws-presigned-signature",
     "https://b.s3.amazonaws.com/m.pt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20240101T000000Z&X-Amz-Signature=" + SIG,
     "https://b.s3.amazonaws.com/m.pt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20240101T000000Z&X-Amz-Signature=" + S),
    ("aws-presigned-credential",
     "https://b.s3.amazonaws.com/m.pt?X-Amz-Credential=ASIAXAMPLEKEYID%2F20240101%2Fus-east-1%2Fs3%2Faws4_request"
     "&X-Amz-Expires=900",
     "https://b.s3.amazonaws.com/m.pt?X-Amz-Credential=" + S + "&X-Amz-Expires=900"),
    ("signature-query", "https://d111.cloudfront.net/w.bin?Expires=1735689600&Signature=Zm9vYmFyYmF6~cXV4&Key-Pair-Id=K2JCJM",
     "https://d111.cloudfront.net/w.bin?Expires=1735689600&Signature=" + S + "&Key-Pair-Id=K2JCJM"),
    ("sas-sig", "https://acct.blob.core.windows.net/c/m.bin?sv=2022-11-02&sp=r&sig=Ab12Cd34Ef56Gh78Ij90Kl12%3D&spr=https",
     "https://acct.blob.core.windows.net/c/m.bin?sv=2022-11-02&sp=r&sig=" + S + "&spr=https"),
    ("azure-account-key",
     "DefaultEndpointsProtocol=https;AccountName=mlstore;AccountKey=Zm9vYmFyYmF6cXV4+/Zm9vYmFy==;EndpointSuffix=core.windows.net",
     "DefaultEndpointsProtocol=https;AccountName=mlstore;AccountKey=" + S + ";EndpointSuffix=core.windows.net"),
    ("azure-shared-access-signature",
     "BlobEndpoint=https://x.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&sig=abcDEF123%3D",
     "BlobEndpoint=https://x.blob.core.windows.net/;SharedAccessSignature=" + S + "&ss=b&sig=" + S),
    ("slack-webhook-path", "https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF2/AbCdEfGhIjKlMnOpQrStUvWx",
     "https://hooks.slack.com/services/" + S),
    ("json-secret-keys", '{"hf_auth": "abcdefghijkl1234", "pwd": "p@ss w0rd", "epochs": 3}',
     '{"hf_auth": "' + S + '", "pwd": "' + S + '", "epochs": 3}'),
    ("tok-in-path", "/mnt/cache/tok=a1b2c3d4e5f6/shards", "/mnt/cache/tok=" + S + "/shards"),
    ("dash-p-password", "mysql -h db -u admin -pS3cr3tPass mydb", "mysql -h db -u admin -p" + S + " mydb"),
    ("short-sk-key", "OPENAI=sk-abc123def456 ok", "OPENAI=" + S + " ok"),
    ("url-password-with-at", "https://alice:p@ss@w0rd@pypi.example.com/simple", "https://" + S + "@pypi.example.com/simple"),
]


@pytest.mark.parametrize("text,expected", [m[1:] for m in MISSES], ids=[m[0] for m in MISSES])
def test_miss_is_redacted_and_the_rest_kept(text, expected):
    out, counts = red(text)
    assert out == expected
    assert counts.get("secret", 0) == expected.count(S)


# -- over-redaction ---------------------------------------------------------------------------
def test_token_rule_takes_one_value_not_the_rest_of_a_library_path():
    path = "/opt/app/token=abc123/lib:/usr/local/cuda/lib64:/usr/lib/x86_64-linux-gnu"
    assert red(path, "LD_LIBRARY_PATH")[0] == "/opt/app/token=<secret>/lib:/usr/local/cuda/lib64:/usr/lib/x86_64-linux-gnu"


def test_a_secret_named_folder_in_a_path_list_is_a_folder():
    path = "/opt/hf_token:/usr/local/cuda/lib64:/opt/secret_sauce/lib"
    assert red(path, "LD_LIBRARY_PATH") == (path, {})


def test_redis_password_without_user_keeps_the_host_and_is_no_email():
    out, counts = red("redis://:s3cretpw@cache.internal.example.com:6379/0")
    assert out == "redis://<secret>@cache.internal.example.com:6379/0"
    assert counts == {"secret": 1}


@pytest.mark.parametrize("text", [
    "a=1;b=2,c=3 d=4&e=5",
    "KMP_AFFINITY=granularity=fine,compact,1,0",
    "expandable_segments:True,max_split_size_mb:128",
    "https://auth.example.com/cb?token_type=bearer&expires_in=3600",
    "--token-file /run/secrets/hf --password-stdin registry.example.com",
    '{"bos_token": "<s>", "pad_token": "[PAD]", "max_tokens": 2048, "pad_token_id": 0}',
    "use_auth_token=True",
    "token is invalid; auth: failed; signature mismatch",
    "gcc -pthread -pipe -O2 -pedantic",
    "python -u train.py -p8080",
    "scikit-learn sk-learn",
    # real lines of public reports (tests/eval): code, a gdb frame, Hydra, llama.cpp
    "tokenizer.pad_token = tokenizer.eos_token",
    "    login_key = wandb.login(anonymous=anonymous, force=force)",
    "#0  0x00007ffff7825428 in __GI_raise (sig=sig@entry=6) at ../sysdeps/unix/sysv/linux/raise.c:54",
    "    full_key: train.pred_delta_from_neutral",
    "print_info: EOG token = 248065 '<|file_sep|>'",
    "store based barrier on rank: 7, for key: store_based_barrier_key:32 (world_size=8)",
    "CRITICAL: Unknown key: regularization_coef",
    "KeyError: 'Non-existent config key: MODEL:BACKBONE.OUT_CHANELS'",
    "KeyError: 'Non-existent config key: MODEL.ROI_HEADS.NUM_CLASSES'",
    "KeyError: 'Non-existent config key: MODEL:RESNETS.RES2_OUT_CHANNELS'",
    "The model I trained has keys module.student.conv1.weights ... and the missing ones are conv1.weights",
    # a README's placeholders pasted back unchanged
    "{'segmentation': 'pyannote/segmentation@Interspeech2021', 'token': 'HF_TOKEN_HERE', 'cache_dir': None}",
    "use_auth_token=YOUR_HF_TOKEN",
    "api_key: my-api-key",
    "python webui.py --listen --gradio-auth username:password",
])
def test_pairs_that_are_no_secret_stay(text):
    assert red(text) == (text, {})


@pytest.mark.parametrize("text,expected", [
    ("password: db.example.net", "password: <secret>"),  # dotted, but under a password key
    # a real user and password after the flag whose README shows username:password
    ("--gradio-auth alice:Xy9kq2", "--gradio-auth <secret>"),
    ("--gradio-auth username:password123", "--gradio-auth <secret>"),
    ("the keys abcDEF123ghiJKL456.mnoPQR789stu", "the keys <secret>"),  # dotted, but no state_dict key
    ("my api key a1b2c3d4e5f6a7b8c9d0.e1f2a3b4c5d6e7f8", "my api key <secret>"),
    ("the vault key s.abcdefgh12345678ijklmnop", "the vault key <secret>"),
    ("license keys abcd1234efgh5678.ijkl9012mnop.qrst", "license keys <secret>"),
    ("password=123456", "password=<secret>"),  # digits, but under a password key
    ("DB_PASS=hunter2 ./run.sh", "DB_PASS=<secret> ./run.sh"),
    ("password: my_pass_word:12", "password: <secret>"),  # a counted name, under a password key
    ("password: MODEL:BACKBONE.OUT", "password: <secret>"),  # a config path, under a password key
    ("api_key: ab12Cd:Ef34.gh56", "api_key: <secret>"),  # colon and dot, but parts no config path has
    ("auth: admin:hunter2", "auth: <secret>"),  # a user and a password
    ("auth: ADMIN:HUNTER2", "auth: <secret>"),  # upper case, but no dotted path
    ("auth: ROOT:S3CR3T.PW", "auth: <secret>"),  # a dotted upper-case path, but not after "key"
    ("api_key: K7Q2:ZX9P.M4N8", "api_key: <secret>"),
    ("token=ZK3F9Q:X7P2W8.R4T6Y1", "token=<secret>"),
    ("key: AB12:CD34.EF56", "key: <secret>"),  # digits: a credential, not a config path
    ("token: hf_YourRealTokenHere123", "token: <secret>"),  # a real-shaped token that mentions "here"
    ("password: correct_horse_battery", "password: <secret>"),  # a snake_case name, under a password key
])
def test_what_looks_like_code_is_still_a_password_under_a_password_key(text, expected):
    assert red(text)[0] == expected


def test_separators_around_a_secret_stay():
    for sep in (":", ";", ",", " "):
        text = sep.join(["/usr/lib", "password=hunter2x", "/opt/lib"])
        assert red(text)[0] == sep.join(["/usr/lib", "password=<secret>", "/opt/lib"]), sep


def test_quoted_values_keep_their_quotes():
    assert red("password='a b c 1'")[0] == "password='<secret>'"
    assert red('"token": "x y"')[0] == '"token": "<secret>"'


def test_redaction_is_idempotent_and_counts_once():
    text = "https://u:p@host/x?sig=abc123&X-Amz-Signature=%s AKIAIOSFODNN7EXAMPL3 mysql -pSecr3t" % SIG
    once, counts = red(text)
    assert red(once) == (once, {})
    assert counts["secret"] == once.count(S) == 5


# -- key names -----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["hf_auth", "pwd", "AccountKey", "SharedAccessKey", "SharedAccessSignature", "sig",
                                  "X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "Signature", "tok",
                                  "aws_secret_access_key", "PGPASSWORD", "client_secret", "api-key", "apiKey", "key",
                                  "private_key_id", "db_pass", "accessToken", "WANDB_API_KEY", "credentials"])
def test_secret_key_names(name):
    assert secret_key_name(name)


@pytest.mark.parametrize("name", ["AccountName", "SharedAccessKeyName", "X-Amz-Date", "X-Amz-SignedHeaders",
                                  "AWSAccessKeyId", "token_type", "max_tokens", "pad_token_id", "password_file",
                                  "secret_name", "tokenizer", "TOKENIZERS_PARALLELISM", "key_file", "keyframe",
                                  "sv", "se", "sp", "bypass", "lr", "expandable_segments", "token-file", "password-stdin"])
def test_names_that_are_no_secret(name):
    assert not secret_key_name(name)


def test_key_words_split_every_naming_style():
    assert key_words("SharedAccessSignature") == ["shared", "access", "signature"]
    assert key_words("X-Amz-Credential") == ["x", "amz", "credential"]
    assert key_words("HFAuthToken") == ["hf", "auth", "token"]
    assert key_words("pS3cr3t", camel=False) == ["ps3cr3t"]


def test_a_urls_conventional_git_user_is_no_secret():
    from torchdoctor.redact import Redactor
    line = "!pip install git+https://git@github.com/SKTBrain/KoBERT.git@master"
    assert Redactor().secrets(line) == line
    assert Redactor().secrets("https://git:pw123456@github.com/a/b") == "https://<secret>@github.com/a/b"
