"""cuDNN checks: unavailable / unloadable, version mismatch, too new for old GPUs."""

from conftest import make_facts

from torchdoctor.areas.checks import run_checks
from torchdoctor.model.facts import absent, failed
from torchdoctor.kb import compat

SITE = "/venv/lib/python3.11/site-packages"
IDS = ["cudnn-unavailable", "cudnn-version-mismatch", "cudnn-old-gpu"]
INCOMPAT = ("RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (9, 10, 2) but found runtime "
            "version (9, 1, 0). PyTorch already comes bundled with cuDNN. One option to resolving this error is to "
            "ensure PyTorch can find the bundled cuDNN. one possibility is that there is a conflicting cuDNN in "
            "LD_LIBRARY_PATH.")


def cuda_facts(version="2.13.0", variant="cu126", cap=(8, 0), **over):
    cudnn_wheel = compat.expected_cudnn(version, variant)
    gpu = {"index": 0, "name": "NVIDIA TestGPU", "capability": list(cap)}
    sections = dict(
        python={"version": "3.11.7", "executable": "/venv/bin/python", "machine": "x86_64", "platform": "linux"},
        os={"system": "Linux", "machine": "x86_64", "container": False},
        torch_import={"ok": True, "warnings": []},
        torch={"version": "%s+%s" % (version, variant), "local_tag": variant,
               "cuda": compat.cuda_of_variant(variant), "hip": absent("not built with it"),
               "config": {"build_settings": {"USE_CUDNN": "ON"}}},
        backends={"cudnn": {"is_available": True, "version": compat.expected_cudnn_int(version, variant),
                            "enabled": True, "benchmark": False, "deterministic": False, "allow_tf32": True}},
        cuda={"is_available": True, "device_count": 1, "devices": [dict(gpu)]},
        driver={"present": True, "driver_version": "580.65.06", "gpus": [dict(gpu)]},
        packages={"installed": {
            "torch": {"version": "%s+%s" % (version, variant), "location": SITE, "installer": "pip"},
            "nvidia-cudnn-cu%s" % compat.cuda_of_variant(variant).split(".")[0]: {"version": cudnn_wheel, "location": SITE},
        }},
        env={"LD_LIBRARY_PATH": absent("not set")},
    )
    sections.update(over)
    return make_facts(**sections)


def run(facts, ids=IDS):
    return run_checks(facts, only=ids)


def by_id(findings, id_):
    return [f for f in findings if f.id == id_]


def test_healthy_cuda_build_has_no_cudnn_findings():
    assert run(cuda_facts()) == []


def test_cpu_build_without_cudnn_is_fine():
    f = make_facts(
        torch_import={"ok": True}, os={"system": "Linux"},
        torch={"version": "2.13.0+cpu", "cuda": absent("not built with it"), "hip": absent("not built with it")},
        backends={"cudnn": {"is_available": False, "version": None}})
    assert run(f) == []


def test_cuda_build_compiled_without_cudnn():
    f = cuda_facts(**{"backends.cudnn.is_available": False, "backends.cudnn.version": None,
                      "torch.config.build_settings.USE_CUDNN": "OFF"})
    (x,) = run(f)
    assert (x.id, x.category, x.severity) == ("cudnn-unavailable", "cudnn-lib-load", "error")
    assert "USE_CUDNN=OFF" in x.detail


def test_cuda_build_without_cudnn_and_no_gpu_is_a_warning():
    f = cuda_facts(**{"backends.cudnn.is_available": False, "cuda.devices": absent("no"),
                      "driver.gpus": absent("no GPU")})
    (x,) = run(f, ["cudnn-unavailable"])
    assert x.severity == "warning"


def test_cudnn_library_load_failure():
    err = "OSError: libcudnn_cnn.so.9: cannot open shared object file: No such file or directory"
    f = cuda_facts(**{"backends.cudnn.version": failed(err)})
    (x,) = run(f)
    assert (x.id, x.category, x.severity) == ("cudnn-unavailable", "cudnn-lib-load", "error")
    assert "libcudnn_cnn.so.9" in x.detail
    want = 'install "nvidia-cudnn-cu12==%s"' % compat.expected_cudnn("2.13.0", "cu126")
    assert any(c.startswith("/venv/bin/python -m pip " + want) for c in x.fix.commands), x.fix.commands


def test_version_incompatibility_error_is_a_mismatch_not_a_load_failure():
    f = cuda_facts(**{"backends.cudnn.version": failed(INCOMPAT),
                      "env.LD_LIBRARY_PATH": "/usr/local/cuda/lib64:/opt/cudnn/lib"})
    (x,) = run(f)
    assert (x.id, x.category, x.severity) == ("cudnn-version-mismatch", "cudnn-version-mismatch", "error")
    assert "(9, 10, 2)" in x.title and "(9, 1, 0)" in x.title
    assert "LD_LIBRARY_PATH is set" in x.detail and "/opt/cudnn/lib" in x.detail
    assert x.fix.commands[0].startswith("unset LD_LIBRARY_PATH")


def test_system_cudnn_shadowing_the_wheel():
    f = cuda_facts(**{"backends.cudnn.version": 91300, "env.LD_LIBRARY_PATH": "/opt/cudnn-9.13/lib"})
    (x,) = run(f)
    assert (x.id, x.severity) == ("cudnn-version-mismatch", "warning")
    assert "9.13.0" in x.title and "nvidia-cudnn-cu12" in x.title
    assert "LD_LIBRARY_PATH" in x.detail


def test_shadowing_without_ld_library_path_points_at_the_loader_paths():
    f = cuda_facts(**{"backends.cudnn.version": 91300})
    (x,) = run(f)
    assert "LD_LIBRARY_PATH is not set" in x.detail
    assert "ldconfig -p | grep libcudnn" in x.fix.commands


def test_cudnn_wheel_replaced_by_another_package():
    f = cuda_facts(**{"backends.cudnn.version": 91300,
                      "packages.installed.nvidia-cudnn-cu12.version": "9.13.0.50"})
    (x,) = run(f)
    assert (x.id, x.severity) == ("cudnn-version-mismatch", "warning")
    expected = compat.expected_cudnn("2.13.0", "cu126")
    assert expected in x.title
    assert "was changed to 9.13.0.50" in x.detail
    assert any('"nvidia-cudnn-cu12==%s"' % expected in c for c in x.fix.commands)


def test_conda_install_compares_with_the_conda_cudnn_package():
    conda = {"packages.installed.conda:pytorch": {"version": "2.5.1", "build": "py3.11_cuda12.4"},
             "packages.installed.conda:cudnn": {"version": "9.1.0.70", "build": "h1"}}
    f = cuda_facts(version="2.5.1", variant="cu124", **conda, **{"backends.cudnn.version": 90100})
    assert run(f) == []
    f = cuda_facts(version="2.5.1", variant="cu124", **conda, **{"backends.cudnn.version": 90300})
    (x,) = run(f)
    assert "conda" in x.title and x.severity == "warning"


def test_rocm_build_is_not_checked():
    f = cuda_facts(**{"torch.hip": "6.2.41133", "backends.cudnn.version": 91300})
    f = f.with_values({"torch.version": "2.13.0+rocm6.2", "torch.cuda": absent("not built with it")})
    assert run(f) == []


def test_new_cudnn_on_a_volta_gpu_is_refused():
    f = cuda_facts(variant="cu130", cap=(7, 0))
    assert compat.expected_cudnn_int("2.13.0", "cu130") >= 91100  # the premise, from the KB
    (x,) = run(f)
    assert (x.id, x.category, x.severity) == ("cudnn-old-gpu", "cudnn-version-mismatch", "error")
    assert "sm_70" in x.title
    # the fix is the variant whose cuDNN is below the floor and that still has sm_70 kernels
    assert "cu126" in x.fix.summary
    assert any("download.pytorch.org/whl/cu126" in c for c in x.fix.commands)


def test_the_sm_floor_error_raised_by_torch_is_recognised():
    err = ("RuntimeError: cuDNN version 92000 is not compatible with devices with SM < 7.5. Please install a version "
           "of PyTorch with a compatible cuDNN version.")
    f = cuda_facts(variant="cu130", cap=(6, 1), **{"backends.cudnn.version": failed(err)})
    found = run(f)
    assert [x.id for x in found] == ["cudnn-old-gpu"]
    assert "not compatible with devices with SM < 7.5" in found[0].detail


def test_new_cudnn_on_a_turing_or_newer_gpu_is_fine():
    assert run(cuda_facts(variant="cu130", cap=(7, 5))) == []


def test_the_sm_floor_only_applies_from_torch_2_10():
    f = cuda_facts(version="2.9.1", variant="cu128", cap=(7, 0), **{"backends.cudnn.version": 91100})
    assert run(f, ["cudnn-old-gpu"]) == []
    f = cuda_facts(version="2.10.0", variant="cu128", cap=(7, 0), **{"backends.cudnn.version": 91100})
    assert [x.id for x in run(f, ["cudnn-old-gpu"])] == ["cudnn-old-gpu"]


def test_hidden_old_gpu_does_not_count():
    """torch checks the GPUs it sees; one hidden by CUDA_VISIBLE_DEVICES does not matter."""
    f = cuda_facts(variant="cu130", cap=(8, 0))
    f = f.with_values({"driver.gpus": [{"index": 0, "name": "A100", "capability": [8, 0]},
                                       {"index": 1, "name": "V100", "capability": [7, 0]}]})
    assert run(f) == []


def test_the_sm_floor_error_pasted_to_explain_names_the_build_that_keeps_an_older_cudnn():
    from hook_facts import explain
    err = ("RuntimeError: cuDNN version 91400 is not compatible with devices with SM < 7.5. Please install a version "
           "of PyTorch with a compatible cuDNN version. https://github.com/pytorch/pytorch/blob/main/RELEASE.md"
           "#release-compatibility-matrix")
    e = explain(err, "cudnn-sm75-floor", cuda_facts(variant="cu130", cap=(6, 1)))
    assert e.tailored and "cu126" in e.finding.fix.summary and "GPU: " in " ".join(e.notes)
    assert any("download.pytorch.org/whl/cu126" in c for c in e.finding.fix.commands)
