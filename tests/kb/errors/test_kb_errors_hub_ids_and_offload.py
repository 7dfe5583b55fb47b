"""A model the Hub does not give by that name (a path, an id without its organisation, a gated
repository), a quantized model that did not fit the GPU, MNIST's mirrors, DeepSpeed's
`hostname -I`, the launcher variables read by hand, a tokenizer.json in the newer format and the
Triton cache: each reading on the facts that decide it."""

import pytest

from torchdoctor.match.matcher import match_text

from hook_facts import facts, tailored_as

NOT_FOUND = ("OSError: {} is not a local folder and is not a valid model identifier listed on "
             "'https://huggingface.co/models'")


@pytest.mark.parametrize("name, says", [
    ("./checkpoints/final", "is a path"),
    ("C:\\models\\llama", "is a path"),
    ("vocab/vocab.txt", "is a path"),
    ("vicuna-13b-v1.3", "has no organisation"),
    ("bert-base-uncased", "early models, valid without an organisation"),
    ("lmsys/vicuna-13b-v1.3", "exists on huggingface.co"),
])
def test_the_name_says_whether_it_is_a_path_a_bare_name_or_an_id(name, says):
    m, t = tailored_as("hf-model-id-not-found", NOT_FOUND.format(name))
    assert m.confidence == "possible"  # what happened, not why: a typo, a deletion, a login, a mirror
    assert says in t.summary


def test_the_old_message_lists_the_id_the_shortcut_moved_to():
    text = ("OSError: Model name 'bert-base-dutch-cased' was not found in tokenizers model name list (bert-base-uncased, "
            "TurkuNLP/bert-base-finnish-uncased-v1, wietsedv/bert-base-dutch-cased). We assumed 'bert-base-dutch-cased' "
            "was a path, a model identifier, or url to a directory containing vocabulary files named ['vocab.txt'] but "
            "couldn't find such vocabulary files at this path or url.")
    _, t = tailored_as("hf-model-id-not-found", text)
    assert "'wietsedv/bert-base-dutch-cased'" in t.summary


def test_cant_load_for_a_bare_name_puts_the_unreachable_hub_first():
    text = ("OSError: Can't load tokenizer for 'bert-base-uncased'. If you were trying to load it from "
            "'https://huggingface.co/models', make sure you don't have a local directory with the same name.")
    _, t = tailored_as("hf-model-id-not-found", text)
    assert "cannot be reached" in t.summary and "no organisation" not in t.summary


def test_a_canonical_ids_api_url_is_read_without_its_revision():
    text = "Repository Not Found for url: https://huggingface.co/api/models/bert-base-uncasedd/revision/main."
    _, t = tailored_as("hf-model-id-not-found", text)
    assert "'bert-base-uncasedd'" in t.summary and "revision" not in t.summary


def test_a_mirror_set_here_is_named_as_the_likely_answerer():
    _, t = tailored_as("hf-model-id-not-found", NOT_FOUND.format("org/model"), facts(env={"HF_ENDPOINT": "https://mirror.example"}))
    assert "https://mirror.example" in t.summary and "HF_ENDPOINT" in t.commands[0]


def test_a_gated_repository_is_certain_and_asks_for_the_licence_and_a_token():
    text = ("OSError: You are trying to access a gated repo.\nMake sure to have access to it at "
            "https://huggingface.co/mistralai/Mistral-7B-Instruct-v0.2.\n401 Client Error.\n\nCannot access gated repo "
            "for url https://huggingface.co/mistralai/Mistral-7B-Instruct-v0.2/resolve/main/config.json.")
    m, t = tailored_as("hf-gated-repo-no-access", text)
    assert m.confidence == "high"
    assert "mistralai/Mistral-7B-Instruct-v0.2" in t.summary and "HF_TOKEN" in t.summary
    _, t = tailored_as("hf-gated-repo-no-access", text, facts(env={"HF_TOKEN": "hf_x"}))
    assert "none is set here" not in t.summary


OFFLOAD = ("ValueError: Some modules are dispatched on the CPU or the disk. Make sure you have enough GPU RAM to fit the "
           "quantized model.")


def test_a_cpu_only_torch_is_why_everything_went_to_the_cpu():
    _, t = tailored_as("bnb-quantized-model-offloaded", OFFLOAD, facts(torch="2.5.1+cpu"))
    assert "CPU-only build" in t.summary and "unquantized" in t.summary  # no NVIDIA GPU here either


@pytest.mark.parametrize("torch", ["2.5.1+rocm6.2", "2.5.1+xpu"])
def test_other_accelerator_builds_are_not_cpu_only(torch):
    _, t = tailored_as("bnb-quantized-model-offloaded", OFFLOAD, facts(torch=torch))
    assert t is None or "CPU-only" not in (t.summary or "")


def test_transformers_4_30_and_later_refuse_a_gpu_less_process_earlier():
    # so under them this message means the GPU was seen and too small, whatever this torch is
    _, t = tailored_as("bnb-quantized-model-offloaded", OFFLOAD,
                       facts(torch="2.5.1+cpu", packages={"transformers": {"version": "4.44.2"}}))
    assert t is None or "CPU-only" not in (t.summary or "")


def test_hidden_gpus_are_named():
    _, t = tailored_as("bnb-quantized-model-offloaded", OFFLOAD,
                       facts(torch="2.5.1+cu124", env={"CUDA_VISIBLE_DEVICES": ""}))
    assert "CUDA_VISIBLE_DEVICES" in t.summary


def test_the_gpus_size_is_said():
    f = facts(torch="2.5.1+cu124", driver={"present": True, "driver_version": "550.54",
                                            "gpus": [{"name": "NVIDIA GeForce RTX 3080", "total_memory": 12 * 1024 ** 3}]})
    _, t = tailored_as("bnb-quantized-model-offloaded", OFFLOAD, f)
    assert "RTX 3080" in t.summary and "12.00 GiB" in t.summary


@pytest.mark.parametrize("tv, says", [
    ("0.9.0", "yann.lecun.com alone"),
    ("0.15.2", "yann.lecun.com first, then S3"),
    ("0.22.0", "S3 first"),
])
def test_mnists_mirrors_follow_the_installed_torchvision(tv, says):
    _, t = tailored_as("torchvision-mnist-download-failed", "RuntimeError: Error downloading train-images-idx3-ubyte.gz",
                       facts(torch="2.5.1", packages={"torchvision": {"version": tv}}))
    assert says in t.summary


def test_a_refusal_from_yann_lecun_com_alone_is_only_possibly_the_failure():
    assert match_text("HTTP Error 403: Forbidden\n(downloading MNIST)")[0].confidence == "possible"
    assert match_text("urllib.error.HTTPError: HTTP Error 403: Forbidden") == []  # no MNIST in sight


@pytest.mark.parametrize("ds, says", [("0.15.2", "upgrade deepspeed to 0.16.4"), ("0.16.4", "harmless")])
def test_deepspeeds_discovery_fallback_comes_with_0_16_4(ds, says):
    text = ("[INFO] [comm.py:634:init_distributed] Not using the DeepSpeed or dist launchers, attempting to detect MPI "
            "environment...\nhostname: illegal option -- I\nusage: hostname [-fs] [name-of-host]")
    _, t = tailored_as("deepspeed-hostname-i-unsupported", text, facts(torch="2.5.1", packages={"deepspeed": {"version": ds}}))
    assert says in t.summary


def test_the_launchers_own_lookup_wants_master_addr():
    text = "Unable to detect suitable master address via 'hostname -I', please manually specify one via --master_addr"
    _, t = tailored_as("deepspeed-hostname-i-unsupported", text)
    assert "--master_addr" in t.summary


def test_a_hostname_refusal_outside_deepspeed_is_not_claimed():
    assert "deepspeed-hostname-i-unsupported" not in [m.id for m in match_text("hostname: invalid option -- 'I'")]
    # a user's own job script that runs `hostname -I` is no DeepSpeed run
    script = "export MASTER_ADDR=$(hostname -I | awk '{print $1}')\nhostname: invalid option -- 'I'"
    assert "deepspeed-hostname-i-unsupported" not in [m.id for m in match_text(script)]


def test_the_refusal_deepspeed_prints_before_falling_back_is_only_possibly_the_failure():
    text = ("[INFO] [comm.py:667:init_distributed] Not using the DeepSpeed or dist launchers, attempting to detect MPI "
            "environment...\nhostname: invalid option -- 'I'")
    assert match_text(text)[0].confidence == "possible"
    crash = "subprocess.CalledProcessError: Command '['hostname', '-I']' returned non-zero exit status 1. (deepspeed)"
    assert (match_text(crash)[0].id, match_text(crash)[0].confidence) == ("deepspeed-hostname-i-unsupported", "high")


@pytest.mark.parametrize("text", [
    "    local_rank = int(os.environ[\"LOCAL_RANK\"])\nKeyError: 'LOCAL_RANK'",
    "AssertionError: DeepSpeed requires the LOCAL_RANK environment variable, it is set by the deepspeed launcher, "
    "deepspeed.init_distributed, or the torch's launcher.",
])
def test_launcher_variables_read_by_hand_are_the_launcher_missing(text):
    assert match_text(text)[0].id == "dist-launch-endpoint-missing"


def test_other_keys_are_not_launcher_variables():
    assert match_text("KeyError: 'RANKING'") == [] and match_text("KeyError: 'learning_rate'") == []
    # RANK and WORLD_SIZE are also a DataFrame's or a config's keys: possibly the launcher only
    assert match_text("    r = df['RANK']\nKeyError: 'RANK'")[0].confidence == "possible"


@pytest.mark.parametrize("tok, says", [("0.19.1", "upgrade transformers to 4.45"), ("0.20.3", "imported an older")])
def test_the_installed_tokenizers_says_whether_it_reads_the_new_merges(tok, says):
    text = "Exception: data did not match any variant of untagged enum ModelWrapper at line 1251012 column 3"
    f = facts(torch="2.5.1", packages={"tokenizers": {"version": tok}, "transformers": {"version": "4.44.2"}})
    _, t = tailored_as("hf-tokenizer-json-newer-format", text, f)
    assert says in t.summary
    if tok.startswith("0.19"):
        assert "transformers>=4.45.0" in t.commands[0]


def test_tokenizers_without_transformers_is_upgraded_alone():
    text = "Exception: data did not match any variant of untagged enum ModelWrapper at line 1251012 column 3"
    _, t = tailored_as("hf-tokenizer-json-newer-format", text, facts(packages={"tokenizers": {"version": "0.19.1"}}))
    assert 'tokenizers>=0.20' in t.commands[0]


@pytest.mark.parametrize("tf, says", [("4.44.2", "predates"), ("4.46.0", "imported an older")])
def test_without_tokenizers_in_the_facts_the_transformers_that_pins_it_decides(tf, says):
    text = "Exception: data did not match any variant of untagged enum ModelWrapper at line 1251012 column 3"
    _, t = tailored_as("hf-tokenizer-json-newer-format", text, facts(torch="2.5.1", packages={"transformers": {"version": tf}}))
    assert says in t.summary


def test_a_triton_cache_warning_is_possibly_the_cause_and_a_stale_handle_is():
    warn = "[triton.runtime.build|WARNING] Triton cache error: compiled module cuda_utils.so could not be loaded"
    assert (match_text(warn)[0].id, match_text(warn)[0].confidence) == ("triton-cache-unloadable", "possible")
    nfs = "OSError: [Errno 116] Stale file handle: '/home/u/.triton/cache/4f/cuda_utils.cpython-310-x86_64-linux-gnu.so'"
    assert (match_text(nfs)[0].id, match_text(nfs)[0].confidence) == ("triton-cache-unloadable", "high")


def test_pips_conflict_lines_naming_tensorflow_are_pips_not_tensorflows():
    text = ("ERROR: pip's dependency resolver does not currently take into account all the packages that are installed.\n"
            "text2vec 1.1.7 requires transformers>=4.6.0, but you have transformers 3.4.0 which is incompatible.\n"
            "tensorflow-gpu 2.10.0 requires tensorboard<2.11,>=2.10, but you have tensorboard 2.4.1 which is incompatible.")
    assert match_text(text)[0].id == "pip-package-pins-other-dependency"


def test_transformers_before_4_36_maps_a_gpu_less_process_to_the_cpu():
    _, t = tailored_as("bnb-quantized-model-offloaded", OFFLOAD,
                       facts(torch="2.0.1+cpu", packages={"transformers": {"version": "4.35.2"}}))
    assert "CPU-only build" in t.summary


@pytest.mark.parametrize("name", ["bert_model", "bert-finetuned", "gpt2-custom-checkpoint", "roberta-wwm-ext"])
def test_a_name_that_only_begins_like_an_early_model_is_not_one(name):
    _, t = tailored_as("hf-model-id-not-found", NOT_FOUND.format(name))
    assert "early models" not in t.summary


def test_a_crash_on_hostname_with_a_fallback_deepspeed_here_means_another_deepspeed_ran():
    crash = "subprocess.CalledProcessError: Command '['hostname', '-I']' returned non-zero exit status 1. (deepspeed)"
    _, t = tailored_as("deepspeed-hostname-i-unsupported", crash, facts(torch="2.5.1", packages={"deepspeed": {"version": "0.16.4"}}))
    assert "older deepspeed" in t.summary and "harmless" not in t.summary


def test_a_launcher_variable_read_from_os_environ_stays_certain():
    text = ('  File "train.py", line 3, in <module>\n    rank = int(os.environ["RANK"])\n'
            '               ~~~~~~~~~~^^^^^^^^\n  File "<frozen os>", line 714, in __getitem__\nKeyError: \'RANK\'')
    m = match_text(text)[0]
    assert (m.id, m.confidence, m.count) == ("dist-launch-endpoint-missing", "high", 1)  # one KeyError, one count


def test_uvs_build_isolation_numpy_warning_is_only_possibly_the_failure():
    text = ("/home/u/.cache/uv/builds-v0/.tmpAbC/lib/python3.11/site-packages/torch/nn/modules/transformer.py:20: "
            "UserWarning: Failed to initialize NumPy: No module named 'numpy'")
    assert match_text(text)[0].confidence == "possible"


@pytest.mark.parametrize("text", [
    # a user's own ultralytics.py hides the package: not the library's release
    "ModuleNotFoundError: No module named 'ultralytics.nn'; 'ultralytics' is not a package",
    # a compiled part never built: not another release of the library
    "ModuleNotFoundError: No module named 'mmdet3d.ops.iou3d.iou3d_cuda'",
    "ModuleNotFoundError: No module named 'monai._C'",
])
def test_a_shadowing_file_or_an_unbuilt_part_is_not_the_library_out_of_step(text):
    assert "hf-library-version-mismatch" not in [m.id for m in match_text(text)]


def test_a_moved_module_of_a_listed_library_is_the_library_out_of_step():
    assert match_text("ModuleNotFoundError: No module named 'albumentations.torch.functional'")[0].id == \
        "hf-library-version-mismatch"
