"""When each torch module came and went (kb/data/torch_modules.json, from the wheels' file lists):
the maintainer tool read against a real zip served over HTTP range requests, the data against what
other places of the knowledge base state, and the hook that dates `No module named 'torch.X'`."""

import functools
import http.server
import os
import sys
import threading
import zipfile

import pytest

from hook_facts import facts, tailored_as, top
from torchdoctor.areas.api import NEWER_APIS
from torchdoctor.kb import torch_modules

TOOLS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tools")
if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)

import torch_modules as tool  # noqa: E402

WANT = "torch-module-newer-than-installed"
JOIN = "ModuleNotFoundError: No module named 'torch.distributed.algorithms.join'"


class _RangeHandler(http.server.SimpleHTTPRequestHandler):
    """Serves byte ranges as PyPI's file host does (the stdlib server ignores Range)."""

    def do_GET(self):
        path = self.translate_path(self.path)
        with open(path, "rb") as fh:
            data = fh.read()
        start, _, end = self.headers["Range"].split("=", 1)[1].partition("-")
        chunk = data[int(start):int(end) + 1 if end else None]
        self.send_response(206)
        self.send_header("Content-Length", str(len(chunk)))
        self.end_headers()
        self.wfile.write(chunk)

    def log_message(self, *args):
        pass


def test_the_tool_reads_a_wheels_file_list_and_a_stubs_text_through_range_requests(tmp_path):
    stub = '"""Gone."""\nraise ImportError("torch.utils.ffi is deprecated. Please use cpp extensions instead.")\n'
    files = {"torch/__init__.py": "", "torch/_C.cpython-311-x86_64-linux-gnu.so": "x" * 70000,  # a tail past one read
             "torch/utils/__init__.py": "", "torch/utils/ffi/__init__.py": stub,
             "torch/distributed/algorithms/join.py": "import torch\n" * 40, "torch/lib/libc10.so": "",
             "torch/_dl.pyd": "", "torch/lib/torch_python.dll": "", "torch/include/ATen/ATen.h": "",
             "torch-2.0.0.dist-info/METADATA": "", "torch/testing/_internal/data/x-y.py": ""}
    wheel = tmp_path / "torch-2.0.0-cp311-cp311-manylinux1_x86_64.whl"
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for n, text in files.items():
            z.writestr(n, text)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_RangeHandler, directory=str(tmp_path)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = "http://127.0.0.1:%d/%s" % (server.server_port, wheel.name)
    try:
        members = tool.wheel_members(url, wheel.stat().st_size)
        mods = tool.modules(members)
        texts = {m: tool.member_text(url, mods[m]) for m in ("torch.utils.ffi", "torch.distributed.algorithms.join")}
    finally:
        server.shutdown()
    assert sorted(m.name for m in members) == sorted(files)
    assert sorted(mods) == ["torch", "torch._C", "torch._dl", "torch.distributed.algorithms.join", "torch.utils",
                            "torch.utils.ffi"]
    assert texts["torch.utils.ffi"] == stub  # deflated in the zip, read back whole
    assert tool.stub_message(texts["torch.utils.ffi"]) == "torch.utils.ffi is deprecated. Please use cpp extensions instead."
    assert tool.stub_message(texts["torch.distributed.algorithms.join"]) is None


def test_history_keeps_every_run_of_releases():
    got = tool.history({"1.9": ["torch", "torch.old", "torch.back"], "1.10": ["torch", "torch.old", "torch.new"],
                        "2.0": ["torch", "torch.new", "torch.back"]})
    assert got == {"torch": [["1.9", None]], "torch.old": [["1.9", "1.10"]], "torch.new": [["1.10", None]],
                   "torch.back": [["1.9", "1.9"], ["2.0", None]]}


def test_a_stub_counts_as_absent_where_it_only_raises():
    per = {"1.0": {"torch.utils.ffi": tool.Member("torch/utils/ffi/__init__.py", size=120)},
           "1.1": {"torch.gone": tool.Member("torch/gone.py", size=2000)}, "2.0": {}}
    read = {"torch/utils/ffi/__init__.py": 'raise ImportError("use cpp extensions")\n'}
    stubs = tool.drop_stubs(per, {k: "" for k in per}, read=lambda url, m: read[m.name])
    assert stubs == {"torch.utils.ffi": "use cpp extensions"} and per["1.0"] == {}
    assert "torch.gone" in per["1.1"]  # a large file is a module, never read


def test_the_data_agrees_with_what_the_knowledge_base_states_elsewhere():
    # NEWER_APIS dates some modules from release notes and PRs: the wheels must say the same
    # (torch.ao is dated by its quantization move in 1.10; the package itself, ao.nn.sparse, is in 1.9's wheel)
    dated = {k: v[0] for k, v in NEWER_APIS.items() if torch_modules.runs(k) and k != "torch.ao"}
    assert {"torch.nn.attention", "torch.ao.quantization"} <= set(dated)
    for mod, need in dated.items():
        assert torch_modules.runs(mod)[0][0] == need, mod
    assert torch_modules.runs("torch._six") == [("1.0", "1.13")]  # removed in 2.0 (torch-six-removed)
    # the package (tensor.parallel) is 2.0's; DTensor became public in it in 2.5, a name, not a module
    assert torch_modules.runs("torch.distributed.tensor")[0][0] == "2.0"
    assert torch_modules.runs("torch.utils.ffi") == [] and "cpp extensions" in torch_modules.stub("torch.utils.ffi")
    assert torch_modules.removed_in_1_0("torch.legacy") and torch_modules.runs("torch.optim.functional")[0] == \
        ("1.7", "1.7")
    assert torch_modules.releases()[0] == "1.0" and len(torch_modules.releases()) >= 29


@pytest.mark.parametrize("torch,says", [
    ("1.9.1", "The installed torch 1.9.1 predates torch.distributed.algorithms.join (first in torch 1.10)"),
    ("2.13.0", "No upgrade needed here"),  # this torch has it: another torch failed
])
def test_a_module_newer_than_the_installed_torch(torch, says):
    m, t = tailored_as(WANT, JOIN, facts(torch=torch))
    assert m.confidence == "possible" and t.summary.startswith(says)
    assert "torch.distributed.algorithms.join ships with torch 1.10 and later (the wheels' file lists)" in t.notes


def test_a_module_torch_removed():
    # torch.distributed.pipeline (PiPPy's predecessor) shipped from 1.8 to 2.3
    _, t = tailored_as(WANT, "ModuleNotFoundError: No module named 'torch.distributed.pipeline'", facts(torch="2.5.1"))
    assert t.summary.startswith("torch 2.5.1 no longer has torch.distributed.pipeline (its last release with it is 2.3)")
    _, t = tailored_as(WANT, "ModuleNotFoundError: No module named 'torch.distributed.pipeline'", facts(torch="2.3.1"))
    assert t.summary.startswith("No upgrade needed here")


@pytest.mark.parametrize("mod,later", [("torch.utils.ffi", ""), ("torch.legacy", ""),
                                       ("torch.utils.serialization", "; torch 2.7's module of that name is another one")])
def test_what_torch_1_0_removed_is_torch_0_4_code(mod, later):
    # PyPI has no torch before 1.0: torch.legacy and load_lua's module are listed with sources; ffi's
    # 1.0-1.11 file only raises ImportError
    _, t = tailored_as(WANT, "ModuleNotFoundError: No module named '%s'" % mod, facts(torch="1.13.1"))
    assert t.summary.startswith("%s was removed in torch 1.0" % mod) and t.summary.endswith("torch 0.4%s." % later)


def test_a_module_in_a_gap_of_its_releases():
    _, t = tailored_as(WANT, "No module named 'torch.optim.functional'", facts(torch="2.5.1"))
    assert t.summary.startswith("torch 2.5 is one of the releases without torch.optim.functional (it ships with torch "
                                "1.7, 2.15 and later)")


def test_without_torch_the_releases_are_the_answer():
    _, t = tailored_as(WANT, JOIN, facts())
    assert t.summary.startswith("torch.distributed.algorithms.join ships with torch 1.10 and later: run the code")


def test_a_function_imported_as_a_module_is_said():
    # FastSurfer's `import torch.cuda.device_count as d`: a function, which `import` cannot take
    _, t = tailored_as(WANT, "ModuleNotFoundError: No module named 'torch.cuda.device_count'", facts(torch="2.13.0"))
    assert t.summary.startswith("No torch release from 1.0 to ")
    assert "`from torch.cuda import device_count`" in t.summary


def test_a_name_under_no_torch_module_keeps_the_entrys_own_fix():
    _, t = tailored_as(WANT, "No module named 'torch.foo.bar'", facts(torch="2.13.0"))
    assert t is None


@pytest.mark.parametrize("text,other", [
    ("No module named 'torch._six'", "torch-six-removed"),
    ("No module named 'torch.distributed._shard.checkpoint'", "torch-private-module-missing"),
    ("No module named 'torchvision.transforms.functional_tensor'", "torchvision-functional-tensor-removed"),
    ("No module named 'torch'", "torch-module-not-found"),
])
def test_other_torch_modules_keep_their_own_readings(text, other):
    assert top(text).id == other


@pytest.mark.parametrize("text", [
    "ModuleNotFoundError: No module named 'torch.utils.'",  # a cut paste
    "ModuleNotFoundError: No module named 'torch.npu'",  # a backend torch_npu adds: not a function
])
def test_broken_or_plugin_names_keep_the_entrys_own_fix(text):
    _, t = tailored_as(WANT, text, facts(torch="2.13.0"))
    assert t is None


def test_a_script_named_torch_is_no_torch_release():
    m = top("ModuleNotFoundError: No module named 'torch.nn'; 'torch' is not a package")
    assert m is None or m.id != WANT


def test_torch_2_7s_own_serialization_module_missing_is_another_torch_failing():
    # torch 2.7+ imports its own torch.utils.serialization: missing there is not load_lua's 0.4 code
    _, t = tailored_as(WANT, "  File \"torch/serialization.py\", line 1470, in load\n    from torch.utils.serialization "
                             "import config\nModuleNotFoundError: No module named 'torch.utils.serialization'",
                       facts(torch="2.8.0"))
    assert t.summary.startswith("No upgrade needed here")


def test_the_stubs_own_message_is_read():
    _, t = tailored_as(WANT, "ImportError: torch.utils.ffi is deprecated. Please use cpp extensions instead.",
                       facts(torch="1.4.0"))
    assert t.summary.startswith("torch.utils.ffi was removed in torch 1.0")


def test_a_torch_older_than_any_wheel_read_keeps_the_entrys_own_fix():
    _, t = tailored_as(WANT, "No module named 'torch.utils.data'", facts(torch="0.4.1"))
    assert t is None
