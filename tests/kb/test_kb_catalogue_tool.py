"""tools/catalogue.py, the generator of torchdoctor/kb/catalogue/: its extraction functions on
small synthetic inputs (a Python source, a byte blob, a wheel built here), and one whole run on
a fake torch wheel with the real matcher. The real wheels are hundreds of MB; they are read by
the maintainer's run, not here."""

import io
import json
import os
import sys
import tarfile
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = os.path.join(ROOT, "tools")
if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)

import catalogue  # noqa: E402
from cataloguer import archives, binstrings, classify, cmakesites, collect, pysites, text  # noqa: E402
from cataloguer import rows as R  # noqa: E402

SOURCE = '''
import logging, warnings
import torch
log = logging.getLogger(__name__)

def load(dev, path):
    if dev is None:
        raise RuntimeError("Found no NVIDIA driver on your system.")
    msg = f"CUDA driver version {dev.version} is too old"
    msg += " for this build"
    if dev.old:
        raise RuntimeError(msg)
    warnings.warn("libfoo.so not found in %s, falling back" % path, RuntimeWarning)
    log.warning("port %d is already in use on %s", 1, "h")
    assert path, "path must be set {braces}"
    torch._check(dev.ok, lambda: "device {} lacks {}".format(dev, "x"))
    raise ValueError(helper())
'''


def test_python_sites_turn_each_raise_and_warn_into_a_pattern():
    got = {(s["kind"], s["exc"], s["text"]) for s in pysites.sites(SOURCE)}
    assert got == {
        ("error", "RuntimeError", "Found no NVIDIA driver on your system."),
        # the variable followed to its assignment and the += after it
        ("error", "RuntimeError", "CUDA driver version {} is too old for this build"),
        ("warning", "RuntimeWarning", "libfoo.so not found in {}, falling back"),
        # logging formats `msg % args`
        ("warning", "", "port {} is already in use on {}"),
        # literal braces are doubled: the text is a str.format pattern
        ("error", "AssertionError", "path must be set {{braces}}"),
        ("error", "RuntimeError", "device {} lacks {}"),
    }  # `raise ValueError(helper())` says nothing by itself: no row


def test_python_sites_of_a_source_that_does_not_parse_are_none():
    assert pysites.sites("def f(:\n") == []


CMAKE = """
if(CUDA_VERSION VERSION_LESS 12.1)
  message(FATAL_ERROR "PyTorch requires CUDA 12.1 or above.")
endif()
message(WARNING
  "Caffe2: CUDA cannot be found. Depending on whether you are building "
  "Caffe2 or a Caffe2 dependent library.")   # a comment (with a parenthesis)
message(FATAL_ERROR "Found two conflicting CUDA versions:\\n"
                    "V${CMAKE_CUDA_COMPILER_VERSION} in '${CUDA_INCLUDE_DIRS}' and\\n"
                    "V${CUDAToolkit_VERSION} in '${CUDAToolkit_INCLUDE_DIRS}'")
message(FATAL_ERROR "The following imported targets are referenced, but are missing: ${${CMAKE_FIND_PACKAGE_NAME}_NOT_FOUND}")
message(STATUS "PyTorch: CUDA detected: " ${CUDA_VERSION})
message(FATAL_ERROR ${cuda_root_fail})
if(OFF)
  message(FATAL_ERROR "Your installed Caffe2 version uses gflags but the gflags library cannot be found.")
  include("${CMAKE_CURRENT_LIST_DIR}/public/gflags.cmake")
else()
  message(WARNING "Protobuf cannot be found. Depending on the build, the next error says more.")
endif()
if(ON)
  include("${CMAKE_CURRENT_LIST_DIR}/public/mkl.cmake")
else()
  message(FATAL_ERROR "Your installed Caffe2 version uses protobuf but the protobuf library cannot be found.")
endif()
if(1 AND NOT CAFFE2_USE_CUDA)
  message(FATAL_ERROR "Your installed Caffe2 version uses CUDA but I cannot find the CUDA libraries.")
endif()
if(0 AND NOT CAFFE2_USE_HIP)  # a constant first operand (an option written in at build time)
  message(FATAL_ERROR "Your installed Caffe2 version uses HIP but I cannot find the HIP libraries.")
endif()
#[[ message(FATAL_ERROR "A bracket comment holds no message at all, whatever it says.") ]]
if(OFF) # a comment (with parentheses) after the condition
  message(FATAL_ERROR "Your installed Caffe2 version uses XPU but I cannot find the XPU runtime.")
endif()
if(OFF)
  if(SOME_OPTION AND
     NOT OTHER_OPTION)
  endif()
  message(FATAL_ERROR "A message after a nested if over two lines inside a switched-off branch.")
endif()
message(
  WARNING "A warning whose mode is on the line after the parenthesis: still printed.")
message(warning "A lowercase mode is a notice in CMake, not a warning.")
"""


def test_cmake_sites_join_the_arguments_and_skip_the_branches_configure_switched_off():
    got = [(s["kind"], s["text"], s["where"]) for s in cmakesites.sites(CMAKE, "t/share/cmake/C/Config.cmake")]
    assert got == [
        ("error", "PyTorch requires CUDA 12.1 or above.", "t/share/cmake/C/Config.cmake:3"),
        # the quoted pieces joined, a comment after the call not read
        ("warning", "Caffe2: CUDA cannot be found. Depending on whether you are building Caffe2 or a Caffe2 dependent "
                    "library.", "t/share/cmake/C/Config.cmake:5"),
        # escaped newlines kept, each variable one placeholder
        ("error", "Found two conflicting CUDA versions:\nV{} in '{}' and\nV{} in '{}'", "t/share/cmake/C/Config.cmake:8"),
        ("error", "The following imported targets are referenced, but are missing: {}", "t/share/cmake/C/Config.cmake:11"),
        # STATUS is no problem; a message that is only a variable is none; if(OFF) never runs, its else() does
        ("warning", "Protobuf cannot be found. Depending on the build, the next error says more.",
         "t/share/cmake/C/Config.cmake:18"),
        # an if(ON) has no live else(); `if(0 AND ...)` is off whatever follows; bracket comments, a trailing
        # comment and an if() spanning lines do not confuse the branches; a lowercase mode is no problem
        ("error", "Your installed Caffe2 version uses CUDA but I cannot find the CUDA libraries.",
         "t/share/cmake/C/Config.cmake:26"),
        ("warning", "A warning whose mode is on the line after the parenthesis: still printed.",
         "t/share/cmake/C/Config.cmake:41"),
    ]


def test_a_cmake_file_included_only_from_a_switched_off_branch_is_not_read(tmp_path):
    wheel = archives.Archive(_zip(tmp_path / "t-1.0-py3-none-any.whl", {
        "t/share/cmake/C/Config.cmake": CMAKE,
        "t/share/cmake/C/public/gflags.cmake": 'message(WARNING "Caffe2: gflags cannot be found on this machine.")\n',
        "t/share/cmake/C/public/mkl.cmake": 'find_package(MKLThing)\nif(OFF)\n  find_package(Thing)\nendif()\n',
        "t/share/cmake/C/FindMKLThing.cmake": 'message(WARNING "MKLThing cannot be found. Turning the option off")\n',
        "t/share/cmake/C/FindThing.cmake": 'message(FATAL_ERROR "Could not find nvcc, please set CUDAToolkit_ROOT.")\n',
        "t/share/cmake/C/FindThing/helper.cmake": 'message(FATAL_ERROR "A helper of a module nothing live finds.")\n',
        "t/share/cmake/C/FindMKLThing/helper.cmake": 'message(FATAL_ERROR "A helper of a module something finds.")\n',
        "t/share/cmake/C/script.cmake": 'message(FATAL_ERROR "A script nothing includes runs by itself.")\n'}))
    texts = {s["text"] for s in collect.cmake_sites_of(wheel, lambda n: n.startswith("t/share/cmake/"))}
    assert texts >= {"MKLThing cannot be found. Turning the option off",  # found from a file included from if(ON)
                     "A helper of a module something finds.", "A script nothing includes runs by itself."}
    assert not {"Could not find nvcc, please set CUDAToolkit_ROOT.",  # found only from an if(OFF)
                "A helper of a module nothing live finds."} & texts
    assert not any("gflags" in t for t in texts)


def test_strings_come_whole_across_chunk_borders():
    blob = b"\x00\x01junk\x00Found no NVIDIA driver on your system\x00\xff" + b"a" * 5 + b"\x00tail string here\x00"
    for chunk in (3, 7, 64, 1 << 20):
        assert list(binstrings.strings(io.BytesIO(blob), min_len=12, chunk=chunk)) == [
            "Found no NVIDIA driver on your system", "tail string here"]


def test_binary_strings_keep_sentences_and_drop_symbols_schemas_and_code():
    assert binstrings.is_prose("CUDA driver initialization failed, you might not have a CUDA gpu.")
    for junk in ("_ZN3c106detail14torchCheckFailEPKcS2_jRKSs",
                 "linalg_svd(Tensor A, bool full_matrices=True, *, c10::string_view? driver=None)",
                 'torch_call_dispatcher( "aten::view", "", stack.data(), TORCH_ABI_VERSION)',
                 "#include <cuda_runtime.h>\nint main() {\n return 0;\n}",
                 "/usr/lib/x86_64-linux-gnu/libcuda.so.1"):
        assert not binstrings.is_prose(junk), junk
    assert binstrings.message_pattern("failed to allocate %zu bytes for %s: ") == "failed to allocate {} bytes for {}: {}"
    assert binstrings.printf_pattern("{} of {:x} in {a} at 100%%") == "{} of {} in {{a}} at 100%"


def test_the_closing_piece_of_a_message_built_in_pieces_is_kept():
    # TORCH_CHECK(cond, "Unrecognized key '", key, "' in CUDA allocator config."): the pieces
    # lie apart in the library; the closing one is the message's end.
    assert binstrings.fragment_pattern("' in CUDA allocator config.") == "{}' in CUDA allocator config."
    assert binstrings.fragment_pattern('" failed to load, the library may be missing') == \
        '{}" failed to load, the library may be missing'
    for not_one in ("' in x", "'s driver version is too old", "in CUDA allocator config.",
                    "' then 'two' and ' three quotes", "' first line\nsecond line of text here"):
        assert binstrings.fragment_pattern(not_one) == "", not_one
    assert binstrings.is_prose("' in CUDA allocator config.") is False


def _zip(path, members):
    with zipfile.ZipFile(str(path), "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return str(path)


def test_binary_sites_stream_a_library_out_of_a_wheel(tmp_path):
    lib = (b"\x7fELF\x00" + b"\x00".join([
        b"Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU",
        b"Expected a tensor of shape (2, 3) but got a tensor of shape (3, 2)",  # no environment word
        b"_ZN3c1019UndefinedTensorImpl10_singletonE", b"CUBLAS_STATUS_NOT_INITIALIZED",
        b"Unrecognized key '", b"' in CUDA allocator config."]) + b"\x00")
    wheel = archives.Archive(_zip(tmp_path / "t-1.0-py3-none-any.whl", {"t/lib/libx.so": lib}))
    names = {r"CUBLAS_STATUS_\w+": set()}
    sites = list(collect.binary_sites(wheel, ["t/lib/libx.so"], names))
    assert [s["text"] for s in sites] == [
        "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU",
        "{}' in CUDA allocator config."]
    assert sites[0]["where"] == "t/lib/libx.so"
    assert names[r"CUBLAS_STATUS_\w+"] == {"CUBLAS_STATUS_NOT_INITIALIZED"}


def test_status_texts_are_wrapped_as_torch_prints_them():
    cuda = collect.status_sites("cudaGetErrorString", [("0", "no error"), ("100", "no CUDA-capable device is detected")],
                                "CUDA error: {}", "libcudart.so.13")
    assert [(s["text"], s["where"]) for s in cuda] == [
        ("CUDA error: no CUDA-capable device is detected", "libcudart.so.13: cudaGetErrorString(100)")]
    nccl = collect.status_sites("ncclGetErrorString", [("6", "remote process exited {x}")],
                                "NCCL error in: {}, {}, NCCL version {}", "libnccl.so.2")
    assert nccl[0]["text"] == "NCCL error in: {}, remote process exited {{x}}, NCCL version {}"


def test_the_rules_classify_and_a_decision_overrides_them():
    assert classify.first_pass("Found no NVIDIA driver on your system", "error", "")[0] == classify.ENVIRONMENT
    assert classify.first_pass("Expected a tensor of shape {} but got {}", "error", "")[0] == classify.USAGE
    assert classify.first_pass("x INTERNAL ASSERT FAILED, please report a bug", "error", "")[0] == classify.INTERNAL
    assert classify.first_pass("sources and objects lists must be the same length", "error",
                               "AssertionError")[0] == classify.INTERNAL
    row = {"id": "abc", "text": "nccl hit async error on rank", "kind": "error", "exc": ""}
    classify.classify(row, {})
    assert (row["class"], row["reviewed"]) == (classify.ENVIRONMENT, False)
    classify.classify(row, {"abc": {"class": "internal", "note": "a log line"}})
    assert row["class"] == classify.INTERNAL and row["reviewed"] is True
    assert "review:environment->internal" in row["reasons"] and "review-note:a log line" in row["reasons"]


def test_a_bad_decision_class_is_refused(tmp_path):
    p = tmp_path / "ov.json"
    p.write_text(json.dumps({"decisions": {"abc": {"class": "maybe"}}}))
    with pytest.raises(ValueError, match="class 'maybe'"):
        classify.load_overrides(str(p))


def test_rows_are_one_per_text_with_an_id_stable_across_releases():
    sites = [{"text": "no driver {}", "kind": "error", "exc": "", "where": "b.py:9"},
             {"text": "no driver {}", "kind": "error", "exc": "RuntimeError", "where": "a.py:12"},
             {"text": "no driver {}", "kind": "warning", "exc": "", "where": "a.py:3"}]
    rows = R.make_rows("torch", "torch 2.13.0", sites)
    assert [(r["kind"], r["where"], r["sites"], r["exc"]) for r in rows] == [
        ("warning", "a.py:3", 1, ""), ("error", "a.py:12", 2, "RuntimeError")]
    again = R.make_rows("torch", "torch 2.14.1", sites)
    assert [r["id"] for r in rows] == [r["id"] for r in again]
    assert R.renderings(rows[1]) == ["RuntimeError: no driver 1", "no driver 1", "RuntimeError: no driver x",
                                     "no driver x", "RuntimeError: no driver CUDA", "no driver CUDA",
                                     "RuntimeError: no driver 12.8", "no driver 12.8"]
    assert R.renderings(dict(rows[1], text="no driver")) == ["RuntimeError: no driver", "no driver"]


def test_validate_names_what_is_wrong():
    good = {"id": "a", "text": "t", "kind": "error", "exc": "", "where": "w", "sites": 1, "source": "s",
            "class": "usage", "reasons": [], "reviewed": False, "entry": None}
    assert R.validate(good) == []
    assert R.validate(dict(good, kind="note")) == ["kind 'note'"]
    assert R.validate(dict(good, reviewed=1)) == ["reviewed is 'int'"]
    assert R.validate(dict(good, extra=1)) == ["unknown fields ['extra']"]


def test_requirement_pins_and_sdists_read_as_archives(tmp_path):
    pins = archives.requirement_pins(
        ['cuda-toolkit[cudart]==13.0.3; platform_system == "Linux"', "nvidia-cuda-runtime==13.0.96.*; extra == 'x'",
         "triton~=3.8.0", "nvidia-nccl-cu13 (==2.30.7)"], ("cuda-toolkit", "nvidia-cuda-runtime", "triton",
                                                           "nvidia-nccl-cu13"))
    assert pins == {"cuda-toolkit": "13.0.3", "nvidia-cuda-runtime": "13.0.96.*", "nvidia-nccl-cu13": "2.30.7"}
    sdist = tmp_path / "pkg-1.0.tar.gz"
    with tarfile.open(str(sdist), "w:gz") as t:
        for name, data in (("pkg-1.0/PKG-INFO", b"Name: pkg\nVersion: 1.0\n"), ("pkg-1.0/pkg/a.py", b"x = 1\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    a = archives.Archive(str(sdist))
    assert a.names() == ["PKG-INFO", "pkg/a.py"]
    assert a.metadata()["version"] == "1.0"
    (tmp_path / "bad.whl").write_bytes(b"no zip")
    with pytest.raises(ValueError, match="not a readable archive"):
        archives.Archive(str(tmp_path / "bad.whl"))


def _fake_torch(tmp_path):
    init = ('import warnings\n'
            'def _lazy_init():\n'
            '    raise AssertionError("Torch not compiled with CUDA enabled")\n'
            'def f(x):\n'
            '    raise ValueError(f"Expected a tensor of shape {x}, got {x}")\n')
    lib = b"\x00Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU\x00" \
          b"\x00Your frobnicator quantum flux driver is too old for this library\x00"
    return _zip(tmp_path / "torch-9.9.0-cp311-cp311-linux_x86_64.whl", {
        "torch-9.9.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: torch\nVersion: 9.9.0\n",
        "torch/cuda/__init__.py": init,
        "torch/nn/ignored.py": 'raise RuntimeError("CUDA driver is not read from this module")\n',
        "torch/lib/libc10.so": lib,
        "torch/lib/libtorchbind_test.so": b"\x00Found no NVIDIA driver on your system, in a test library\x00"})


def test_a_whole_run_on_a_fake_wheel_is_matched_and_idempotent(tmp_path):
    wheel = _fake_torch(tmp_path)
    out, ov, ratchet = tmp_path / "cat", tmp_path / "ov.json", tmp_path / "ratchet.json"
    args = ["--out", str(out), "--torch", wheel, "--no-companions", "--overrides", str(ov), "--ratchet", str(ratchet),
            "--cache", str(tmp_path / "cache")]
    assert catalogue.main(args) == 0
    path = out / "torch-9.9.json"
    data = json.loads(path.read_text())
    assert data["release"] == "torch 9.9.0" and data["inputs"][0]["file"] == os.path.basename(wheel)
    assert data["generated"]["command"] == catalogue.COMMAND
    by_text = {r["text"]: r for r in data["rows"]}
    assert set(by_text) == {"Torch not compiled with CUDA enabled", "Expected a tensor of shape {}, got {}",
                            "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU",
                            "Your frobnicator quantum flux driver is too old for this library"}
    assert by_text["Torch not compiled with CUDA enabled"]["entry"] == "torch-not-compiled-with-cuda"
    assert by_text["Torch not compiled with CUDA enabled"]["where"] == "torch/cuda/__init__.py:3"
    assert by_text["Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU"]["entry"] \
        == "nvidia-driver-not-found"
    assert by_text["Expected a tensor of shape {}, got {}"]["class"] == classify.USAGE
    flux = by_text["Your frobnicator quantum flux driver is too old for this library"]
    assert (flux["class"], flux["entry"], flux["reviewed"]) == (classify.ENVIRONMENT, None, False)
    # the ratchet starts with what is uncovered
    assert json.loads(ratchet.read_text())["torch-9.9"] == {flux["id"]: flux["text"]}
    first = path.read_bytes()
    assert catalogue.main(args) == 0
    assert path.read_bytes() == first  # idempotent, date included
    # a review decision is kept by a refresh, which needs no wheel
    ov.write_text(json.dumps({"decisions": {flux["id"]: {"class": "internal", "note": "made up"}}}))
    assert catalogue.main(["--refresh", "--out", str(out), "--overrides", str(ov), "--ratchet", str(ratchet)]) == 0
    after = {r["id"]: r for r in json.loads(path.read_text())["rows"]}
    assert (after[flux["id"]]["class"], after[flux["id"]]["reviewed"]) == (classify.INTERNAL, True)
    assert json.loads(ratchet.read_text())["torch-9.9"] == {}  # only environment rows count


def test_the_ratchet_never_grows_without_being_told(tmp_path):
    ratchet = tmp_path / "r.json"
    env = {"class": "environment", "entry": None}
    files = {"torch-1.0": {"rows": [dict(env, id="a", text="A")]}}
    assert catalogue.update_ratchet(files, False, str(ratchet)) == []
    files["torch-1.0"]["rows"].append(dict(env, id="b", text="B"))
    grew = catalogue.update_ratchet(files, False, str(ratchet))
    assert len(grew) == 1 and " b " in grew[0]
    assert json.loads(ratchet.read_text())["torch-1.0"] == {"a": "A"}
    files["torch-1.0"]["rows"][0]["entry"] = "some-entry"  # a covers now: it leaves the list
    catalogue.update_ratchet(files, True, str(ratchet))
    assert json.loads(ratchet.read_text())["torch-1.0"] == {"b": "B"}


@pytest.mark.parametrize("argv, message", [
    (["--torch", "/nonexistent/torch-1.0-py3-none-any.whl"], "no such file"),
    (["--companion", "torchvision"], "expected NAME=PATH"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, argv, message):
    rc = catalogue.main(argv + ["--out", str(tmp_path / "o"), "--no-companions", "--ratchet", str(tmp_path / "r.json"),
                                "--overrides", str(tmp_path / "ov.json")])
    err = capsys.readouterr().err
    assert rc == 2 and message in err and len(err.strip().splitlines()) == 1


def test_a_file_that_is_no_wheel_is_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "torch-1.0-py3-none-any.whl"
    bad.write_bytes(b"not a zip")
    rc = catalogue.main(["--torch", str(bad), "--out", str(tmp_path / "o"), "--no-companions",
                         "--ratchet", str(tmp_path / "r.json"), "--overrides", str(tmp_path / "ov.json")])
    err = capsys.readouterr().err
    assert rc == 2 and "not a readable archive" in err and len(err.strip().splitlines()) == 1


def test_text_helpers():
    assert text.tidy("  a   b \n\n   c\n") == "a b\nc"
    assert text.literal("x {} y {{z}}") == "x  y {z}"
    assert text.render("a {} b {{c}}", "1") == "a 1 b {c}"
    assert not text.is_message("bad {}") and text.is_message("CUDA driver is too old")
