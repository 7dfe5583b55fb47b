"""The Python rules on small code written for the test: each fires, and stays quiet where
it should (guards, other versions, the patterns real code bases showed)."""

import ast
import textwrap

import pytest

from torchdoctor.verbs.lint import pyscan
from torchdoctor.verbs.lint.rules import default_codes
from torchdoctor.verbs.lint.target import from_option


def scan(src, torch="2.13", cuda=None):
    src = textwrap.dedent(src)
    t = from_option(torch)
    return pyscan.analyze(ast.parse(src), src.encode(), t.versions, cuda if cuda is not None else t.cuda)


def codes(src, torch="2.13", cuda=None, opt_in=()):
    """(code, line) of the rules on by default (plus `opt_in`), as `torchdoctor lint` reports them."""
    keep = set(default_codes()) | set(opt_in)
    return [(h.code, h.line) for h in scan(src, torch, cuda) if h.code in keep]


# -- TD101 / TD102: API existence against the target ---------------------------------------
def test_mps_on_old_torch_fires_and_new_torch_is_quiet():
    src = "import torch\nok = torch.backends.mps.is_available()\n"
    assert codes(src, "1.11") == [("TD101", 2)]
    assert codes(src, "1.12") == []
    h = scan(src, ">=1.11,<1.13")[0]
    assert "torch 1.11" in h.message and "first in 1.12" in h.message


def test_range_means_every_release_in_it():
    src = "import torch\nx = torch.backends.cuda.matmul.fp32_precision\n"
    assert codes(src, ">=2.9,<2.12") == []
    assert codes(src, ">=2.8,<2.12") == [("TD101", 2)]


def test_aliases_are_resolved():
    src = """
        import torch.backends.cudnn as cudnn
        from torch.backends import cuda
        import torch.backends.cuda as tbc
        import torch as th
        alias = th.backends.cudnn
        a = cudnn.conv.fp32_precision
        b = cuda.can_use_cudnn_attention
        c = tbc.is_flash_attention_available
        d = alias.rnn.fp32_precision
    """
    got = codes(src, "2.4")
    assert ("TD101", 7) in got and ("TD101", 8) in got and ("TD101", 9) in got and ("TD101", 10) in got
    assert codes(src, "2.11") == []


def test_from_import_and_literal_getattr():
    src = """
        from torch.nn.attention import sdpa_kernel, SDPBackend
        import torch
        m = getattr(torch.backends, "mps")
        n = getattr(torch.backends, "mps", None)
    """
    got = codes(src, "2.2")
    assert got.count(("TD101", 2)) == 2     # both names, on their own line
    assert codes(src, "1.11") .count(("TD101", 4)) == 1 and ("TD101", 5) not in codes(src, "1.11")


def test_removed_api_and_its_fix():
    src = "import torch\ntorch.set_deterministic(True)\n"
    (h,) = scan(src, "2.1")
    assert h.code == "TD102" and "removed in torch 1.10" in h.message
    assert h.edit == {"kind": "rename_attr", "line": 2, "col": 1, "attr": "set_deterministic",
                     "new": "use_deterministic_algorithms"}
    (h,) = scan(src, "1.9")   # still there, with a deprecation warning
    assert h.code == "TD201"


def test_unrelated_names_are_quiet():
    src = """
        import numpy as np
        import torch
        class backends: mps = 1
        x = np.backends.mps
        y = torch.nn.functional.relu
        def f(torch):
            return torch.backends.mps
    """
    assert codes(src, "1.11") == []


# -- guards ---------------------------------------------------------------------------------
def test_hasattr_guard_in_if_boolop_and_early_return():
    src = """
        import torch
        if hasattr(torch.backends, "mps") and torch.backends.mps.is_available():
            torch.backends.mps.is_built()
        else:
            pass
        def pick():
            if not hasattr(torch.backends, "mps"):
                return "cpu"
            return torch.backends.mps.is_available()
        dev = "mps" if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available() else "cpu"
    """
    assert codes(src, "1.11") == []


def test_try_except_guards():
    src = """
        import torch
        try:
            from torch.nn.attention import sdpa_kernel
        except ImportError:
            sdpa_kernel = None
        try:
            torch.backends.mps.is_available()
        except (AttributeError, RuntimeError):
            pass
        try:
            torch.backends.mps.is_available()
        except ValueError:
            pass
    """
    assert codes(src, "1.11") == [("TD101", 12)]


def test_version_comparisons_guard():
    src = """
        import torch
        from packaging import version
        TORCH_2 = version.parse(torch.__version__) >= version.parse("2.3")
        if version.parse(torch.__version__) >= version.parse("2.3"):
            from torch.nn.attention import sdpa_kernel
        if torch.__version__ >= "2.9":
            torch.backends.cuda.matmul.fp32_precision = "tf32"
        else:
            torch.backends.cuda.matmul.allow_tf32 = True
        if TORCH_2:
            from torch.nn.attention import SDPBackend
        if _TORCH_GREATER_EQUAL_2_3:
            from torch.nn.attention import SDPBackend
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from torch.nn.attention import SDPBackend
    """
    assert codes(src, "2.1") == []


def test_unguarded_use_next_to_a_guard_still_fires():
    src = """
        import torch
        if hasattr(torch, "compile"):
            pass
        torch.compile(lambda x: x)
    """
    assert codes(src, "1.13") == [("TD101", 5)]


# -- TD103: submodules `import torch` does not import -----------------------------------------
def test_submodule_not_auto_imported():
    src = "import torch\nx = torch.backends.opt_einsum.enabled\n"
    assert codes(src, "2.8") == [("TD103", 2)]
    assert codes(src, "2.9") == []
    assert codes("import torch\nimport torch.backends.opt_einsum\nx = torch.backends.opt_einsum.enabled\n", "2.8") == []
    assert codes("import torch\nx = torch.backends.xnnpack.enabled\n", "2.13") == [("TD103", 2)]
    assert codes("import torch\ntorch.mps.empty_cache()\n", "2.0") == [("TD103", 2)]
    assert codes("import torch\ntorch.mps.empty_cache()\n", "2.1") == []


# -- TD201: deprecations ---------------------------------------------------------------------
def test_sdp_kernel_deprecated_with_exact_fix():
    src = """
        import torch
        with torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False, enable_mem_efficient=False):
            pass
    """
    (h,) = scan(src, "2.4")
    assert h.code == "TD201" and "since torch 2.3" in h.message
    # enable_cudnn defaults to True, and sdp_kernel appends CUDNN_ATTENTION for it (2.3+)
    assert h.edit["backends"] == ["FLASH_ATTENTION", "CUDNN_ATTENTION"]
    assert codes(src, "2.2") == []                       # not deprecated yet
    assert scan(src, ">=2.2,<2.5")[0].edit is None        # sdpa_kernel does not exist in 2.2


def test_sdp_kernel_with_variables_is_not_fixable():
    (h,) = scan("import torch\nflag = True\nwith torch.backends.cuda.sdp_kernel(enable_flash=flag):\n    pass\n", "2.4")
    assert h.code == "TD201" and h.edit is None


def test_amp_deprecations_at_calls_and_imports_only():
    src = """
        import torch
        from torch.cuda.amp import GradScaler
        scaler = torch.cuda.amp.GradScaler()
        with torch.cuda.amp.autocast():
            pass
        def f(func):
            return func in [torch.amp.autocast_mode.autocast, torch.cuda.amp.autocast]
        same = f is torch.cpu.amp.autocast
        @torch.cuda.amp.custom_fwd
        def g(x):
            return x
    """
    assert codes(src, "2.4") == [("TD201", 3), ("TD201", 4), ("TD201", 5), ("TD201", 10)]
    assert codes(src, "2.3") == []


# -- TD202 / TD203: TF32 --------------------------------------------------------------------
def test_tf32_mix_fires_and_alternatives_are_quiet():
    mix = """
        import torch
        torch.backends.cudnn.allow_tf32 = True
        torch.backends.cudnn.conv.fp32_precision = "tf32"
    """
    assert codes(mix, "2.10") == [("TD202", 4)]
    alt = """
        import torch
        def setup(new):
            if new:
                torch.backends.cuda.matmul.fp32_precision = "tf32"
            else:
                torch.backends.cuda.matmul.allow_tf32 = True
    """
    assert codes(alt, "2.10") == []
    only_new = "import torch\ntorch.backends.fp32_precision = 'tf32'\n"
    assert codes(only_new, "2.10") == []


def test_tf32_legacy_flag_note_needs_a_target_with_the_new_api():
    src = "import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n"
    assert codes(src, "2.10", opt_in=["TD203"]) == [("TD203", 2)]
    assert codes(src, "2.10") == []                      # off by default
    assert codes(src, ">=2.8,<2.11", opt_in=["TD203"]) == []


# -- TD301 - TD305: cudnn settings -----------------------------------------------------------
def test_cudnn_disabled_for_reproducibility():
    fires = """
        import torch
        def set_seed(seed):
            torch.manual_seed(seed)
            torch.backends.cudnn.enabled = False
    """
    assert codes(fires) == [("TD301", 5)]
    quiet = """
        import torch
        def double_backward_workaround(x):
            torch.backends.cudnn.enabled = False
            return x
    """
    assert codes(quiet) == []


def test_benchmark_with_deterministic():
    fires = """
        import torch.backends.cudnn as cudnn
        cudnn.deterministic = True
        cudnn.benchmark = True
    """
    def td302(src):   # TD307 (no use_deterministic_algorithms) fires on these too
        return [c for c in codes(src) if c[0] != "TD307"]
    assert td302(fires) == [("TD302", 4)]
    quiet = """
        import torch.backends.cudnn as cudnn
        if args.deterministic:
            cudnn.deterministic = True
            cudnn.benchmark = False
        else:
            cudnn.benchmark = True
    """
    assert td302(quiet) == []
    flags = "import torch\nwith torch.backends.cudnn.flags(enabled=True, benchmark=True, deterministic=True):\n    pass\n"
    assert td302(flags) == [("TD302", 2)]


def test_deterministic_without_cublas_config():
    src = "import torch\ntorch.use_deterministic_algorithms(True)\n"
    assert codes(src, "2.4") == [("TD303", 2)]
    assert codes(src, "2.10") == []                      # 2.10+ no longer demands it
    assert codes(src, "2.4.1+cpu") == []                 # a CPU-only target
    assert codes("import os, torch\nos.environ['CUBLAS_WORKSPACE_CONFIG'] = ':4096:8'\n"
                 "torch.use_deterministic_algorithms(True)\n", "2.4") == []
    assert codes("import torch\ntorch.use_deterministic_algorithms(True, warn_only=True)\n", "2.4") == []
    assert codes("import torch\ntorch.use_deterministic_algorithms(False)\n", "2.4") == []


def test_benchmark_in_loop_or_per_batch():
    fires = """
        import torch
        for epoch in range(3):
            torch.backends.cudnn.benchmark = True
        class M:
            def training_step(self, batch):
                torch.backends.cudnn.benchmark = True
    """
    assert codes(fires) == [("TD304", 4), ("TD304", 7)]
    assert codes("import torch\ntorch.backends.cudnn.benchmark = True\nfor i in range(3):\n    pass\n") == []


def test_seed_helper_enabling_benchmark():
    fires = """
        import torch
        def seed_everything(seed):
            torch.manual_seed(seed)
            torch.backends.cudnn.benchmark = True
    """
    assert codes(fires) == [("TD305", 5)]
    quiet = """
        import torch
        def seed_everything(seed):
            torch.manual_seed(seed)
            torch.backends.cudnn.benchmark = False
        def speed_up():
            torch.backends.cudnn.benchmark = True
    """
    assert codes(quiet) == []


def test_positions_are_characters_not_bytes():
    (h,) = scan("import torch\ns = 'é'; torch.backends.mps.is_available()\n", "1.11")
    assert (h.line, h.col) == (2, 10)   # 11 if counted in UTF-8 bytes


# -- false positives found on real code bases, kept as tests ------------------------------------
def test_capability_flags_guard_like_hasattr():
    """timm 1.0.31: `_HAS_FUSED_ATTN = hasattr(F, 'scaled_dot_product_attention')`, `self.fused_attn =
    use_fused_attn()`, `try: import torch._dynamo; has_dynamo = True except ImportError: ...`."""
    src = """
        import torch
        import torch.nn.functional as F
        _HAS_COMPILER = hasattr(torch, "compiler") and hasattr(torch.compiler, "is_exporting")
        try:
            import torch._dynamo
            has_dynamo = True
        except ImportError:
            has_dynamo = False
        def exporting():
            return _HAS_COMPILER and torch.compiler.is_exporting()
        class Attention:
            def __init__(self):
                self.fused_attn = use_fused_attn()
            def forward(self, q, k, v):
                if self.fused_attn:
                    return F.scaled_dot_product_attention(q, k, v)
                if has_dynamo:
                    return torch.compile(self)
    """
    assert codes(src, ">=1.13") == []
    # the same calls without the flags fire
    assert codes("import torch\nimport torch.nn.functional as F\ny = F.scaled_dot_product_attention(1, 2, 3)\n",
                 ">=1.13") == [("TD101", 3)]


def test_dynamo_compares_deprecated_classes_without_using_them():
    """torch 2.13's own torch/_dynamo/variables/ctx_manager.py: `func in [torch.cuda.amp.autocast, ...]`."""
    src = """
        import torch
        def check(func):
            if func not in [torch.amp.autocast_mode.autocast, torch.cuda.amp.autocast, torch.cpu.amp.autocast]:
                raise AssertionError(func)
            return "cuda" if func is torch.cuda.amp.autocast else "cpu"
    """
    assert codes(src, "2.13") == []


def test_a_decorator_missing_in_the_target_is_a_finding():
    src = "import torch\n@torch.compile\ndef f():\n    pass\n"
    assert codes(src, "1.11") == [("TD101", 2)]


# -- TD104-TD106: names, settings and functions of torch.backends -------------------------------
def test_misspelt_backends_names_through_every_alias():
    assert codes("import torch.backends.cudnn as cudnn\nprint(cudnn.ver)\n") == [("TD104", 2)]
    assert codes("from torch.backends import cuda\ncuda.matmul.allow_fp32 = True\n") == [("TD104", 2)]
    assert codes("from torch.backends.cuda import flash_sdp_enable\n") == [("TD104", 1)]
    assert codes("import torch\ntorch.backends.cudnn.benchmarks = True\n") == [("TD104", 2)]
    ok = "import torch\nfrom torch.backends.cuda import flash_sdp_enabled\ntorch.backends.cuda.matmul.allow_tf32 = True\n"
    assert codes(ok) == []
    assert codes("import torch\ntry:\n    v = torch.backends.cudnn.ver\nexcept AttributeError:\n    v = None\n") == []


def test_settings_called_as_functions_even_under_a_guard():
    assert codes("import torch\ntorch.backends.cudnn.benchmark()\n") == [("TD105", 2)]
    src = "import torch\nif hasattr(torch.backends, 'cudnn') and torch.backends.cudnn.enabled():\n    pass\n"
    assert codes(src) == [("TD105", 2)]
    assert codes("import torch\nx = torch.backends.cuda.matmul.allow_tf32()\n") == [("TD105", 2)]
    assert codes("import torch\nx = torch.backends.cudnn.version()\ny = torch.backends.cudnn.enabled\n") == []


def test_functions_tested_without_a_call():
    assert codes("import torch\nif torch.backends.mps.is_available:\n    pass\n") == [("TD106", 2)]
    assert codes("import torch\nok = 1 if not torch.backends.cudnn.is_available else 2\n") == [("TD106", 2)]
    assert codes("import torch\nwhile torch.backends.mps.is_built and False:\n    pass\n") == [("TD106", 2)]
    assert codes("import torch\nif torch.backends.mps.is_available():\n    pass\n") == []
    assert codes("import torch\nf = torch.backends.mps.is_available\nif f():\n    pass\n") == []
    # compared or passed on, not tested for truth
    assert codes("import torch\nif check(torch.backends.mps.is_available):\n    pass\n") == []


# -- the legacy linear algebra, version-aware, and every call of a from-imported name ---------
def test_legacy_linalg_removed_or_deprecated_per_release():
    src = "import torch\nx = torch.solve(b, A)\ny = torch.symeig(A)\nz = torch.qr(A)\n"
    assert codes(src, "1.11") == [("TD201", 2), ("TD201", 3), ("TD201", 4)]   # still there, warning
    assert codes(src, "1.12") == [("TD102", 2), ("TD201", 3), ("TD201", 4)]   # solve is a raising stub
    assert codes(src, "2.13") == [("TD102", 2), ("TD102", 3), ("TD201", 4)]
    assert codes("import torch\nx = torch.linalg.solve(A, b)\ny = torch.linalg.eigh(A)\n", "2.13") == []
    msg = [h.message for h in scan("import torch\ntorch.solve(b, A)\n", "2.13")][0]
    assert "torch.linalg.solve" in msg and "other order" in msg


def test_each_call_of_a_from_imported_name_is_a_use():
    src = "from torch import qr\nfrom torch.backends.cuda import sdp_kernel\nqr(A)\nwith sdp_kernel():\n    pass\n"
    assert codes(src, "2.13") == [("TD201", 1), ("TD201", 2), ("TD201", 3), ("TD201", 4)]
    assert codes("from torch.linalg import qr\nqr(A)\n", "2.13") == []
    assert codes("from torch import qr\ndef f(qr):\n    return qr(A)\n", "2.13") == [("TD201", 1)]   # a parameter shadows it


# -- TD107: a setting assigned a value torch refuses -------------------------------------------
def test_wrong_type_through_aliases_and_flags_call():
    src = """
        import torch
        import torch.backends.cudnn as cudnn
        from torch.backends import cuda
        cudnn.deterministic = "True"
        cuda.matmul.allow_tf32 = None
        torch.backends.cudnn.conv.fp32_precision = False
        with cudnn.flags(enabled=True, benchmark="no"):
            pass
        torch.backends.fp32_precision = "highest"
    """
    assert sorted(c for c in codes(src) if c[0] == "TD107") == [("TD107", n) for n in (5, 6, 7, 8, 10)]


def test_wrong_type_quiet_on_right_values_and_non_literals():
    src = """
        import torch, sys
        torch.backends.cudnn.benchmark = not True
        torch.backends.cudnn.deterministic = "--det" in sys.argv
        torch.backends.cuda.matmul.fp32_precision = "ieee"
        torch.backends.cudnn.rnn.fp32_precision = "none"
        torch.backends.mkldnn.fp32_precision = "bf16"
        x = {"benchmark": "yes"}
    """
    assert [c for c in codes(src) if c[0] == "TD107"] == []
    src = "import torch\nwith torch.backends.cudnn.flags(enabled=None, benchmark=None, deterministic=None):\n    pass\n"
    assert [c for c in codes(src) if c[0] == "TD107"] == []   # None: leave the flag as it is


def test_wrong_type_under_a_guard_is_still_wrong():
    src = """
        import torch
        if hasattr(torch.backends.cuda.matmul, "fp32_precision"):
            torch.backends.cuda.matmul.fp32_precision = True
    """
    assert ("TD107", 4) in codes(src, ">=2.0")


# -- TD108: a context manager called as a plain statement --------------------------------------
def test_context_manager_statement_fires_through_aliases():
    src = """
        import torch
        from torch.backends.cuda import sdp_kernel as sk
        import torch.backends.cudnn as cudnn
        sk(enable_math=False)
        cudnn.flags(enabled=False)
        def f():
            torch.autocast("cuda", dtype=torch.bfloat16)
            torch.inference_mode()
        if hasattr(torch.backends, "mkldnn"):
            torch.backends.mkldnn.flags(enabled=False)
    """
    got = [c for c in codes(src, ">=2.3") if c[0] == "TD108"]
    assert got == [("TD108", 5), ("TD108", 6), ("TD108", 8), ("TD108", 9), ("TD108", 11)]


def test_context_manager_quiet_when_entered_kept_or_acting():
    src = """
        import torch
        from torch.nn.attention import sdpa_kernel, SDPBackend
        with sdpa_kernel(SDPBackend.MATH), torch.no_grad():
            pass
        @torch.inference_mode()
        def g():
            pass
        ctx = torch.autocast("cpu")
        stack.enter_context(torch.backends.cudnn.flags(enabled=False))
        torch.set_grad_enabled(False)
        torch.backends.cudnn.set_flags(True)
        torch.manual_seed(0)
    """
    assert [c for c in codes(src, ">=2.3") if c[0] == "TD108"] == []


# -- TD301: cudnn.enabled = False presented as a reproducibility measure ------------------------
def test_cudnn_disabled_claimed_by_comment_condition_or_name():
    src = """
        import torch
        import torch.backends.cudnn as cudnn

        # deterministic runs
        cudnn.enabled = False
        torch.backends.cudnn.enabled = False  # for reproducibility

        def configure(cfg):
            if cfg.train.reproducible:
                cudnn.enabled = False
            if not args.deterministic:
                pass
            else:
                cudnn.enabled = False

        def make_deterministic():
            cudnn.enabled = False
    """
    assert [c for c in codes(src) if c[0] == "TD301"] == [("TD301", n) for n in (6, 7, 11, 15, 18)]


@pytest.mark.parametrize("eol", ["\n", "\r\n", "\r"])
def test_a_comments_claim_is_on_its_own_line_whatever_the_line_breaks(eol):
    src = eol.join(["import torch", "x = 1", "# make runs reproducible", "torch.backends.cudnn.enabled = False", ""])
    assert [c for c in codes(src) if c[0] == "TD301"] == [("TD301", 4)]


def test_cudnn_disabled_for_another_reason_is_quiet():
    src = """
        import torch

        # cuDNN has no deterministic double backward for grid_sample; keep it simple here
        x = 1
        y = 2
        torch.backends.cudnn.enabled = False

        def export(cfg):
            if cfg.onnx:
                torch.backends.cudnn.enabled = False
            if not cfg.deterministic:
                torch.backends.cudnn.enabled = False
    """
    assert [c for c in codes(src) if c[0] == "TD301"] == []


# -- TD306: benchmark = True with a training loader that keeps a smaller last batch -------------
def test_benchmark_with_varying_shapes():
    src = """
        import torch
        import torch.utils.data as tud
        torch.backends.cudnn.benchmark = True
        train = tud.DataLoader(ds, args.batch_size, True, num_workers=4)
    """
    assert [c for c in codes(src) if c[0] == "TD306"] == [("TD306", 4)]
    quiet = [
        "train = tud.DataLoader(ds, batch_size=32, shuffle=True, drop_last=True)",
        "train = tud.DataLoader(ds, batch_size=32, shuffle=True, drop_last=args.drop_last)",
        "train = tud.DataLoader(ds, shuffle=True)",                  # batch size 1: every batch alike
        "train = tud.DataLoader(ds, batch_size=32, shuffle=True, **loader_kwargs)",
        "val = tud.DataLoader(ds, batch_size=32, shuffle=False)",
    ]
    for line in quiet:
        q = "import torch\nimport torch.utils.data as tud\ntorch.backends.cudnn.benchmark = True\n%s\n" % line
        assert [c for c in codes(q) if c[0] == "TD306"] == [], line
    no_bench = "import torch\nfrom torch.utils.data import DataLoader\nDataLoader(ds, batch_size=8, shuffle=True)\n"
    assert [c for c in codes(no_bench) if c[0] == "TD306"] == []


# -- TD307: cudnn.deterministic = True without use_deterministic_algorithms ---------------------
def test_deterministic_without_algorithms():
    src = "import torch.backends.cudnn as cudnn\nwith cudnn.flags(enabled=True, deterministic=True):\n    pass\n"
    assert [c for c in codes(src) if c[0] == "TD307"] == [("TD307", 2)]
    assert [c for c in codes("import torch\ntorch.backends.cudnn.deterministic = False\n") if c[0] == "TD307"] == []


# -- TD204: the matmul TF32 default changed in 1.12 ---------------------------------------------
def test_tf32_default_changed_only_across_the_change():
    src = "import torch\nprint(torch.backends.cuda.matmul.allow_tf32)\n"
    assert [c for c in codes(src, ">=1.11") if c[0] == "TD204"] == [("TD204", 2)]
    assert [c for c in codes(src, "1.11") if c[0] == "TD204"] == []
    assert [c for c in codes(src, ">=1.12") if c[0] == "TD204"] == []
    for setter in ("torch.backends.cuda.matmul.allow_tf32 = True", "torch.set_float32_matmul_precision('high')"):
        assert [c for c in codes(src + setter + "\n", ">=1.11") if c[0] == "TD204"] == [], setter
    guarded = "import torch\nif torch.__version__ >= '1.12':\n    print(torch.backends.cuda.matmul.allow_tf32)\n"
    assert [c for c in codes(guarded, ">=1.11") if c[0] == "TD204"] == []


# -- TD201: advice that holds in every release of the target -----------------------------------
def test_deprecation_advice_uses_a_name_every_target_has():
    src = "import torch\nwith torch.cuda.amp.autocast():\n    pass\n"
    (h,) = [h for h in scan(src, ">=1.11") if h.code == "TD201"]
    assert 'use torch.autocast("cuda", ...)' in h.message and h.edit is None
    (h,) = [h for h in scan(src, ">=2.4") if h.code == "TD201"]
    assert 'use torch.amp.autocast("cuda", ...)' in h.message
    (h,) = [h for h in scan("import torch\ns = torch.cuda.amp.GradScaler()\n", ">=2.0") if h.code == "TD201"]
    assert "exists only from torch 2.3, not in 2.0 ... 2.2" in h.message
