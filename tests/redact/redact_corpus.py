"""Secrets in their real formats, and secret-free values that look like them.

Every secret is synthetic: a provider's real prefix, character set and length
(kb/data/secrets.json cites where each shape comes from) filled with seeded
random characters, so none is, or ever was, a live credential.

SECRETS: (id, value, expected, fragments) - `expected` is the value after
redaction, exactly (what is not secret stays, separators included); none of
`fragments` may be left in any output.
LOOKALIKES: (env name, value) - paths, versions, build hashes, device lists,
NCCL settings, URLs without credentials: each must come out byte-identical.
"""

import base64
import random
import string

_R = random.Random(16)
UP = string.ascii_uppercase
LOW = string.ascii_lowercase
DIG = string.digits
HEX = "0123456789abcdef"
ALNUM = UP + LOW + DIG
B64 = ALNUM + "+/"
URLSAFE = ALNUM + "-_"
S = "<secret>"


def fake(chars: str, n: int) -> str:
    """n seeded random characters of `chars`, holding a digit and a letter when the set has them."""
    out = [_R.choice(chars) for _ in range(n)]
    if n >= 4 and any(c.isdigit() for c in chars):
        out[n // 2] = _R.choice(DIG)
    if n >= 4 and any(c.isalpha() for c in chars):
        out[n // 3] = _R.choice([c for c in chars if c.isalpha()])
    return "".join(out)


SECRETS = []


def secret(id_, value, expected, *fragments):
    SECRETS.append((id_, value, expected, list(fragments)))


# -- cloud -----------------------------------------------------------------------------------
k = fake(UP + DIG, 16)
secret("aws-access-key-id", "AKIA" + k, S, "AKIA" + k)
k = fake(UP + DIG, 16)
secret("aws-sts-key-in-pair", "AWS_ACCESS_KEY_ID=ASIA" + k, "AWS_ACCESS_KEY_ID=" + S, "ASIA" + k)
k = fake(B64, 40)
secret("aws-secret-access-key", "aws_secret_access_key = " + k, "aws_secret_access_key = " + S, k)
sig, cred = fake(HEX, 64), "AKIA" + fake(UP + DIG, 16)
secret("aws-presigned-url",
       "https://ml-weights.s3.us-east-1.amazonaws.com/llama/model-00001.safetensors?X-Amz-Algorithm=AWS4-HMAC-SHA256"
       "&X-Amz-Credential=%s%%2F20240611%%2Fus-east-1%%2Fs3%%2Faws4_request&X-Amz-Date=20240611T101500Z"
       "&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=%s" % (cred, sig),
       "https://ml-weights.s3.us-east-1.amazonaws.com/llama/model-00001.safetensors?X-Amz-Algorithm=AWS4-HMAC-SHA256"
       "&X-Amz-Credential=%s&X-Amz-Date=20240611T101500Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host"
       "&X-Amz-Signature=%s" % (S, S), sig, cred)
tok = ("IQoJb3JpZ2luX2Vj" + fake(B64, 120)).replace("+", "%2B").replace("/", "%2F")
secret("aws-session-token-in-url", "https://b.s3.amazonaws.com/x.pt?X-Amz-Security-Token=%s&X-Amz-Date=20240611T101500Z"
       % tok, "https://b.s3.amazonaws.com/x.pt?X-Amz-Security-Token=%s&X-Amz-Date=20240611T101500Z" % S, tok[16:])
sig, kid = fake(ALNUM, 27), "AKIA" + fake(UP + DIG, 16)
secret("s3-legacy-presigned-url",
       "https://ml-data.s3.amazonaws.com/w.bin?AWSAccessKeyId=%s&Expires=1735689600&Signature=%s%%2B%s%%3D"
       % (kid, sig[:12], sig[12:]),
       "https://ml-data.s3.amazonaws.com/w.bin?AWSAccessKeyId=%s&Expires=1735689600&Signature=%s" % (S, S),
       kid, sig[:12], sig[12:])
k = "AIzaSy" + fake(URLSAFE, 33)
secret("gcp-api-key", "GEMINI_KEY_FOR_EVAL " + k, "GEMINI_KEY_FOR_EVAL " + S, k)
pk, kid = fake(B64, 64), fake(HEX, 40)
secret("gcp-service-account-json",
       '{"type": "service_account", "project_id": "ml-prod-123", "private_key_id": "%s", "private_key": '
       '"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC%s\\n-----END PRIVATE KEY-----\\n", '
       '"client_email": "trainer@ml-prod-123.iam.gserviceaccount.com"}' % (kid, pk),
       '{"type": "service_account", "project_id": "ml-prod-123", "private_key_id": "%s", "private_key": "%s", '
       '"client_email": "<email>"}' % (S, S), pk, kid, "trainer@")
k = "GOCSPX-" + fake(URLSAFE, 28)
secret("google-oauth-client-secret", "client_id=1234.apps.googleusercontent.com " + k,
       "client_id=1234.apps.googleusercontent.com " + S, k)
k = "ya29." + fake(URLSAFE, 90)
secret("google-oauth-access-token", k, S, k)
k = fake(B64, 86) + "=="
secret("azure-storage-connection-string",
       "DefaultEndpointsProtocol=https;AccountName=mlstore01;AccountKey=%s;EndpointSuffix=core.windows.net" % k,
       "DefaultEndpointsProtocol=https;AccountName=mlstore01;AccountKey=%s;EndpointSuffix=core.windows.net" % S, k)
sig = fake(ALNUM, 43)
secret("azure-sas-url",
       "https://mlstore01.blob.core.windows.net/ckpt/model.bin?sv=2022-11-02&ss=b&srt=o&sp=r&se=2025-01-01T00:00:00Z"
       "&st=2024-06-01T00:00:00Z&spr=https&sig=%s%%3D" % sig,
       "https://mlstore01.blob.core.windows.net/ckpt/model.bin?sv=2022-11-02&ss=b&srt=o&sp=r&se=2025-01-01T00:00:00Z"
       "&st=2024-06-01T00:00:00Z&spr=https&sig=" + S, sig)
sig = fake(ALNUM, 43)
secret("azure-connection-string-sas",
       "BlobEndpoint=https://mlstore01.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&srt=sco"
       "&sp=rl&se=2025-01-01T00:00:00Z&sig=%s%%3D" % sig,
       "BlobEndpoint=https://mlstore01.blob.core.windows.net/;SharedAccessSignature=%s&ss=b&srt=sco"
       "&sp=rl&se=2025-01-01T00:00:00Z&sig=%s" % (S, S), sig)
k = fake(B64, 43) + "="
secret("azure-service-bus-key",
       "Endpoint=sb://ml-events.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=" + k,
       "Endpoint=sb://ml-events.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=" + S,
       k)
k = fake(ALNUM, 3) + "8Q~" + fake(ALNUM + "_~.-", 34)
secret("azure-ad-client-secret", "client secret " + k, "client secret " + S, k)
k = "dop_v1_" + fake(HEX, 64)
secret("digitalocean-token", k, S, k)
k = "dapi" + fake(HEX, 32)
secret("databricks-token", k, S, k)
k = "hvs." + fake(URLSAFE, 95)
secret("vault-token", k, S, k)

# -- code hosting, registries ---------------------------------------------------------------
for prefix in ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"):
    k = prefix + fake(ALNUM, 36)
    secret("github-" + prefix[:3], "git push with " + k, "git push with " + S, k)
k = "github_pat_11" + fake(UP + DIG, 20) + "_" + fake(ALNUM, 59)
secret("github-fine-grained-pat", k, S, k)
for prefix in ("glpat-", "glrt-", "gldt-"):
    k = prefix + fake(URLSAFE, 20)
    secret("gitlab-" + prefix[:-1], k, S, k)
k = "npm_" + fake(ALNUM, 36)
secret("npm-token", "//registry.npmjs.org/:_authToken=" + k, "//registry.npmjs.org/:_authToken=" + S, k)
k = "pypi-AgEIcHlwaS5vcmc" + fake(URLSAFE, 70)
secret("pypi-token", "TWINE_PASSWORD " + k, "TWINE_PASSWORD " + S, k)

# -- chat, payments, mail -----------------------------------------------------------------------
k = "xoxb-%s-%s-%s" % (fake(DIG, 12), fake(DIG, 13), fake(ALNUM, 24))
secret("slack-bot-token", k, S, k)
k = "xoxp-%s-%s-%s-%s" % (fake(DIG, 12), fake(DIG, 12), fake(DIG, 13), fake(HEX, 32))
secret("slack-user-token", k, S, k)
k = "xapp-1-A%s-%s-%s" % (fake(UP + DIG, 10), fake(DIG, 13), fake(HEX, 64))
secret("slack-app-token", k, S, k)
path = "T%s/B%s/%s" % (fake(UP + DIG, 8), fake(UP + DIG, 10), fake(ALNUM, 24))
secret("slack-webhook", "https://hooks.slack.com/services/" + path, "https://hooks.slack.com/services/" + S, path)
path = "%s/%s" % (fake(DIG, 18), fake(URLSAFE, 68))
secret("discord-webhook", "https://discord.com/api/webhooks/" + path, "https://discord.com/api/webhooks/" + S, path)
k = "sk_live_" + fake(ALNUM, 24)
secret("stripe-secret-key", k, S, k)
k = "rk_test_" + fake(ALNUM, 24)
secret("stripe-restricted-key", k, S, k)
k = "SG.%s.%s" % (fake(URLSAFE, 22), fake(URLSAFE, 43))
secret("sendgrid-api-key", k, S, k)
k = "SK" + fake(HEX, 32)
secret("twilio-api-key", k, S, k)

# -- AI / ML -----------------------------------------------------------------------------------
k = "sk-proj-%sT3BlbkFJ%s" % (fake(URLSAFE, 58), fake(URLSAFE, 58))
secret("openai-project-key", "OPENAI_API_BASE=https://api.openai.com/v1 key " + k,
       "OPENAI_API_BASE=https://api.openai.com/v1 key " + S, k)
k = "sk-%sT3BlbkFJ%s" % (fake(ALNUM, 20), fake(ALNUM, 20))
secret("openai-legacy-key", k, S, k)
secret("sk-short-key", "--openai-key=sk-a1b2c3d4e5f6", "--openai-key=" + S, "a1b2c3d4e5f6")
k = "sk-ant-api03-%sAA" % fake(URLSAFE, 93)
secret("anthropic-api-key", k, S, k)
k = "hf_" + fake(UP + LOW, 34)
secret("huggingface-token", k, S, k)
k = "api_org_" + fake(UP + LOW, 34)
secret("huggingface-org-token", k, S, k)
k = "r8_" + fake(ALNUM, 37)
secret("replicate-api-token", k, S, k)
k = "wandb_v1_" + fake(ALNUM + "_", 77)
secret("wandb-api-key", k, S, k)
k = fake(HEX, 40)
secret("wandb-legacy-key-by-name", "WANDB_API_KEY=%s python train.py" % k, "WANDB_API_KEY=%s python train.py" % S, k)
k = "gsk_" + fake(ALNUM, 52)
secret("groq-api-key", k, S, k)
k = "nvapi-" + fake(URLSAFE, 64)
secret("nvidia-api-key", k, S, k)
k = "xai-" + fake(ALNUM, 80)
secret("xai-api-key", k, S, k)
k = "pplx-" + fake(ALNUM, 48)
secret("perplexity-api-key", k, S, k)
k = fake(HEX, 32)
secret("kaggle-json", '{"username":"kaggler","key":"%s"}' % k, '{"username":"kaggler","key":"%s"}' % S, k)

# -- formats and structures ---------------------------------------------------------------------
payload, sig = fake(URLSAFE, 60), fake(URLSAFE, 43)
secret("jwt", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ%s.%s" % (payload, sig), S, payload, sig)
body = fake(B64, 64)
secret("rsa-private-key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA%s\n%s\n-----END RSA PRIVATE KEY-----"
       % (body, body[::-1]), S, body)
body = fake(B64, 70)
secret("openssh-private-key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA%s\n-----END OPENSSH "
       "PRIVATE KEY-----\n" % body, S + "\n", body)
pw = fake(ALNUM, 16)
secret("basic-auth-url", "https://ml-bot:%s@artifacts.example.com/simple" % pw,
       "https://%s@artifacts.example.com/simple" % S, pw)
pw = fake(ALNUM, 14)
secret("postgres-url", "postgresql://trainer:%s@db.internal.example.net:5432/experiments" % pw,
       "postgresql://%s@db.internal.example.net:5432/experiments" % S, pw)
pw = fake(ALNUM, 8)
secret("mysql-url-password-with-at", "mysql://root:p@ss%s@db.example.net:3306/runs" % pw,
       "mysql://%s@db.example.net:3306/runs" % S, pw, "p@ss")
pw = fake(ALNUM, 20)
secret("redis-url-empty-user", "redis://:%s@cache.example.net:6379/0" % pw, "redis://%s@cache.example.net:6379/0" % S, pw)
pw = fake(ALNUM, 16)
secret("mongodb-srv-url", "mongodb+srv://ml:%s@cluster0.ab1cd.mongodb.net/runs?retryWrites=true&w=majority" % pw,
       "mongodb+srv://%s@cluster0.ab1cd.mongodb.net/runs?retryWrites=true&w=majority" % S, pw)
k = fake(HEX, 32)
secret("sentry-dsn", "https://%s@o450412.ingest.sentry.io/4505123" % k, "https://%s@o450412.ingest.sentry.io/4505123" % S, k)
k = "hf_" + fake(UP + LOW, 34)
secret("hf-token-in-git-url", "https://user:%s@huggingface.co/datasets/org/private" % k,
       "https://%s@huggingface.co/datasets/org/private" % S, k)
k = fake(ALNUM, 40)
secret("bearer-header", "curl -H 'Authorization: Bearer %s' https://api.example.com" % k,
       "curl -H 'Authorization: Bearer %s' https://api.example.com" % S, k)
k = base64.b64encode(("svc:" + fake(ALNUM, 12)).encode()).decode()
secret("basic-auth-header", "Authorization: Basic " + k, "Authorization: Basic " + S, k)
a, b = fake(ALNUM, 18), fake(ALNUM, 10)
secret("json-secret-keys", '{"hf_auth": "%s", "pwd": "p@ss w0rd %s", "user": "bob", "lr": 0.001, "max_tokens": 512}'
       % (a, b), '{"hf_auth": "%s", "pwd": "%s", "user": "bob", "lr": 0.001, "max_tokens": 512}' % (S, S), a, b)
k = fake(HEX, 24)
secret("tok-in-path", "/mnt/cache/tok=%s/shards:/usr/local/cuda/lib64" % k,
       "/mnt/cache/tok=%s/shards:/usr/local/cuda/lib64" % S, k)
k = fake(HEX, 12)
secret("token-in-ld-library-path", "/opt/app/token=%s/lib:/usr/local/cuda/lib64:/usr/lib/x86_64-linux-gnu" % k,
       "/opt/app/token=%s/lib:/usr/local/cuda/lib64:/usr/lib/x86_64-linux-gnu" % S, k)
pw = fake(ALNUM, 12)
secret("mysql-dash-p", "mysql -h db.example.net -u admin -p%s experiments" % pw,
       "mysql -h db.example.net -u admin -p%s experiments" % S, pw)
pw = fake(ALNUM, 20)
secret("docker-login-password-flag", "docker login -u ci-bot --password %s registry.example.com" % pw,
       "docker login -u ci-bot --password %s registry.example.com" % S, pw)
k = fake(ALNUM, 24)  # a key in prose is as long as keys are; "dispatch key PrivateUse1" is no key
secret("prose-key", "export it with the key %s and retry" % k, "export it with the key %s and retry" % S, k)
pw = fake(HEX, 40)
secret("netrc-password", "machine api.wandb.ai login user password " + pw, "machine api.wandb.ai login user password " + S, pw)
pw = fake(ALNUM, 12)
secret("yaml-password", "db:\n  host: db.example.net\n  password: %s\n  port: 5432" % pw,
       "db:\n  host: db.example.net\n  password: %s\n  port: 5432" % S, pw)


# -- secret-free values that look like secrets ------------------------------------------------
LOOKALIKES = [
    ("LD_LIBRARY_PATH", "/usr/local/cuda-12.1/lib64:/usr/lib/x86_64-linux-gnu:/opt/conda/lib"),
    ("LD_LIBRARY_PATH", "/opt/hf/tokenizers/lib:/opt/tokens/lib:/usr/local/cuda/lib64"),
    ("LD_LIBRARY_PATH", "/opt/hf_token:/usr/local/cuda/lib64:/opt/app/secret_sauce/lib"),
    ("LD_PRELOAD", "/usr/lib/x86_64-linux-gnu/libtcmalloc.so.4"),
    ("DYLD_LIBRARY_PATH", "/opt/homebrew/opt/libomp/lib:/usr/local/lib"),
    ("PYTHONPATH", "/opt/project/src:/opt/project/third_party/tokenizer:/srv/keys/public"),
    ("CUDA_PATH", "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.1\\bin;C:\\Windows\\System32"),
    ("CUDA_HOME", "/usr/local/cuda-12.4"),
    ("CUDA_VISIBLE_DEVICES", "0,1,2,3"),
    ("HIP_VISIBLE_DEVICES", "0,1"),
    ("CUDA_DEVICE_ORDER", "PCI_BUS_ID"),
    ("CUDA_MODULE_LOADING", "LAZY"),
    ("CUBLAS_WORKSPACE_CONFIG", ":4096:8"),
    ("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True,max_split_size_mb:128,garbage_collection_threshold:0.8"),
    ("PYTORCH_CUDA_ALLOC_CONF", "backend:cudaMallocAsync"),
    ("TORCH_CUDA_ARCH_LIST", "7.0;7.5;8.0;8.6;9.0+PTX"),
    ("TORCH_CUDA_ARCH_LIST", "8.0 8.6 9.0"),
    ("NCCL_SOCKET_IFNAME", "^docker0,lo"),
    ("NCCL_IB_HCA", "mlx5_0:1,mlx5_1:1"),
    ("NCCL_DEBUG_SUBSYS", "INIT,COLL,NET"),
    ("NCCL_ALGO", "Ring,Tree"),
    ("NCCL_P2P_LEVEL", "NVL"),
    ("NCCL_IB_GID_INDEX", "3"),
    ("NCCL_TOPO_FILE", "/opt/microsoft/ndv4-topo.xml"),
    ("TORCH_NCCL_ASYNC_ERROR_HANDLING", "1"),
    ("TORCH_DISTRIBUTED_DEBUG", "DETAIL"),
    ("TORCH_LOGS", "+dynamo,recompiles,graph_breaks,post_grad_graphs"),
    ("TORCH_LOGS_FORMAT", "%(levelname)s: %(message)s"),
    ("TORCHINDUCTOR_CACHE_DIR", "/tmp/torchinductor_cache"),
    ("TRITON_CACHE_DIR", "/tmp/triton_cache"),
    ("TORCH_HOME", "/data/hf_cache/torch"),
    ("KMP_AFFINITY", "granularity=fine,compact,1,0"),
    ("OMP_NUM_THREADS", "8"),
    ("OMP_PROC_BIND", "close"),
    ("MKL_THREADING_LAYER", "GNU"),
    ("XLA_FLAGS", "--xla_gpu_cuda_data_dir=/usr/local/cuda-12.1"),
    ("NVIDIA_REQUIRE_CUDA", "cuda>=12.1 brand=tesla,driver>=470,driver<471 brand=unknown,driver>=470,driver<471"),
    ("NVIDIA_DRIVER_CAPABILITIES", "compute,utility"),
    ("NV_CUDNN_PACKAGE", "libcudnn8=8.9.0.131-1+cuda12.1"),
    ("CUDNN_VERSION", "9.1.0"),
    ("TORCH_GIT_VERSION", "a8d6afb511a69687bbb2b7e88a3cf67917e1697e"),
    ("TORCH_BUILD", "2.5.0a0+git1234abc cf30153c4c13"),
    ("TORCH_IMAGE", "nvcr.io/nvidia/pytorch:24.01-py3@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"),
    ("TORCH_DESCRIBE", "v2.3.0-rc1-123-gabc1234"),
    ("TORCH_EXTRA_B64", "bm90IGEgc2VjcmV0LCBqdXN0IGJhc2U2NCBvZiBwcm9zZQ=="),
    ("TORCH_RUN_DIR", "/data/runs/lr=0.001,bs=64/ckpt"),
    ("TORCH_CKPT", "s3://ml-bucket/checkpoints/step=1000/"),
    ("TORCH_ARN", "arn:aws:s3:::ml-bucket/models/*"),
    ("TORCH_INDEX", "https://download.pytorch.org/whl/cu121"),
    ("TORCH_HUB_URL", "https://download.pytorch.org/models/resnet50-11ad3fa6.pth"),
    ("TORCH_NPM", "https://registry.npmjs.org/@types/node"),
    ("TORCH_PRESIGNED_PLAIN", "https://b.s3.amazonaws.com/x?X-Amz-Date=20240101T000000Z&X-Amz-Expires=3600"),
    ("TORCH_CALLBACK", "https://auth.example.com/callback?token_type=bearer&expires_in=3600&state=xyz"),
    ("TORCH_ISSUE", "https://github.com/pytorch/pytorch/issues/12345"),
    ("TORCH_NOTE", "scikit-learn sk-learn task-1234 disk-0"),
    ("TORCH_FLAGS", "--token-file /run/secrets/hf --password-stdin registry.example.com"),
    ("TORCH_CFLAGS", "-pthread -pipe -O2"),
    ("TORCH_TOKENIZER_CONFIG", '{"bos_token": "<s>", "pad_token": "[PAD]", "max_tokens": 2048, "pad_token_id": 0}'),
    ("TORCH_HUB_CONFIG", "use_auth_token=True,trust_remote_code=False"),
    ("TORCH_MSG", "Authorization header missing; token is invalid; signature mismatch; auth: failed"),
    ("TOKENIZERS_PARALLELISM", "false"),
    ("MASTER_PORT", "29500"),
    ("WORLD_SIZE", "8"),
]
