"""Guards that are guards, and only those: each form that protects an API hides the finding
about that API (and nothing else), a torch version bound hides only the findings about
releases it keeps out, and tests that name something else guard nothing."""

from test_verbs_lint_pyscan import codes, scan


# -- what is not a guard -------------------------------------------------------------------------
def test_a_parameter_called_version_is_not_a_torch_version_bound():
    src = """
        import torch
        def f(version):
            if version >= 2.0:
                ctx = torch.backends.cuda.sdp_kernel()
    """
    assert codes(src, "1.11") == [("TD101", 5)]


def test_a_parameter_named_like_a_module_flag_is_no_guard_in_a_lambda_either():
    src = """
        import torch
        use_compile = hasattr(torch, "compile")
        if use_compile:
            a = torch.compile(f)
        g = lambda use_compile: torch.compile(f) if use_compile else f
        def h(use_compile):
            return torch.compile(f) if use_compile else f
    """
    assert [c for c in codes(src, "1.11") if c[0] == "TD101"] == [("TD101", 6), ("TD101", 8)]


def test_hasattr_of_something_else_does_not_hide_a_removed_api():
    src = """
        import torch
        def f(m):
            if hasattr(m, "x"):
                torch.set_deterministic(True)
            if hasattr(torch, "set_deterministic"):
                torch.set_deterministic(True)
    """
    assert codes(src, "2.1") == [("TD102", 5)]


def test_an_unrelated_attribute_flag_does_not_guard():
    src = """
        import torch
        def f(m):
            if m.has_cache:
                torch.set_deterministic(True)
            if m.use_cache and torch.backends.mps.is_available():
                pass
    """
    assert codes(src, "1.11") == [("TD102", 5), ("TD101", 6)]


def test_hasattr_of_a_parent_module_does_not_guard_a_child_it_does_not_name():
    src = """
        import torch
        if hasattr(torch, "backends"):
            torch.backends.mps.is_available()
    """
    assert codes(src, "1.11") == [("TD101", 4)]


# -- flags followed through assignments ------------------------------------------------------------
def test_assert_of_a_flag_guards_the_rest_of_its_block_only():
    src = """
        import torch
        has_compile = hasattr(torch, "compile")
        ok = has_compile
        def g():
            torch.compile
            assert ok
            torch.compile
        torch.compile
        assert has_compile
        torch.compile
    """
    assert codes(src, "1.13") == [("TD101", 6), ("TD101", 9)]


def test_a_flag_reassigned_to_something_else_no_longer_guards():
    src = """
        import torch
        has_compile = hasattr(torch, "compile")
        has_compile = load_config()
        if has_compile:
            torch.compile
    """
    assert codes(src, "1.13") == [("TD101", 6)]


def test_attribute_flags_and_getattr_defaults():
    src = """
        import torch
        class M:
            def __init__(self):
                self.compile_fn = getattr(torch, "compile", None)
            def run(self):
                if self.compile_fn is not None:
                    return torch.compile(self)
                return "compile" in dir(torch) and torch.compile(self)
    """
    assert codes(src, "1.13") == []


# -- test decorators -------------------------------------------------------------------------------------
def test_pytest_skipif_and_unittest_skips_guard_the_decorated_body():
    src = """
        import torch
        import pytest
        import unittest
        @pytest.mark.skipif(not hasattr(torch, "compile"), reason="needs torch.compile")
        def test_x():
            torch.compile(test_x)
        @unittest.skipUnless(hasattr(torch, "compile"), "needs torch.compile")
        class T(unittest.TestCase):
            def test_y(self):
                torch.compile(self)
        @unittest.skipIf(hasattr(torch, "compile"), "the old path")
        def test_z():
            torch.compile(test_z)
        @pytest.mark.skipif(not hasattr(torch, "compile"), reason="x")
        def test_w():
            torch.set_deterministic(True)
    """
    assert codes(src, ">=1.13") == [("TD101", 14), ("TD102", 17)]
    # on 1.13 alone test_w never runs: nothing in it is reported
    assert codes(src, "1.13") == [("TD101", 14)]


def test_pytest_skip_ends_the_block():
    src = """
        import torch
        def test_x():
            if not hasattr(torch, "compile"):
                pytest.skip("no torch.compile")
            torch.compile(test_x)
    """
    assert codes(src, "1.13") == []


# -- torch version bounds -------------------------------------------------------------------------------
def test_a_version_bound_hides_only_the_releases_it_keeps_out():
    src = """
        import torch
        torch_version = tuple(int(x) for x in torch.__version__.split(".")[:2])
        if torch_version >= (2, 3):
            ctx = torch.backends.cuda.sdp_kernel()
    """
    # not yet added before 1.13: kept out; deprecated from 2.3: inside the range, still reported
    got = scan(src, ">=1.11")
    assert [(h.code, h.line) for h in got] == [("TD201", 5)]
    assert "2.3" in got[0].message


def test_a_bound_below_the_deprecation_does_not_hide_it():
    src = """
        import torch
        from packaging import version
        if version.parse(torch.__version__) >= version.parse("2.0"):
            ctx = torch.backends.cuda.sdp_kernel()
        if version.parse(torch.__version__) < version.parse("2.3"):
            ctx = torch.backends.cuda.sdp_kernel()
        else:
            from torch.nn.attention import sdpa_kernel
    """
    assert codes(src, ">=2.0") == [("TD201", 5)]


def test_version_forms_names_and_majors():
    src = """
        import torch
        from detectron2.utils.env import TORCH_VERSION
        if TORCH_VERSION >= (1, 12):
            torch.backends.mps.is_available()
        if int(torch.__version__.split(".")[0]) >= 2:
            torch.compile
        if torch.__version__ >= "2.0":
            torch.compile
        if _TORCH_GREATER_EQUAL_2_0:
            torch.compile
        if is_torch_version(">=", "2.0"):
            torch.compile
        if int(torch.__version__[0]) > 1:
            torch.compile
        if torch.__version__ < "2.0":
            pass
        else:
            torch.compile
    """
    assert codes(src, ">=1.11") == []
    # the same bounds on the wrong side fire
    assert codes("import torch\nif torch.__version__ < '2.0':\n    torch.compile\n", ">=1.11") == [("TD101", 3)]
    assert codes("import torch\nif _TORCH_LESS_THAN_2_0:\n    torch.compile\n", ">=1.11") == [("TD101", 3)]


def test_the_else_of_a_hasattr_runs_only_on_releases_without_the_api():
    src = """
        import torch
        if hasattr(torch.nn.attention, "sdpa_kernel"):
            from torch.nn.attention import sdpa_kernel
        else:
            ctx = torch.backends.cuda.sdp_kernel()
    """
    assert codes(src, ">=2.0") == []
    # in the branch where the API exists, its absence is not reported; the else-branch of a
    # hasattr names nothing
    src2 = """
        import torch
        if not hasattr(torch, "compile"):
            torch.compile
    """
    assert codes(src2, ">=1.13") == [("TD101", 4)]


def test_no_sdpa_rewrite_inside_a_version_bound():
    # sdpa_kernel would be imported at the top of the module, on every release: no rewrite
    src = """
        import torch
        if torch.__version__ >= "2.3":
            ctx = torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False, enable_mem_efficient=False)
    """
    (h,) = scan(src, ">=2.0")
    assert h.code == "TD201" and h.edit is None


# -- what guards hid, for --show-suppressed ---------------------------------------------------------------
def test_suppressed_findings_carry_their_guard():
    from torchdoctor.verbs.lint import pyscan
    from torchdoctor.verbs.lint.target import from_option
    src = ("import torch\n"
           "if hasattr(torch, 'compile'):\n"
           "    torch.compile\n"
           "if torch.__version__ >= '2.3':\n"
           "    ctx = torch.backends.cuda.sdp_kernel()\n")
    hidden = []
    found = pyscan.analyze_text(src, from_option(">=1.11").versions, None, hidden)
    assert [(h.code, h.line) for h in found] == [("TD201", 5)]
    got = {(h.code, h.line): h.suppressed for h in hidden}
    assert set(got) == {("TD101", 3), ("TD101", 5)}
    assert "line 2" in got[("TD101", 3)] and "names torch.compile" in got[("TD101", 3)]
    assert "line 4" in got[("TD101", 5)] and ">=2.3" in got[("TD101", 5)]


def test_forms_seen_in_real_repositories():
    """detectron2: `min_torch_version("2.6.0") and torch.compiler...`; Fooocus: `try: ... except: pass`
    around a test of torch.backends.mps; pytorch/examples: `if self.config.use_amp:` is what the
    user asked for, not a check that torch.amp exists."""
    src = """
        import torch
        if min_torch_version("2.6.0") and torch.compiler.is_compiling():
            pass
        try:
            if torch.backends.mps.is_available():
                import torch.mps
        except:
            pass
        class Trainer:
            def __init__(self, config):
                if config.use_amp:
                    self.scaler = torch.amp.GradScaler("cuda")
    """
    assert codes(src, ">=1.11") == [("TD101", 13)]


def test_a_flag_set_true_under_a_version_check_carries_it():
    """generative-models: `SDP_IS_AVAILABLE = True` beside the import, under the version check."""
    src = """
        import torch
        from packaging import version
        if version.parse(torch.__version__) >= version.parse("2.0.0"):
            SDP_OK = True
        else:
            SDP_OK = False
        def attend(q):
            if SDP_OK:
                return torch.nn.functional.scaled_dot_product_attention(q, q, q)
            return torch.compile
    """
    assert codes(src, ">=1.13") == [("TD101", 11)]


def test_a_name_with_a_fallback_import_is_neither_ones_at_its_uses():
    # timm's form: torch.vmap where torch has it, functorch's only where it does not (< 2.0,
    # where functorch is not deprecated): the call is not functorch.vmap's for certain
    src = """
        import torch
        try:
            from torch import vmap
        except ImportError:
            from functorch import vmap
        y = vmap(torch.sin)(x)
    """
    assert codes(src, ">=1.8") == []
    # a plain import of it is still functorch's at every use
    assert codes("import torch\nfrom functorch import vmap\ny = vmap(torch.sin)(x)\n", ">=1.8") == [
        ("TD201", 2), ("TD201", 3)]
