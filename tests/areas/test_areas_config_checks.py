"""Config checks: cuDNN/determinism/TF32 flags, threads, /dev/shm, risky environment variables."""

import pytest
from conftest import make_facts

from torchdoctor.areas.checks import all_checks, run_checks
from torchdoctor.areas.registry import area_of
from torchdoctor.model.facts import absent

# The settings checks: those of the config area, and the ones that moved to the area of
# their condition (cuBLAS determinism, OMP threads of distributed jobs, /dev/shm, OpenMP, the
# allocator keys of PYTORCH_CUDA_ALLOC_CONF).
SETTINGS_ELSEWHERE = ("determinism-cublas", "omp-threads-distributed", "small-shm", "omp-duplicate-lib-ok",
                      "alloc-conf-unknown-key")
CONFIG_IDS = sorted(c.id for c in all_checks() if area_of(c.func.__module__) == "config" or c.id in SETTINGS_ELSEWHERE)
GIB = 1 << 30


def facts_for(torch="2.13.0+cpu", system="Linux", cores=2, env=None, flags=None, **over):
    """flags: {("cudnn", "conv.fp32_precision"): "ieee"} - backend attributes whose names hold dots."""
    cuda = "12.6" if "+cu" in torch else absent("not built with it")
    base_env = {k: absent("not set") for k in ("CUDA_VISIBLE_DEVICES", "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF",
                                                "CUBLAS_WORKSPACE_CONFIG", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                                "KMP_DUPLICATE_LIB_OK", "CUDA_LAUNCH_BLOCKING", "LD_LIBRARY_PATH",
                                                "TORCH_CUDA_ARCH_LIST", "CUDA_MODULE_LOADING")}
    base_env.update(env or {})
    sections = dict(
        python={"version": "3.11.7", "executable": "/venv/bin/python", "machine": "x86_64"},
        os={"system": system, "machine": "x86_64", "container": False},
        cpu={"logical_cores": cores, "physical_cores": cores, "affinity_cores": cores},
        memory={"total_bytes": 64 * GIB, "shm_bytes": 32 * GIB},
        torch_import={"ok": True, "warnings": []},
        torch={"version": torch, "cuda": cuda, "hip": absent("not built with it"),
               "runtime": {"are_deterministic_algorithms_enabled": False,
                           "is_deterministic_algorithms_warn_only_enabled": False,
                           "get_float32_matmul_precision": "highest", "get_num_threads": cores,
                           "get_num_interop_threads": cores}},
        # torch 2.13's defaults, as probed from the 2.13.0 wheel
        backends={"cuda": {"is_built": "+cu" in torch, "matmul.allow_tf32": False, "matmul.fp32_precision": "none"},
                  "cudnn": {"is_available": "+cu" in torch, "version": 91002 if "+cu" in torch else None,
                            "enabled": True, "benchmark": False, "benchmark_limit": 10, "deterministic": False,
                            "allow_tf32": True, "conv.fp32_precision": "tf32", "rnn.fp32_precision": "tf32"},
                  "mkldnn": {"is_available": True, "matmul.fp32_precision": "none", "conv.fp32_precision": "none",
                             "rnn.fp32_precision": "none"},
                  "fp32_precision": "none"},
        env=base_env,
    )
    for (backend, attr), value in (flags or {}).items():
        sections["backends"][backend][attr] = value
    sections.update(over)
    return make_facts(**sections)


def run(facts, *ids):
    return run_checks(facts, only=list(ids) or CONFIG_IDS)


@pytest.mark.parametrize("torch", ["2.13.0+cpu", "2.13.0+cu126", "2.9.1+cu128"])
def test_defaults_report_nothing(torch):
    assert run(facts_for(torch=torch)) == []


def test_this_machine_reports_nothing():
    """The CPU venv this project is tested in: 2 cores, docker, big /dev/shm, nothing set."""
    f = facts_for(**{"os.container": "docker", "memory.shm_bytes": 25276510208})
    assert run(f) == []


# ------------------------------------------------------------- cuDNN flags --
def test_cudnn_benchmark_on():
    (x,) = run(facts_for("2.13.0+cu126", **{"backends.cudnn.benchmark": True}))
    assert (x.id, x.category, x.severity) == ("cudnn-benchmark", "config", "info")
    assert "varying shapes" in x.detail


def test_cudnn_flags_ignored_on_cpu_build():
    f = facts_for(**{"backends.cudnn.benchmark": True, "backends.cudnn.deterministic": True,
                     "backends.cudnn.enabled": False})
    assert run(f) == []


def test_cudnn_deterministic_on():
    (x,) = run(facts_for("2.13.0+cu126", **{"backends.cudnn.deterministic": True}))
    assert (x.id, x.severity) == ("cudnn-deterministic", "info")


def test_cudnn_disabled_is_a_warning():
    (x,) = run(facts_for("2.13.0+cu126", **{"backends.cudnn.enabled": False}))
    assert (x.id, x.severity) == ("cudnn-disabled", "warning")


# ------------------------------------------------------------- determinism --
def test_deterministic_algorithms_on_cpu_build():
    (x,) = run(facts_for(**{"torch.runtime.are_deterministic_algorithms_enabled": True}))
    assert (x.id, x.severity) == ("deterministic-algorithms", "info")
    assert "raise" in x.detail


def test_deterministic_without_cublas_config_on_old_cuda_torch():
    f = facts_for("2.9.1+cu128", **{"torch.runtime.are_deterministic_algorithms_enabled": True})
    found = {x.id: x for x in run(f)}
    assert set(found) == {"deterministic-algorithms", "determinism-cublas"}
    x = found["determinism-cublas"]
    assert (x.category, x.severity) == ("determinism-cublas", "warning")
    assert x.fix.commands == ["export CUBLAS_WORKSPACE_CONFIG=:4096:8"]


def test_deterministic_with_cublas_config_is_fine():
    f = facts_for("2.9.1+cu128", env={"CUBLAS_WORKSPACE_CONFIG": ":16:8"},
                  **{"torch.runtime.are_deterministic_algorithms_enabled": True})
    assert "determinism-cublas" not in [x.id for x in run(f)]


def test_deterministic_with_a_non_deterministic_cublas_config():
    f = facts_for("2.9.1+cu128", env={"CUBLAS_WORKSPACE_CONFIG": ":4096:2"},
                  **{"torch.runtime.are_deterministic_algorithms_enabled": True})
    (x,) = run(f, "determinism-cublas")
    assert "':4096:2'" in x.title


def test_cublas_requirement_gone_in_newer_torch():
    f = facts_for("2.13.0+cu126", **{"torch.runtime.are_deterministic_algorithms_enabled": True})
    assert run(f, "determinism-cublas") == []


def test_cublas_not_needed_on_cpu_build():
    f = facts_for("2.9.1+cpu", **{"torch.runtime.are_deterministic_algorithms_enabled": True})
    assert run(f, "determinism-cublas") == []


def test_cublas_workspace_config_explained():
    (x,) = run(facts_for("2.13.0+cu126", env={"CUBLAS_WORKSPACE_CONFIG": ":4096:8"}))
    assert (x.id, x.severity) == ("cublas-workspace-config", "info")
    assert "8 x 4096 KiB" in x.title and "32768 KiB" in x.title
    assert "reproducible" in x.detail and "cublas_workspace_size()" in x.detail


def test_cublas_workspace_config_unparsable():
    (x,) = run(facts_for("2.13.0+cu126", env={"CUBLAS_WORKSPACE_CONFIG": "4096:8"}))
    assert (x.id, x.severity) == ("cublas-workspace-config", "warning")


# -------------------------------------------------------------------- TF32 --
def test_tf32_matmul_enabled():
    f = facts_for("2.13.0+cu126", flags={("cuda", "matmul.allow_tf32"): True, ("cuda", "matmul.fp32_precision"): "tf32"},
                  **{"torch.runtime.get_float32_matmul_precision": "high"})
    (x,) = run(f)
    assert (x.id, x.category, x.severity) == ("fp32-precision", "config", "info")
    assert "allow_tf32 = True" in x.title and "'high'" in x.title and "fp32_precision = 'tf32'" in x.title


def test_cudnn_tf32_turned_off():
    (x,) = run(facts_for("2.13.0+cu126", flags={("cudnn", "allow_tf32"): False,
                                                ("cudnn", "conv.fp32_precision"): "ieee"}))
    assert "cudnn.allow_tf32 = False" in x.title and "conv.fp32_precision = 'ieee'" in x.title


def test_onednn_bf16_on_cpu():
    (x,) = run(facts_for(flags={("mkldnn", "matmul.fp32_precision"): "bf16"}))
    assert "mkldnn.matmul.fp32_precision = 'bf16'" in x.title


def test_cuda_flags_on_a_cpu_build_are_ignored():
    assert run(facts_for(**{"backends.cudnn.allow_tf32": False})) == []


# ----------------------------------------------------------------- threads --
def test_omp_num_threads_above_the_cores():
    (x,) = run(facts_for(cores=4, env={"OMP_NUM_THREADS": "32"}, **{"torch.runtime.get_num_threads": 32}))
    assert (x.id, x.severity) == ("thread-oversubscription", "warning")
    assert "OMP_NUM_THREADS=32" in x.title and "torch.get_num_threads() = 32" in x.title
    assert x.fix.commands == ["export OMP_NUM_THREADS=4"]


def test_cgroup_quota_below_host_cores():
    f = facts_for(cores=64, **{"cpu.cgroup_cpu_limit": 4.0})
    (x,) = run(f)
    assert x.id == "thread-oversubscription" and "cgroup CPU quota (4 CPUs)" in x.detail
    assert x.fix.commands == ["export OMP_NUM_THREADS=4"]


def test_threads_within_cores_are_fine():
    assert run(facts_for(cores=8, env={"OMP_NUM_THREADS": "8", "MKL_NUM_THREADS": "4"},
                         **{"torch.runtime.get_num_threads": 8})) == []


def test_omp_unset_under_distributed_launch_on_many_cores():
    f = facts_for(cores=64, env={"WORLD_SIZE": "8", "LOCAL_RANK": "0"}, **{"torch.runtime.get_num_threads": 64})
    (x,) = run(f)
    assert (x.id, x.severity) == ("omp-threads-distributed", "warning")
    assert x.fix.commands == ["export OMP_NUM_THREADS=8"]


@pytest.mark.parametrize("env", [
    {"WORLD_SIZE": "8", "LOCAL_RANK": "0", "OMP_NUM_THREADS": "1"},  # torchrun set it
    {"WORLD_SIZE": "1", "LOCAL_RANK": "0"},                          # a single rank
    {},                                                              # not distributed
])
def test_distributed_threads_fine(env):
    f = facts_for(cores=64, env=env, **{"torch.runtime.get_num_threads": 1 if "OMP_NUM_THREADS" in env else 64})
    assert run(f, "omp-threads-distributed") == []


def test_distributed_on_few_cores_is_not_flagged():
    f = facts_for(cores=2, env={"WORLD_SIZE": "2", "LOCAL_RANK": "0"})
    assert run(f, "omp-threads-distributed") == []


# ------------------------------------------------------------ shared memory --
def test_docker_default_shm():
    f = facts_for(**{"os.container": "docker", "memory.shm_bytes": 64 * 1024 * 1024})
    (x,) = run(f)
    assert (x.id, x.category, x.severity) == ("small-shm", "dataloader-shm", "warning")
    assert "docker run --shm-size=8g ..." in x.fix.commands and "docker run --ipc=host ..." in x.fix.commands


def test_shm_too_small_for_many_cores():
    f = facts_for(cores=32, **{"os.container": "kubepods", "memory.shm_bytes": 4 * GIB})
    (x,) = run(f)
    assert x.id == "small-shm" and "emptyDir" in x.fix.summary


def test_shm_fine_outside_containers_and_when_big():
    assert run(facts_for(**{"memory.shm_bytes": 64 * 1024 * 1024})) == []
    assert run(facts_for(cores=4, **{"os.container": "docker", "memory.shm_bytes": 2 * GIB})) == []


# ------------------------------------------------------ environment variables --
def test_kmp_duplicate_lib_ok():
    (x,) = run(facts_for(env={"KMP_DUPLICATE_LIB_OK": "TRUE"}))
    assert (x.id, x.category, x.severity) == ("omp-duplicate-lib-ok", "omp-duplicate", "warning")
    assert x.fix.commands[0] == "unset KMP_DUPLICATE_LIB_OK"
    (x,) = run(facts_for(system="Windows", env={"KMP_DUPLICATE_LIB_OK": "True"}))
    assert x.fix.commands[0] == "set KMP_DUPLICATE_LIB_OK="


def test_kmp_duplicate_lib_ok_false_is_fine():
    assert run(facts_for(env={"KMP_DUPLICATE_LIB_OK": "FALSE"})) == []


def test_cuda_launch_blocking():
    (x,) = run(facts_for("2.13.0+cu126", env={"CUDA_LAUNCH_BLOCKING": "1"}))
    assert (x.id, x.severity) == ("cuda-launch-blocking", "warning")
    assert run(facts_for("2.13.0+cu126", env={"CUDA_LAUNCH_BLOCKING": "0"})) == []
    assert run(facts_for("2.13.0+cpu", env={"CUDA_LAUNCH_BLOCKING": "1"})) == []


def test_no_cuda_memory_caching():
    (x,) = run(facts_for("2.13.0+cu126", env={"PYTORCH_NO_CUDA_MEMORY_CACHING": "1"}))
    assert (x.id, x.severity) == ("no-cuda-memory-caching", "warning")
    assert run(facts_for("2.13.0+cu126", env={"PYTORCH_NO_CUDA_MEMORY_CACHING": "0"})) == []


def test_alloc_conf_typo():
    (x,) = run(facts_for("2.13.0+cu126", env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segment:True,max_split_size_mb:128"}))
    assert (x.id, x.severity) == ("alloc-conf-unknown-key", "warning")
    assert "'expandable_segment' (did you mean 'expandable_segments'?)" in x.title
    assert x.fix.commands == ["export PYTORCH_CUDA_ALLOC_CONF='expandable_segments:True,max_split_size_mb:128'"]


def test_alloc_conf_known_keys_with_bracket_values():
    v = "backend:native,roundup_power2_divisions:[256:1,512:2,1024:4,>:8],garbage_collection_threshold:0.6"
    assert run(facts_for("2.13.0+cu126", env={"PYTORCH_CUDA_ALLOC_CONF": v, "PYTORCH_ALLOC_CONF": "expandable_segments:True"})) == []


def test_alloc_conf_item_without_a_value():
    (x,) = run(facts_for("2.13.0+cu126", env={"PYTORCH_ALLOC_CONF": "expandable_segments"}))
    assert "without 'key:value' form" in x.title


def _explain_first(text, facts):
    from torchdoctor.diagnose import explain_match
    from torchdoctor.match.matcher import match_text
    return explain_match(match_text(text)[0], facts)


def test_alloc_conf_typo_explained_as_the_check_fixes_it():
    # The text of a real H200 run (torch 2.11.0+cu130) with this typo in the variable.
    env = {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segment:True,max_split_size_mb:128"}
    f = facts_for("2.13.0+cu126", env=env)
    (x,) = run(f)
    ex = _explain_first("ValueError: Unrecognized key 'expandable_segment' in CUDA allocator config.", f)
    assert ex.id == "alloc-conf-unknown-key"
    assert "did you mean 'expandable_segments'" in ex.fix.summary
    assert ex.fix.commands == x.fix.commands


def test_alloc_conf_key_newer_than_the_torch_that_refused_it_is_removed_not_renamed():
    env = {"PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:128,expandable_segments:True"}
    ex = _explain_first("RuntimeError: Unrecognized CachingAllocator option: expandable_segments",
                        facts_for("2.13.0+cu126", env=env))
    assert "the torch which refused it does not know" in ex.fix.summary
    assert ex.fix.commands == ["export PYTORCH_CUDA_ALLOC_CONF='max_split_size_mb:128'"]
    alone = _explain_first("RuntimeError: Unrecognized CachingAllocator option: expandable_segments",
                           facts_for("2.13.0+cu126", env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}))
    assert alone.fix.commands == ["unset PYTORCH_CUDA_ALLOC_CONF"]


def test_alloc_conf_keys_come_from_the_knowledge_base_with_a_source():
    from torchdoctor.kb import compat
    from torchdoctor.kb.compat import tables
    keys = compat.alloc_conf_keys()
    assert "expandable_segments" in keys and "max_split_size_mb" in keys
    assert "libc10_cuda.so" in compat.source(tables.data()["runtime_rules"]["alloc_conf_keys"]["source"])


def test_expandable_segments_on_windows_are_ignored_and_replaced_by_max_split():
    # torch defines PYTORCH_C10_DRIVER_API_SUPPORTED only `if(NOT WIN32)`: the setting does nothing there.
    f = facts_for("2.13.0+cu126", system="Windows",
                  env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True,garbage_collection_threshold:0.6"})
    (x,) = run(f)
    assert (x.id, x.severity) == ("expandable-segments-unsupported", "warning")
    assert x.fix.commands == ["set PYTORCH_CUDA_ALLOC_CONF=garbage_collection_threshold:0.6,max_split_size_mb:256"]
    assert x.verify and "-W error" in x.verify.command
    assert x.evidence  # the env var and OS it read


@pytest.mark.parametrize("torch,system", [("2.13.0+cu126", "Linux"), ("2.13.0+cpu", "Windows")])
def test_expandable_segments_quiet_where_they_exist_or_do_not_matter(torch, system):
    f = facts_for(torch, system=system, env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"})
    assert run(f, "expandable-segments-unsupported") == []


def test_expandable_segments_on_rocm_use_the_hip_variable():
    f = facts_for("2.5.1+rocm6.2", env={"PYTORCH_HIP_ALLOC_CONF": "expandable_segments:True"},
                  **{"torch.hip": "6.2.41133", "torch.cuda": absent("ROCm build")})
    (x,) = run(f, "expandable-segments-unsupported")
    assert x.fix.commands == ["export PYTORCH_HIP_ALLOC_CONF=max_split_size_mb:256"]


def test_expandable_segments_check_and_explain_give_one_remedy():
    from torchdoctor.diagnose import explain_match
    from torchdoctor.match.matcher import match_text
    f = facts_for("2.13.0+cu126", system="Windows", env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"})
    (x,) = run(f, "expandable-segments-unsupported")
    line = "UserWarning: expandable_segments not supported on this platform (Triggered internally at C:\\a\\c10/cuda/CUDAAllocatorConfig.h:28.)"
    (m,) = [m for m in match_text(line) if m.id == "expandable-segments-unsupported"]
    ex = explain_match(m, f)
    assert ex.fix.commands == x.fix.commands and ex.fix.summary in x.detail
    linux = explain_match(m, facts_for("2.13.0+cu126", env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}))
    assert "harmless" in linux.fix.summary and linux.fix.commands == []


def test_torch_cuda_arch_list_is_info():
    (x,) = run(facts_for("2.13.0+cu126", env={"TORCH_CUDA_ARCH_LIST": "8.0;9.0+PTX"},
                         **{"cuda.devices": [{"index": 0, "name": "A10", "capability": [8, 6]}]}))
    assert (x.id, x.severity) == ("torch-cuda-arch-list", "info")
    assert "extension" in x.title


def test_torch_cuda_arch_list_missing_the_visible_gpu():
    (x,) = run(facts_for("2.13.0+cu126", env={"TORCH_CUDA_ARCH_LIST": "8.0;9.0"},
                         **{"cuda.devices": [{"index": 0, "name": "RTX 2080", "capability": [7, 5]}]}))
    assert x.severity == "warning" and "RTX 2080 (7.5)" in x.detail


def test_cuda_module_loading_eager():
    (x,) = run(facts_for("2.13.0+cu126", env={"CUDA_MODULE_LOADING": "EAGER"}))
    assert (x.id, x.severity) == ("cuda-module-loading-eager", "info")
    assert run(facts_for("2.13.0+cu126", env={"CUDA_MODULE_LOADING": "LAZY"})) == []


def test_env_threads_above_cores_but_torch_capped_is_info():
    (x,) = run(facts_for(cores=2, env={"OMP_NUM_THREADS": "16"}, **{"torch.runtime.get_num_threads": 2}))
    assert (x.id, x.severity) == ("thread-oversubscription", "info")
    assert "kept its intra-op pool at 2" in x.detail


def test_a_key_with_no_close_match_is_removed_alike_by_check_and_explain():
    env = {"PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:128,foo:1"}
    f = facts_for("2.13.0+cu126", env=env)
    (x,) = run(f)
    ex = _explain_first("RuntimeError: Unrecognized key 'foo' in CUDA allocator config.", f)
    assert x.fix.commands == ex.fix.commands == ["export PYTORCH_CUDA_ALLOC_CONF='max_split_size_mb:128'"]


def test_the_variable_is_found_by_its_exact_key():
    # 'expandable_segment' is inside 'expandable_segments': not the same key.
    f = facts_for("2.13.0+cu126", env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"})
    ex = _explain_first("ValueError: Unrecognized key 'expandable_segment' in CUDA allocator config.", f)
    assert "did you mean 'expandable_segments'" in ex.fix.summary and not ex.fix.commands[0].startswith("export")
