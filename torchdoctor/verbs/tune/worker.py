"""torchdoctor tune, the measuring side. Runs *inside the interpreter being tuned*.

It imports torch, so it never runs in torchdoctor's own process: the parent starts
it as a script in a child of the target interpreter (``--python``), with a budget.
Constraints, as for the probe: standard library plus torch, Python 3.8 syntax.

Every result is appended to the output file as one JSON line the moment it exists
(the plan, each setting's drift check, each timed block), so when the model raises,
hangs past the budget or segfaults, the parent keeps everything measured before and
knows the stage that was running. The parent kills the process group at the deadline;
this side plans its work to end before it.

argv: OUT.jsonl CONFIG-JSON
"""

import json
import os
import random
import sys
import time
import traceback

SEED = 0
TIMER_OVERHEAD_S = 0.02  # per timed block: Timer set-up, block-size estimate, apply/undo
MIN_SLICE_S = 0.02
MAX_SLICE_S = 1.0
TARGET_ROUNDS = 6
MIN_ROUNDS = 2
MAX_ROUNDS = 50  # more interleaved rounds than this add little; the rest of the budget is left
VARYING_PER_BLOCK = 4

SIZES = {
    # name: {workload: dims}
    "tiny": {"convnet": dict(n=2, c=8, hw=16), "attention": dict(b=2, s=32, d=32, h=2),
             "matmul": dict(n=128), "lstm": dict(b=2, t=8, i=16, h=32, layers=1)},
    "small": {"convnet": dict(n=4, c=16, hw=32), "attention": dict(b=4, s=128, d=64, h=4),
              "matmul": dict(n=512), "lstm": dict(b=8, t=32, i=64, h=128, layers=2)},
    "large": {"convnet": dict(n=32, c=64, hw=128), "attention": dict(b=8, s=1024, d=1024, h=16),
              "matmul": dict(n=4096), "lstm": dict(b=64, t=128, i=512, h=1024, layers=2)},
}
BUILTIN = ("convnet", "attention", "matmul", "lstm")
# What the built-ins call (as detect_ops reports it): --list-settings plans them without a run.
BUILTIN_OPS = {"convnet": ["adaptive_avg_pool2d", "batch_norm", "conv2d", "linear", "max_pool2d", "relu"],
               "attention": ["layer_norm", "linear", "scaled_dot_product_attention"],
               "matmul": ["matmul"], "lstm": ["lstm"]}
OP_NEEDS = {
    "conv1d": ("conv",), "conv2d": ("conv", "conv2d"), "conv3d": ("conv",),
    "conv_transpose1d": ("conv",), "conv_transpose2d": ("conv", "conv2d"), "conv_transpose3d": ("conv",),
    # RNNs multiply matrices inside (float32_matmul_precision reaches them), unseen by the mode.
    "lstm": ("rnn", "matmul"), "gru": ("rnn", "matmul"), "rnn_tanh": ("rnn", "matmul"), "rnn_relu": ("rnn", "matmul"),
    "matmul": ("matmul",), "mm": ("matmul",), "bmm": ("matmul",), "linear": ("matmul",),
    "addmm": ("matmul",), "baddbmm": ("matmul",), "einsum": ("matmul",), "mv": ("matmul",),
    "addmv": ("matmul",), "addbmm": ("matmul",), "__matmul__": ("matmul",),
    "scaled_dot_product_attention": ("sdpa", "matmul"),
    "multi_head_attention_forward": ("matmul", "sdpa"),
}
NEED_WORDS = {"conv": "convolution", "conv2d": "2-d convolution", "rnn": "RNN/LSTM/GRU",
              "matmul": "matrix multiplication", "sdpa": "scaled_dot_product_attention"}
CHECK_SHARE = 0.6  # of a workload's time: the drift checks stop there, timing gets the rest


# ------------------------------------------------------------------ output --
def _clean(v):
    if isinstance(v, float):
        if v != v or v in (float("inf"), float("-inf")):
            return str(v)
        return v
    if isinstance(v, dict):
        return dict((str(k), _clean(x)) for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    if v is None or isinstance(v, (bool, int, str)):
        return v
    return str(v)


class Out(object):
    """One JSON object per line; os.write hands each line to the kernel at once, so a
    segfault or SIGKILL right after loses nothing written before it."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def rec(self, rtype, **data):
        data["type"] = rtype
        data["t"] = round(time.time(), 3)
        line = json.dumps(_clean(data), ensure_ascii=True, allow_nan=False) + "\n"
        os.write(self.fd, line.encode("ascii"))

    def stage(self, what, **data):
        self.rec("stage", what=what, **data)


def describe_error(exc):
    """'Type: message' and the innermost frame outside torch and this file."""
    text = ("%s: %s" % (type(exc).__name__, exc)).strip()
    tb = traceback.extract_tb(exc.__traceback__)
    here = os.path.abspath(__file__)
    torch_dir = os.path.dirname(os.path.abspath(sys.modules["torch"].__file__)) if "torch" in sys.modules \
        and getattr(sys.modules["torch"], "__file__", None) else None
    where = None
    for fr in reversed(tb):
        f = os.path.abspath(fr.filename)
        if f == here or (torch_dir and f.startswith(torch_dir + os.sep)):
            continue
        where = "%s:%d in %s" % (fr.filename, fr.lineno, fr.name)
        break
    if where is None and tb:
        fr = tb[-1]
        where = "%s:%d in %s" % (fr.filename, fr.lineno, fr.name)
    return {"error": text[:2000], "exception": type(exc).__name__, "where": where}


class Fatal(Exception):
    def __init__(self, kind, info):
        Exception.__init__(self, kind)
        self.kind, self.info = kind, info


# ------------------------------------------------------------------ clock --
class Clock(object):
    def __init__(self, deadline, reserve):
        self.deadline = float(deadline)
        self.reserve = float(reserve)
        self.ppid = os.getppid()

    def left(self):
        if os.getppid() != self.ppid:  # the doctor is gone: nobody reads this any more
            os._exit(4)
        return self.deadline - self.reserve - time.time()


# --------------------------------------------------------------- settings --
class Setting(object):
    """One configuration: how to turn it on (``enter``: mutates global flags, undone by
    restoring a snapshot), what to wrap the forward in (``context``), and the rest."""

    def __init__(self, sid, family, label, code, group=None, needs=None, reference="default",
                 enter=None, context=None, grad_context=None, layout=None, threads=None,
                 varying=False, role=None, api=None, status="planned", reason=None):
        self.id, self.family, self.label, self.code = sid, family, label, code
        self.group, self.needs, self.reference = group, needs, reference
        self.enter, self.context, self.grad_context = enter, context, grad_context
        self.layout, self.threads, self.varying, self.role = layout, threads, varying, role
        self.api, self.status, self.reason = api, status, reason

    def plan(self):
        return {"id": self.id, "family": self.family, "label": self.label, "code": self.code,
                "group": self.group, "reference": self.reference, "role": self.role, "api": self.api,
                "status": self.status, "reason": self.reason, "varying_shapes": self.varying,
                "needs": sorted(self.needs) if self.needs else None}


def _get(obj, path):
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def _has(obj, path):
    try:
        _get(obj, path)
        return True
    except Exception:  # noqa: BLE001 - a property that raises counts as absent
        return False


class State(object):
    """The global flags a setting may change: snapshot them before, restore after, and
    notice a setting (or a model) that leaves one changed."""

    def __init__(self, torch):
        self.torch = torch
        t = torch
        items = [("threads", t.get_num_threads, t.set_num_threads)]
        if hasattr(t, "get_float32_matmul_precision"):
            items.append(("float32_matmul_precision", t.get_float32_matmul_precision,
                          t.set_float32_matmul_precision))
        for path in ("backends.fp32_precision", "backends.cuda.matmul.fp32_precision",
                     "backends.cudnn.fp32_precision", "backends.cudnn.conv.fp32_precision",
                     "backends.cudnn.rnn.fp32_precision", "backends.mkldnn.fp32_precision",
                     "backends.mkldnn.matmul.fp32_precision", "backends.mkldnn.conv.fp32_precision",
                     "backends.mkldnn.rnn.fp32_precision"):
            if _has(t, path):
                items.append(self._attr(path))
        if not fp32_api(t, "matmul") and _has(t, "backends.cuda.matmul.allow_tf32"):
            items.append(self._attr("backends.cuda.matmul.allow_tf32"))
        if not fp32_api(t, "conv") and _has(t, "backends.cudnn.allow_tf32"):
            items.append(self._attr("backends.cudnn.allow_tf32"))
        for path in ("backends.cudnn.enabled", "backends.cudnn.benchmark", "backends.cudnn.deterministic",
                     "backends.mkldnn.enabled", "backends.mkldnn.deterministic"):
            if _has(t, path):
                items.append(self._attr(path))
        if hasattr(t, "are_deterministic_algorithms_enabled"):
            warn = getattr(t, "is_deterministic_algorithms_warn_only_enabled", lambda: False)
            items.append(("deterministic_algorithms",
                          lambda: (bool(t.are_deterministic_algorithms_enabled()), bool(warn())),
                          lambda v: set_deterministic(t, v[0], v[1])))
        self.items = items

    def _attr(self, path):
        head, _, name = path.rpartition(".")
        obj = _get(self.torch, head)
        return (path.replace("backends.", "", 1), lambda: getattr(obj, name), lambda v: setattr(obj, name, v))

    def snapshot(self):
        snap = {}
        for key, get, _ in self.items:
            try:
                snap[key] = get()
            except Exception:  # noqa: BLE001
                pass
        return snap

    def restore(self, snap):
        """Put every flag back, in table order (the precision call before the
        fp32_precision attributes it also sets). Returns the keys that could not be
        put back (a setter that raises or a value that does not stick)."""
        for key, get, put in self.items:
            if key not in snap:
                continue
            try:
                if get() != snap[key]:
                    put(snap[key])
            except Exception:  # noqa: BLE001
                pass
        return self.differs(snap)

    def differs(self, snap):
        now = self.snapshot()
        return [k for k in snap if now.get(k) != snap[k]]


def set_deterministic(torch, mode, warn_only=False):
    """What torch.use_deterministic_algorithms does for eager code, without the import of
    torch._inductor.config it makes to set inductor's flag too (2.x; seconds on a loaded
    machine, and only torch.compile reads that flag)."""
    c_set = getattr(torch._C, "_set_deterministic_algorithms", None)
    if c_set is not None:
        try:
            c_set(mode, warn_only=warn_only)
            return
        except TypeError:  # an older signature
            pass
    torch.use_deterministic_algorithms(mode, warn_only=warn_only)


def fp32_api(torch, what):
    """Whether this build has the 2.9+ fp32_precision API for `what` (matmul or conv)."""
    if what == "matmul":
        return _has(torch, "backends.cuda.matmul.fp32_precision")
    return _has(torch, "backends.cudnn.conv.fp32_precision")


def _setter(obj_path, name, value):
    def enter(torch):
        setattr(_get(torch, obj_path), name, value)
    return enter


def _call(fn_name, *args, **kw):
    def enter(torch):
        getattr(torch, fn_name)(*args, **kw)
    return enter


def thread_settings(torch, cores):
    default = torch.get_num_threads()
    phys, logical = cores.get("physical") or 0, cores.get("logical") or 0
    wanted = [(1, "1 thread")]
    if phys:
        wanted.append((phys, "physical cores"))
    if logical:
        wanted.append((logical, "logical cores"))
    seen = {}
    for n, why in wanted:
        seen.setdefault(n, []).append(why)
    out = []
    for n in sorted(seen):
        why = seen[n]
        label = "threads=%d" % n + ("" if why == ["1 thread"] else " (%s)" % " = ".join(why))
        s = Setting("threads=%d" % n, "threads", label, "torch.set_num_threads(%d)" % n, group="threads",
                    threads=n, enter=_call("set_num_threads", n))
        if n == default:
            s.status, s.reason = "same_as_default", "torch already uses %d thread%s here" % (default, "" if default == 1 else "s")
        out.append(s)
    return out


def precision_settings(torch, device, env):
    out = []
    if not hasattr(torch, "set_float32_matmul_precision"):
        out.append(Setting("float32_matmul_precision", "float32_matmul_precision",
                           "torch.set_float32_matmul_precision", "", status="unsupported",
                           reason="this torch has no set_float32_matmul_precision (added in 1.12)"))
        return out
    current = torch.get_float32_matmul_precision()
    for p in ("high", "medium"):
        s = Setting("float32_matmul_precision=%s" % p, "float32_matmul_precision",
                    'float32_matmul_precision="%s"' % p, 'torch.set_float32_matmul_precision("%s")' % p,
                    group="matmul-precision", needs={"matmul"}, enter=_call("set_float32_matmul_precision", p))
        if p == current:
            s.status, s.reason = "same_as_default", "already the current precision"
        elif device == "cpu" and p == "medium" and env.get("cpu_bf16") is False:
            s.status, s.reason = "not_applicable", "this CPU has no bf16 matmul path (oneDNN reports no bf16 support)"
        out.append(s)
    return out


def deterministic_setting(torch):
    if not hasattr(torch, "use_deterministic_algorithms"):
        return Setting("deterministic_algorithms", "deterministic_algorithms", "use_deterministic_algorithms(True)",
                       "", status="unsupported", reason="this torch has no use_deterministic_algorithms (1.8+)")
    s = Setting("deterministic_algorithms", "deterministic_algorithms", "use_deterministic_algorithms(True)",
                "torch.use_deterministic_algorithms(True)", enter=lambda t: set_deterministic(t, True))
    if torch.are_deterministic_algorithms_enabled():
        s.status, s.reason = "same_as_default", "already enabled"
    return s


def channels_last_setting(torch):
    return Setting("channels_last", "channels_last", "channels_last memory format",
                   "model = model.to(memory_format=torch.channels_last)\n"
                   "x = x.to(memory_format=torch.channels_last)", needs={"conv2d"}, layout="channels_last")


def autocast_settings(torch, device, env):
    out = []
    for name in ("bf16", "fp16"):
        dtype = torch.bfloat16 if name == "bf16" else torch.float16
        sid = "autocast=%s" % name
        code = 'with torch.autocast("%s", dtype=torch.%s):\n    out = model(x)' % (
            device, "bfloat16" if name == "bf16" else "float16")
        s = Setting(sid, "autocast", "autocast %s" % name, code, group="autocast",
                    context=_autocast(torch, device, dtype))
        if not hasattr(torch, "autocast"):
            s.status, s.reason, s.context = "unsupported", "this torch has no torch.autocast (1.10+)", None
        elif device == "cuda" and name == "bf16" and not env.get("cuda_bf16"):
            s.status, s.reason = "not_applicable", "this GPU has no bf16 support (torch.cuda.is_bf16_supported() is False)"
        elif device == "mps":
            try:
                with torch.autocast("mps", dtype=dtype):
                    pass
            except Exception as e:  # noqa: BLE001
                s.status, s.reason = "unsupported", "autocast(\"mps\", %s) is not available: %s" % (name, e)
        out.append(s)
    return out


def _autocast(torch, device, dtype):
    def ctx():
        return torch.autocast(device, dtype=dtype)
    return ctx


def sdpa_settings(torch, half):
    """One setting per SDPA backend, each under autocast to the half dtype (flash and
    cuDNN attention take only fp16/bf16), measured against autocast with the default
    dispatch."""
    names = [("flash", "FLASH_ATTENTION", "enable_flash"), ("efficient", "EFFICIENT_ATTENTION", "enable_mem_efficient"),
             ("cudnn", "CUDNN_ATTENTION", None), ("math", "MATH", "enable_math")]
    out = []
    attention = None
    try:
        import torch.nn.attention as attention  # noqa: F811 - 2.3+
        api = "torch.nn.attention.sdpa_kernel"
    except Exception:  # noqa: BLE001
        api = "torch.backends.cuda.sdp_kernel" if hasattr(torch.backends.cuda, "sdp_kernel") else None
    dtype = torch.bfloat16 if half == "bf16" else torch.float16
    for short, enum_name, legacy_kw in names:
        sid = "sdpa=%s" % short
        label = "SDPA backend %s (under autocast %s)" % (short, half)
        if api == "torch.nn.attention.sdpa_kernel":
            code = ("from torch.nn.attention import sdpa_kernel, SDPBackend\n"
                    "with sdpa_kernel(SDPBackend.%s):\n    out = model(x)" % enum_name)
        else:
            code = "with torch.backends.cuda.sdp_kernel(%s):\n    out = model(x)" % ", ".join(
                "%s=%s" % (kw, kw == legacy_kw) for _, _, kw in names if kw)
        s = Setting(sid, "sdpa", label, code, group="sdpa", needs={"sdpa"}, reference="autocast=%s" % half,
                    api=api)
        backend = getattr(getattr(attention, "SDPBackend", None), enum_name, None) if attention else None
        if api is None:
            s.status, s.reason = "unsupported", "this torch has no SDPA backend selection (1.13+)"
        elif api == "torch.nn.attention.sdpa_kernel" and backend is None:
            s.status, s.reason = "unsupported", "this torch has no SDPBackend.%s" % enum_name
        elif api != "torch.nn.attention.sdpa_kernel" and legacy_kw is None:
            s.status, s.reason = "unsupported", "cuDNN attention needs torch.nn.attention (2.3+)"
        else:
            s.context = _sdpa_ctx(torch, attention, backend, legacy_kw, names, dtype)
        out.append(s)
    return out


def _sdpa_ctx(torch, attention, backend, legacy_kw, names, dtype):
    import contextlib

    def ctx():
        stack = contextlib.ExitStack()
        stack.enter_context(torch.autocast("cuda", dtype=dtype))
        if attention is not None and backend is not None:
            stack.enter_context(attention.sdpa_kernel(backend))
        else:
            stack.enter_context(torch.backends.cuda.sdp_kernel(**dict(
                (kw, kw == legacy_kw) for _, _, kw in names if kw)))
        return stack
    return ctx


def cuda_settings(torch, env, varying_ok):
    out = []
    cudnn_ok = bool(env.get("cudnn_version"))
    cudnn_needs = {"conv", "rnn"}
    if cudnn_ok:
        cd = torch.backends.cudnn
        if not cd.benchmark:
            out.append(Setting("cudnn.benchmark=True", "cudnn.benchmark", "cudnn.benchmark=True (fixed shapes)",
                               "torch.backends.cudnn.benchmark = True", needs=cudnn_needs,
                               enter=_setter("backends.cudnn", "benchmark", True)))
        if varying_ok:
            out.append(Setting("varying:cudnn.benchmark=False", "cudnn.benchmark",
                               "cudnn.benchmark=False (varying shapes)", "torch.backends.cudnn.benchmark = False",
                               needs=cudnn_needs, varying=True, role="reference", reference=None,
                               enter=_setter("backends.cudnn", "benchmark", False)))
            out.append(Setting("varying:cudnn.benchmark=True", "cudnn.benchmark",
                               "cudnn.benchmark=True (varying shapes)", "torch.backends.cudnn.benchmark = True",
                               needs=cudnn_needs, varying=True, reference="varying:cudnn.benchmark=False",
                               enter=_setter("backends.cudnn", "benchmark", True)))
        if not cd.deterministic:
            out.append(Setting("cudnn.deterministic=True", "cudnn.deterministic", "cudnn.deterministic=True",
                               "torch.backends.cudnn.deterministic = True", needs=cudnn_needs,
                               enter=_setter("backends.cudnn", "deterministic", True)))
        if cd.enabled:
            out.append(Setting("cudnn.enabled=False", "cudnn.enabled", "cudnn.enabled=False",
                               "torch.backends.cudnn.enabled = False", needs=cudnn_needs,
                               enter=_setter("backends.cudnn", "enabled", False)))
    else:
        out.append(Setting("cudnn", "cudnn.benchmark", "cuDNN settings", "", status="unsupported",
                           reason="cuDNN is not available in this torch (torch.backends.cudnn.is_available() is False)"))
    out.extend(tf32_settings(torch, env))
    out.extend(precision_settings(torch, "cuda", env))
    half = "bf16" if env.get("cuda_bf16") else "fp16"
    out.extend(sdpa_settings(torch, half))
    out.append(channels_last_setting(torch))
    out.extend(autocast_settings(torch, "cuda", env))
    return out


def tf32_settings(torch, env):
    out = []
    cap = env.get("capability") or [0, 0]
    ampere = tuple(cap) >= (8, 0)
    for what in ("matmul", "conv"):
        new = fp32_api(torch, what)
        if what == "matmul":
            obj, legacy, needs = "backends.cuda.matmul", "allow_tf32", {"matmul"}
            on = (_get(torch, obj + ".fp32_precision") == "tf32") if new else bool(_get(torch, obj + ".allow_tf32"))
        else:
            obj, legacy, needs = ("backends.cudnn.conv" if new else "backends.cudnn"), "allow_tf32", {"conv", "rnn"} \
                if not new else {"conv"}
            on = (_get(torch, obj + ".fp32_precision") == "tf32") if new else bool(_get(torch, obj + ".allow_tf32"))
        target = not on
        sid = "tf32.%s=%s" % (what, "on" if target else "off")
        py_obj = "torch." + obj
        if new:
            value = "tf32" if target else "ieee"
            code = '%s.fp32_precision = "%s"' % (py_obj, value)
            enter, api = _setter(obj, "fp32_precision", value), "fp32_precision (2.9+)"
        else:
            code = "%s.%s = %s" % (py_obj, legacy, target)
            enter, api = _setter(obj, legacy, target), "allow_tf32 (legacy flag)"
        label = "TF32 %s %s" % (what, "on" if target else "off")
        s = Setting(sid, "tf32." + what, label, code, group=None, needs=needs, enter=enter, api=api)
        if not ampere:
            s.status, s.reason = "not_applicable", "TF32 needs an Ampere (sm_80) or newer GPU; this one is sm_%d%d" % tuple(cap[:2])
        out.append(s)
    return out


def mps_settings(torch, env):
    out = precision_settings(torch, "mps", env)
    out.extend(autocast_settings(torch, "mps", env))
    fallback = os.environ.get("PYTORCH_ENABLE_MPS_FALLBACK")
    out.append(Setting("PYTORCH_ENABLE_MPS_FALLBACK", "mps_fallback", "PYTORCH_ENABLE_MPS_FALLBACK=1",
                       "# in the shell, before Python starts:\nexport PYTORCH_ENABLE_MPS_FALLBACK=1",
                       status="not_measurable",
                       reason="read once when torch starts, so it cannot be switched in a running process; "
                              "here it is %s" % ("set to %r" % fallback if fallback is not None else "unset")))
    return out


def cpu_settings(torch, env, cores, mode):
    out = thread_settings(torch, cores)
    if _has(torch, "backends.mkldnn.enabled") and torch.backends.mkldnn.is_available():
        s = Setting("mkldnn.enabled=False", "mkldnn.enabled", "oneDNN off (mkldnn.enabled=False)",
                    "torch.backends.mkldnn.enabled = False", enter=_setter("backends.mkldnn", "enabled", False))
        if not torch.backends.mkldnn.enabled:
            s.status, s.reason = "same_as_default", "oneDNN is already disabled"
        out.append(s)
    else:
        out.append(Setting("mkldnn.enabled=False", "mkldnn.enabled", "oneDNN off", "", status="unsupported",
                           reason="this torch is built without oneDNN (torch.backends.mkldnn.is_available() is False)"))
    out.extend(precision_settings(torch, "cpu", env))
    out.append(channels_last_setting(torch))
    out.append(deterministic_setting(torch))
    s = Setting("inference_mode", "inference_mode", "inference_mode instead of no_grad",
                "with torch.inference_mode():\n    out = model(x)", grad_context="inference_mode")
    if mode != "infer":
        s.status, s.reason = "not_applicable", "only for --mode infer"
    elif not hasattr(torch, "inference_mode"):
        s.status, s.reason = "unsupported", "this torch has no torch.inference_mode (1.9+)"
    out.append(s)
    return out


def default_setting(torch, device):
    return Setting("default", "default", "default settings", "", role="default", reference=None,
                   threads=torch.get_num_threads())


def strict_enter(torch, device):
    """fp32, no TF32, deterministic algorithms (warn only: a missing deterministic kernel
    must not stop the baseline), cuDNN deterministic without benchmark, math SDPA."""
    def enter(t):
        if hasattr(t, "set_float32_matmul_precision"):
            t.set_float32_matmul_precision("highest")
        if device == "cuda":
            if fp32_api(t, "matmul"):
                t.backends.cuda.matmul.fp32_precision = "ieee"
            elif _has(t, "backends.cuda.matmul.allow_tf32"):
                t.backends.cuda.matmul.allow_tf32 = False
            if fp32_api(t, "conv"):
                t.backends.cudnn.conv.fp32_precision = "ieee"
                if _has(t, "backends.cudnn.rnn.fp32_precision"):
                    t.backends.cudnn.rnn.fp32_precision = "ieee"
            elif _has(t, "backends.cudnn.allow_tf32"):
                t.backends.cudnn.allow_tf32 = False
            if _has(t, "backends.cudnn.deterministic"):
                t.backends.cudnn.deterministic = True
                t.backends.cudnn.benchmark = False
        if hasattr(t, "use_deterministic_algorithms"):
            set_deterministic(t, True, warn_only=True)
    return enter


def strict_context(torch, device):
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except Exception:  # noqa: BLE001
        return None
    return lambda: sdpa_kernel(SDPBackend.MATH)


# -------------------------------------------------------------- workloads --
class Workload(object):
    def __init__(self, name, description, model, args, kwargs, ops=None, builtin=True, shape_fn=None,
                 input_desc=""):
        self.name, self.description = name, description
        self.model, self.args, self.kwargs = model, args, kwargs
        self.ops, self.builtin, self.shape_fn, self.input_desc = ops, builtin, shape_fn, input_desc


def build_builtin(torch, name, dims, device):
    nn = torch.nn
    gen = torch.Generator().manual_seed(SEED)

    def randn(*shape):
        return torch.randn(*shape, generator=gen).to(device)

    torch.manual_seed(SEED)
    if name == "convnet":
        c = dims["c"]

        def block(cin, cout):
            return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]
        layers = block(3, c) + block(c, c) + [nn.MaxPool2d(2)] + block(c, 2 * c) + block(2 * c, 2 * c) + \
            [nn.MaxPool2d(2)] + block(2 * c, 4 * c) + [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4 * c, 10)]
        model = nn.Sequential(*layers).to(device)
        n, hw = dims["n"], dims["hw"]

        def shape_fn(nn_, hw_):  # made on the device: a host-side randn would dilute what is timed
            return torch.randn(nn_, 3, hw_, hw_, device=device)
        return Workload(name, "5 conv3x3/BatchNorm/ReLU blocks, 2 max-pools, a linear head", model,
                        (randn(n, 3, hw, hw),), {}, shape_fn=(shape_fn, n, hw),
                        input_desc="%dx3x%dx%d" % (n, hw, hw))
    if name == "attention":
        b, s, d, h = dims["b"], dims["s"], dims["d"], dims["h"]

        class Attention(nn.Module):
            def __init__(self):
                nn.Module.__init__(self)
                self.norm = nn.LayerNorm(d)
                self.qkv = nn.Linear(d, 3 * d)
                self.proj = nn.Linear(d, d)

            def forward(self, x):
                q, k, v = self.qkv(self.norm(x)).view(b, s, 3, h, d // h).permute(2, 0, 3, 1, 4)
                y = torch.nn.functional.scaled_dot_product_attention(q, k, v)
                return x + self.proj(y.transpose(1, 2).reshape(b, s, d))
        return Workload(name, "pre-norm self-attention block: LayerNorm, QKV projection, "
                              "scaled_dot_product_attention (%d heads), output projection" % h,
                        Attention().to(device), (randn(b, s, d),), {}, input_desc="%dx%dx%d" % (b, s, d))
    if name == "matmul":
        n = dims["n"]

        class MatMul(nn.Module):
            def __init__(self):
                nn.Module.__init__(self)
                self.weight = nn.Parameter(torch.randn(n, n, generator=gen) / n ** 0.5)

            def forward(self, x):
                return x @ self.weight
        return Workload(name, "one %dx%d @ %dx%d float32 matmul" % (n, n, n, n), MatMul().to(device),
                        (randn(n, n),), {}, input_desc="%dx%d" % (n, n))
    if name == "lstm":
        lstm = nn.LSTM(dims["i"], dims["h"], num_layers=dims["layers"], batch_first=True).to(device)
        return Workload(name, "%d-layer LSTM, %d inputs, %d hidden, %d steps" % (
            dims["layers"], dims["i"], dims["h"], dims["t"]), lstm, (randn(dims["b"], dims["t"], dims["i"]),), {},
            input_desc="%dx%dx%d" % (dims["b"], dims["t"], dims["i"]))
    raise ValueError("unknown workload %s" % name)


def load_callable(spec, what):
    """MODULE:CALLABLE, MODULE a dotted name or a .py path. A spec that names nothing
    is a usage error (kind 'spec'); an exception inside the user's code is not."""
    import importlib
    mod_name, _, attr = spec.partition(":")
    if mod_name.endswith(".py") or os.sep in mod_name or (os.altsep and os.altsep in mod_name):
        path = os.path.abspath(mod_name)
        if not os.path.isfile(path):
            raise Fatal("spec", {"error": "%s %s: no such file %s" % (what, spec, mod_name)})
        import importlib.util
        name = "_torchdoctor_user_" + os.path.splitext(os.path.basename(path))[0]
        sp = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(sp)
        sys.modules[name] = module
        d = os.path.dirname(path)
        if d not in sys.path:
            sys.path.insert(0, d)
        try:
            sp.loader.exec_module(module)
        except Exception as e:  # noqa: BLE001
            raise Fatal("model_error", dict(describe_error(e), stage="import %s" % mod_name))
    else:
        try:
            module = importlib.import_module(mod_name)
        except ModuleNotFoundError as e:
            if e.name and (mod_name == e.name or mod_name.startswith(e.name + ".")):
                raise Fatal("spec", {"error": "%s %s: no module named %s (run from the folder that holds it, "
                                              "or give a .py path)" % (what, spec, e.name)})
            raise Fatal("model_error", dict(describe_error(e), stage="import %s" % mod_name))
        except Exception as e:  # noqa: BLE001
            raise Fatal("model_error", dict(describe_error(e), stage="import %s" % mod_name))
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise Fatal("spec", {"error": "%s %s: %s has no attribute %r" % (what, spec, mod_name, part)})
        obj = getattr(obj, part)
    if not callable(obj):
        raise Fatal("spec", {"error": "%s %s: %s is not callable" % (what, spec, attr)})
    return obj


def to_device(torch, obj, device):
    if isinstance(obj, torch.Tensor):
        return obj.to(device)
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_device(torch, x, device) for x in obj) if not hasattr(obj, "_fields") \
            else type(obj)(*[to_device(torch, x, device) for x in obj])
    if isinstance(obj, dict):
        return dict((k, to_device(torch, v, device)) for k, v in obj.items())
    return obj


def build_user(torch, cfg, device, out):
    spec = cfg["model"]
    out.stage("load model %s" % spec, calls_model=True)
    factory = load_callable(spec, "--model")
    torch.manual_seed(SEED)
    try:
        model = factory()
    except Exception as e:  # noqa: BLE001
        raise Fatal("model_error", dict(describe_error(e), stage="build model (%s())" % spec))
    if not callable(model):
        raise Fatal("spec", {"error": "--model %s returned %s, not a model (return an nn.Module or another "
                                      "callable)" % (spec, type(model).__name__)})
    if cfg.get("inputs"):
        make = load_callable(cfg["inputs"], "--inputs")
        try:
            raw = make()
        except Exception as e:  # noqa: BLE001
            raise Fatal("model_error", dict(describe_error(e), stage="build inputs (%s())" % cfg["inputs"]))
        if isinstance(raw, torch.Tensor):
            args, kwargs = (raw,), {}
        elif isinstance(raw, dict):
            args, kwargs = (), raw
        elif isinstance(raw, (list, tuple)):
            args, kwargs = tuple(raw), {}
        else:
            raise Fatal("spec", {"error": "--inputs %s returned %s; return a tensor, a tuple/list of positional "
                                          "arguments or a dict of keyword arguments" % (cfg["inputs"], type(raw).__name__)})
        desc = cfg["inputs"]
    else:
        gen = torch.Generator().manual_seed(SEED)
        args = []
        for shape in cfg["input_shapes"]:
            try:
                args.append(torch.randn(*shape, generator=gen))
            except Exception as e:  # noqa: BLE001 - a shape no tensor here can have (too big, too many dims)
                raise Fatal("spec", {"error": "--input-shape %s: torch cannot make a float32 tensor of this shape "
                                              "(%s), so nothing was measured" % (
                                                  ",".join(str(d) for d in shape), describe_error(e)["error"].splitlines()[0])})
        args = tuple(args)
        kwargs = {}
        desc = ", ".join("x".join(str(d) for d in shape) for shape in cfg["input_shapes"])
    try:
        if isinstance(model, torch.nn.Module):
            model = model.to(device)
        args, kwargs = to_device(torch, args, device), to_device(torch, kwargs, device)
    except Exception as e:  # noqa: BLE001
        raise Fatal("model_error", dict(describe_error(e), stage="move the model to %s" % device))
    name = getattr(model, "__class__", type(model)).__name__ if isinstance(model, torch.nn.Module) else spec
    return Workload(spec, "%s from %s" % (name, spec), model, args, kwargs, builtin=False, input_desc=desc)


# ---------------------------------------------------------------- running --
def flat_tensors(torch, obj, acc=None):
    acc = [] if acc is None else acc
    if isinstance(obj, torch.Tensor):
        acc.append(obj)
    elif isinstance(obj, dict):
        for k in sorted(obj, key=str):
            flat_tensors(torch, obj[k], acc)
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            flat_tensors(torch, x, acc)
    return acc


class Runner(object):
    """Builds the step of one (workload, setting) and runs it."""

    def __init__(self, torch, dev, mode, work):
        self.torch, self.dev, self.mode, self.work = torch, dev, mode, work
        model = work.model
        self.params = [p for p in model.parameters() if p.requires_grad] if isinstance(model, torch.nn.Module) else []
        if isinstance(model, torch.nn.Module):
            model.train(mode == "train")
        self.proj = {}
        self.grad_inputs = []
        if mode == "train" and not self.params:
            for x in flat_tensors(torch, (work.args, work.kwargs)):
                if x.is_floating_point():
                    x.requires_grad_(True)
                    self.grad_inputs.append(x)

    def _loss(self, out):
        torch = self.torch
        total = None
        for t in flat_tensors(torch, out):
            if not (t.is_floating_point() or t.is_complex()) or not t.requires_grad:
                continue
            key = (tuple(t.shape), str(t.device))
            if key not in self.proj:
                g = torch.Generator().manual_seed(SEED + 1)
                self.proj[key] = torch.randn(*t.shape, generator=g).to(t.device)
            term = (t.float() * self.proj[key]).sum()
            total = term if total is None else total + term
        return total

    def inputs_for(self, setting):
        args, kwargs = self.work.args, self.work.kwargs
        if setting.layout == "channels_last":
            cl, T = self.torch.channels_last, self.torch.Tensor
            args = tuple(a.to(memory_format=cl) if isinstance(a, T) and a.dim() == 4 else a for a in args)
            kwargs = dict((k, v.to(memory_format=cl) if isinstance(v, T) and v.dim() == 4 else v)
                          for k, v in kwargs.items())
        return args, kwargs

    def step_for(self, setting, args=None, kwargs=None):
        torch, model = self.torch, self.work.model
        if args is None:
            args, kwargs = self.inputs_for(setting)
        ctx = setting.context
        if self.mode == "train":
            params, loss_of = self.params, self._loss
            grad_inputs = self.grad_inputs

            def step():
                for p in params:
                    p.grad = None
                for x in grad_inputs:
                    x.grad = None
                if ctx is None:
                    out = model(*args, **kwargs)
                else:
                    with ctx():
                        out = model(*args, **kwargs)
                loss = loss_of(out)
                if loss is None:
                    raise RuntimeError("the model's output has no floating-point tensor that requires grad, "
                                       "so there is nothing to train (use --mode infer)")
                loss.backward()
                return out
            return step
        grad_ctx = torch.inference_mode if setting.grad_context == "inference_mode" else torch.no_grad

        def step():
            with grad_ctx():
                if ctx is None:
                    return model(*args, **kwargs)
                with ctx():
                    return model(*args, **kwargs)
        return step

    def enter(self, setting, state):
        snap = state.snapshot()
        if setting.enter is not None:
            setting.enter(self.torch)
        if setting.threads is not None:
            self.torch.set_num_threads(setting.threads)
        if setting.layout == "channels_last" and isinstance(self.work.model, self.torch.nn.Module):
            self.work.model.to(memory_format=self.torch.channels_last)
        return snap

    def leave(self, setting, state, snap):
        if setting.layout == "channels_last" and isinstance(self.work.model, self.torch.nn.Module):
            self.work.model.to(memory_format=self.torch.contiguous_format)
        return state.restore(snap)

    def capture(self, step):
        """Seeded run; outputs and gradients, detached copies on the device."""
        torch = self.torch
        torch.manual_seed(SEED)
        t0 = time.perf_counter()
        out = step()
        self.dev.sync()
        took = time.perf_counter() - t0
        outs = [t.detach().clone() for t in flat_tensors(torch, out)]
        grads = [p.grad.detach().clone() for p in self.params + self.grad_inputs if p.grad is not None] \
            if self.mode == "train" else []
        return outs, grads, took


def drift(torch, got, want):
    """Largest absolute error and that error relative to the largest baseline magnitude,
    over every tensor; None when the shapes do not line up."""
    if len(got) != len(want):
        return None
    max_abs, rel = 0.0, 0.0
    for a, b in zip(got, want):
        if tuple(a.shape) != tuple(b.shape):
            return None
        if a.numel() == 0:
            continue
        wide = torch.float64 if (a.dtype == torch.float64 or b.dtype == torch.float64) else torch.float32
        if not (a.is_floating_point() or a.is_complex()):
            wide = torch.float64 if a.device.type != "mps" else torch.float32
        a2, b2 = a.to(wide), b.to(wide)
        err = float((a2 - b2).abs().max().item())
        scale = float(b2.abs().max().item())
        max_abs = max(max_abs, err)
        r = err / scale if scale > 0 else (0.0 if err == 0 else float("inf"))
        if r != r:  # nan: a non-finite output
            r = float("inf")
        rel = max(rel, r)
    return {"max_abs": max_abs, "max_rel": rel}


def bitwise_equal(torch, a, b):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if tuple(x.shape) != tuple(y.shape) or x.dtype != y.dtype:
            return False
        if not torch.equal(x, y):
            # torch.equal says NaN != NaN; two runs with NaN in the same places are equal.
            if x.is_floating_point() and bool((x.isnan() == y.isnan()).all()):
                same = (x == y) | (x.isnan() & y.isnan())
                if bool(same.all()):
                    continue
            return False
    return True


def same_runs(torch, runs):
    """Whether every run's outputs and gradients equal the first's, bit for bit; None
    when there was only one run (nothing to compare)."""
    if len(runs) < 2:
        return None
    return all(bitwise_equal(torch, runs[0][0], r[0]) and bitwise_equal(torch, runs[0][1], r[1]) for r in runs[1:])


class Device(object):
    def __init__(self, torch, kind):
        self.torch, self.kind = torch, kind
        self.device = torch.device(kind)
        if kind == "cuda":
            self.sync = torch.cuda.synchronize
        elif kind == "mps":
            self.sync = getattr(getattr(torch, "mps", None), "synchronize", lambda: None)
        else:
            self.sync = lambda: None

    def timer(self):
        self.sync()
        return time.perf_counter()


def detect_ops(torch, step):
    """The torch functions one forward (and backward) calls, seen by a TorchFunctionMode;
    None when this torch cannot tell (then every setting is tried)."""
    try:
        from torch.overrides import TorchFunctionMode
    except Exception:  # noqa: BLE001
        return None, step()

    seen = set()

    class Seen(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.add(getattr(func, "__name__", ""))
            return func(*args, **(kwargs or {}))
    with Seen():
        out = step()
    return sorted(seen), out


def needs_of(ops):
    if ops is None:
        return None
    have = set()
    for op in ops:
        have.update(OP_NEEDS.get(op, ()))
    return have


class Tuner(object):
    def __init__(self, torch, cfg, out, clock):
        self.torch, self.cfg, self.out, self.clock = torch, cfg, out, clock
        self.mode = cfg.get("mode", "train")
        self.repro_runs = max(2, int(cfg.get("repro_runs", 2)))

    # ---------------------------------------------------------------- setup --
    def env(self, device):
        torch = self.torch
        env = {"torch": str(torch.__version__), "git": str(getattr(getattr(torch, "version", None), "git_version", "")),
               "device": device, "python": sys.version.split()[0], "threads": torch.get_num_threads(),
               "interop_threads": torch.get_num_interop_threads() if hasattr(torch, "get_num_interop_threads") else None,
               "cores": self.cfg.get("cores") or {}}
        env["cpu_capability"] = _try(lambda: torch.backends.cpu.get_cpu_capability())
        env["mkldnn"] = _try(lambda: bool(torch.backends.mkldnn.is_available()))
        env["cpu_bf16"] = _try(lambda: bool(torch.ops.mkldnn._is_mkldnn_bf16_supported()))
        env["cudnn_version"] = None
        env["fp32_precision_api"] = fp32_api(torch, "matmul")
        env["float32_matmul_precision"] = _try(torch.get_float32_matmul_precision)
        env["env"] = dict((k, os.environ[k]) for k in (
            "OMP_NUM_THREADS", "MKL_NUM_THREADS", "CUBLAS_WORKSPACE_CONFIG", "NVIDIA_TF32_OVERRIDE",
            "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "PYTORCH_ENABLE_MPS_FALLBACK", "CUDA_VISIBLE_DEVICES")
            if k in os.environ)
        if device == "cuda":
            env["name"] = _try(lambda: torch.cuda.get_device_name(0))
            env["capability"] = _try(lambda: list(torch.cuda.get_device_capability(0)))
            env["cuda"] = str(getattr(torch.version, "cuda", None))
            env["cuda_bf16"] = _try(lambda: bool(torch.cuda.is_bf16_supported()))
            env["cudnn_version"] = _try(lambda: torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None)
            env["memory_gib"] = _try(lambda: round(torch.cuda.get_device_properties(0).total_memory / 2 ** 30, 1))
        elif device == "mps":
            import platform
            mac = platform.mac_ver()[0]
            env["name"] = "Apple GPU (MPS)" + (", macOS %s" % mac if mac else "")
        else:
            env["name"] = self.cfg.get("cpu_name") or "CPU"
        return env

    def pick_device(self):
        torch, want = self.torch, self.cfg.get("device") or "auto"
        cuda = _try(lambda: bool(torch.cuda.is_available())) is True
        mps = _try(lambda: bool(torch.backends.mps.is_available())) is True
        if want == "auto":
            return "cuda" if cuda else ("mps" if mps else "cpu")
        if want == "cuda" and not cuda:
            raise Fatal("device", {"error": "--device cuda: torch.cuda.is_available() is False in this interpreter "
                                            "(torch %s, built for CUDA %s)" % (torch.__version__, torch.version.cuda)})
        if want == "mps" and not mps:
            raise Fatal("device", {"error": "--device mps: torch.backends.mps.is_available() is False in this "
                                            "interpreter (torch %s)" % torch.__version__})
        return want

    def size(self, device):
        size = self.cfg.get("size") or "auto"
        if size != "auto":
            return size
        if device == "cuda":
            return "large"
        return "tiny" if float(self.cfg.get("budget", 60)) < 40 else "small"

    def settings_for(self, device, env, work):
        torch = self.torch
        if device == "cuda":
            items = cuda_settings(torch, env, varying_ok=work.shape_fn is not None)
        elif device == "mps":
            items = mps_settings(torch, env)
        else:
            items = cpu_settings(torch, env, self.cfg.get("cores") or {}, self.mode)
        have = needs_of(work.ops)
        for s in items:
            if s.status == "planned" and s.needs and have is not None and not (s.needs & have):
                s.status = "not_applicable"
                s.reason = "the model calls no %s" % " or ".join(sorted(NEED_WORDS.get(n, n) for n in s.needs))
            if s.status == "planned" and s.layout == "channels_last":
                if not any(isinstance(a, torch.Tensor) and a.dim() == 4
                           for a in list(work.args) + list(work.kwargs.values())):
                    s.status, s.reason = "not_applicable", "no 4-d input tensor to put in channels_last"
        ids = set(s.id for s in items if s.status == "planned")
        for s in items:  # a setting measured against a reference that is not measured is not measured
            if s.status == "planned" and s.reference not in (None, "default") and s.reference not in ids:
                s.status, s.reason = "not_applicable", "its reference (%s) is not measured here" % s.reference
        return [default_setting(torch, device)] + items

    # ----------------------------------------------------------------- main --
    def run(self):
        torch, out = self.torch, self.out
        device = self.pick_device()
        env = self.env(device)
        dev = Device(torch, device)
        size = self.size(device)
        env["size"] = size
        out.rec("env", **env)
        state = State(torch)
        self.base_state = state.snapshot()
        if self.cfg.get("model"):
            names = [None]
        else:
            names = [n for n in (self.cfg.get("workloads") or BUILTIN)]
        for index, name in enumerate(names):
            left = self.clock.left()
            if left <= 0:
                for rest in names[index:]:
                    out.rec("workload_skipped", workload=rest or self.cfg.get("model"), reason="budget")
                break
            share_end = time.time() + left / (len(names) - index)
            try:
                if name is None:
                    work = build_user(torch, self.cfg, dev.device, out)
                else:
                    out.stage("%s: build" % name, workload=name, calls_model=False)
                    work = build_builtin(torch, name, SIZES[size][name], dev.device)
            except Fatal:
                raise
            except Exception as e:  # noqa: BLE001
                if name is None:  # the user's model is the only workload: it cannot be skipped
                    raise Fatal("model_error", dict(describe_error(e), stage="build %s" % self.cfg["model"]))
                out.rec("workload_error", workload=name, phase="build", **describe_error(e))
                continue
            self.workload(work, dev, env, state, share_end)
            del work
            if device == "cuda":
                _try(torch.cuda.empty_cache)
        out.rec("done")

    def workload(self, work, dev, env, state, share_end):
        torch, out, name = self.torch, self.out, work.name
        runner = Runner(torch, dev, self.mode, work)
        default = default_setting(torch, dev.kind)
        if self.cfg.get("list_only") and work.builtin:
            work.ops = BUILTIN_OPS[name]
            settings = self.settings_for(dev.kind, env, work)
            out.rec("plan", workload=name, description=work.description, input=work.input_desc, builtin=True,
                    mode=self.mode, ops=work.ops, first_run_s=None, settings=[s.plan() for s in settings])
            return
        out.stage("%s: first run" % name, workload=name, setting="default", calls_model=True)
        try:
            t0 = time.perf_counter()
            work.ops, _ = detect_ops(torch, runner.step_for(default))
            dev.sync()
            first = time.perf_counter() - t0
        except Exception as e:  # noqa: BLE001
            info = dict(describe_error(e), workload=name, stage="first run of %s with the default settings" % name)
            if not work.builtin:
                raise Fatal("model_error", info)
            out.rec("workload_error", phase="first run", **info)
            return
        changed = state.differs(self.base_state)
        if changed:  # the model sets global flags itself: a setting of the same flag measures nothing
            out.rec("model_changes_flags", workload=name, keys=changed,
                    values=dict((k, state.snapshot().get(k)) for k in changed))
            state.restore(self.base_state)
        settings = self.settings_for(dev.kind, env, work)
        out.rec("plan", workload=name, description=work.description, input=work.input_desc, builtin=work.builtin,
                mode=self.mode, ops=work.ops, first_run_s=first, settings=[s.plan() for s in settings])
        if self.cfg.get("list_only"):
            return
        active = [s for s in settings if s.status == "planned"]
        # -- strict baseline: what every setting's drift is measured against
        out.stage("%s: strict baseline" % name, workload=name, setting="strict", calls_model=True)
        strict = Setting("strict", "strict", "strict baseline", "", enter=strict_enter(torch, dev.kind),
                         context=strict_context(torch, dev.kind) if "sdpa" in (needs_of(work.ops) or ()) else None)
        baseline = None
        check_end = time.time() + CHECK_SHARE * max(0.0, share_end - time.time())
        # The check time is dealt out in slots, one per setting and one for the baseline: a
        # second (reproducibility) run only when it fits its slot, so a slow model still
        # gets a drift check of every setting rather than two runs of the first few.
        slots = [1 + sum(1 for s in active if not s.varying)]

        def slot_end():
            end = time.time() + max(0.0, check_end - time.time()) / max(1, slots[0])
            slots[0] -= 1
            return end
        try:
            runs = self.check_runs(runner, strict, state, first, slot_end(), share_end)
            if runs:
                baseline = runs[0]
                out.rec("baseline", workload=name, reproducible=same_runs(torch, runs),
                    runs=len(runs), step_s=max(r[2] for r in runs),
                    description="float32, TF32 off, float32_matmul_precision=highest, deterministic algorithms "
                                "(warn only), cudnn.deterministic=True, benchmark=False, math SDPA")
        except Exception as e:  # noqa: BLE001
            out.rec("baseline_error", workload=name, **describe_error(e))
        # -- drift and reproducibility of each setting, alone
        est = {}
        checked = []
        for s in active:
            if s.varying:
                checked.append(s)
                est[s.id] = first
                continue
            end = slot_end()
            if self.clock.left() <= 0 or time.time() > check_end:
                out.rec("not_measured", workload=name, setting=s.id, reason="budget", phase="check")
                continue
            out.stage("%s: check %s" % (name, s.label), workload=name, setting=s.id, calls_model=True)
            try:
                runs = self.check_runs(runner, s, state, first, end, check_end)
            except Exception as e:  # noqa: BLE001
                out.rec("setting_error", workload=name, setting=s.id, phase="check", **describe_error(e))
                if dev.kind == "cuda":
                    _try(torch.cuda.empty_cache)
                continue
            if not runs:
                out.rec("not_measured", workload=name, setting=s.id, reason="budget", phase="check")
                continue
            rec = {"reproducible": same_runs(torch, runs), "runs": len(runs), "step_s": max(r[2] for r in runs)}
            if baseline is not None:
                rec["drift_output"] = drift(torch, runs[0][0], baseline[0])
                rec["drift_grad"] = drift(torch, runs[0][1], baseline[1]) if self.mode == "train" else None
            out.rec("check", workload=name, setting=s.id, **rec)
            est[s.id] = rec["step_s"]
            checked.append(s)
        # -- timing, interleaved
        self.timing(runner, checked, state, est, share_end, work)
        out.rec("workload_done", workload=name)

    def check_runs(self, runner, setting, state, first, slot_end, hard_end):
        """Seeded runs of one setting: the first whenever it fits before `hard_end`, more
        (for reproducibility) while they fit in the setting's slot."""
        runs = []
        for i in range(self.repro_runs):
            last = runs[-1][2] if runs else first
            if self.clock.left() < last * 1.5 or time.time() + last > (slot_end if i else hard_end):
                break
            snap = runner.enter(setting, state)
            try:
                runs.append(runner.capture(runner.step_for(setting)))
            finally:
                leaked = runner.leave(setting, state, snap)
            if leaked:
                self.out.rec("leak", workload=runner.work.name, setting=setting.id, keys=leaked)
        return runs

    def timing(self, runner, settings, state, est, share_end, work):
        torch, out, name = self.torch, self.out, work.name
        if len(settings) < 2 or not any(s.role == "default" for s in settings):
            # Nothing to compare against (the drift checks used the time up): leave the
            # time to the next workload rather than timing one setting alone.
            for s in settings:
                out.rec("not_measured", workload=name, setting=s.id, reason="budget", phase="timing")
            return
        try:
            from torch.utils.benchmark import Timer
        except Exception:  # noqa: BLE001
            Timer = None
        n = len(settings)
        span = max(0.0, min(share_end - time.time(), self.clock.left()))
        slice_s = min(MAX_SLICE_S, max(MIN_SLICE_S, span / (n * TARGET_ROUNDS) - TIMER_OVERHEAD_S))
        shapes = self.shape_pool(work, settings)
        dropped = set()
        rnd = 0
        while True:
            order = settings[rnd % n:] + settings[:rnd % n]  # rotate: no setting always runs first
            measured_any = False
            for s in order:
                if s.id in dropped:
                    continue
                # A block is the Timer's block-size estimate (a step or more) plus steps
                # until slice_s: a slow step costs about three of itself.
                need = slice_s + 3 * est.get(s.id, 0.0) + TIMER_OVERHEAD_S
                # A block that does not fit is left out of this round; a quicker setting
                # may still fit, and the round ends the loop when none did.
                if self.clock.left() < need or (rnd >= MIN_ROUNDS and time.time() + need > share_end):
                    continue
                out.stage("%s: timing %s (round %d)" % (name, s.label, rnd + 1), workload=name, setting=s.id,
                          calls_model=True, round=rnd + 1)
                snap = runner.enter(s, state)
                try:
                    if s.varying:
                        times, number = self.time_varying(runner, s, shapes[s.id], Timer, slice_s, est)
                    else:
                        times, number = self.time_block(runner, s, Timer, slice_s)
                except Exception as e:  # noqa: BLE001
                    out.rec("setting_error", workload=name, setting=s.id, phase="timing", **describe_error(e))
                    dropped.add(s.id)
                    if runner.dev.kind == "cuda":  # an out-of-memory must not starve the next setting
                        _try(torch.cuda.empty_cache)
                    continue
                finally:
                    leaked = runner.leave(s, state, snap)
                if leaked:
                    out.rec("leak", workload=name, setting=s.id, keys=leaked)
                if not times:
                    dropped.add(s.id)
                    out.rec("not_measured", workload=name, setting=s.id, reason="shape pool used up", phase="timing")
                    continue
                measured_any = True
                est[s.id] = max(est.get(s.id, 0.0), max(times) * (number or 1))
                out.rec("times", workload=name, setting=s.id, round=rnd + 1, times=times, number_per_run=number)
            rnd += 1
            if not measured_any or rnd >= MAX_ROUNDS:
                return

    def time_block(self, runner, s, Timer, slice_s):
        step = runner.step_for(s)
        threads = s.threads if s.threads is not None else self.base_state.get("threads", self.torch.get_num_threads())
        if Timer is not None:
            t = Timer(stmt="step()", globals={"step": step}, timer=runner.dev.timer, num_threads=threads)
            m = t.blocked_autorange(min_run_time=slice_s)
            return [float(x) for x in m.times], int(m.number_per_run)
        times, t_end = [], time.perf_counter() + slice_s  # torch < 1.8: no torch.utils.benchmark
        step()
        while time.perf_counter() < t_end:
            t0 = runner.dev.timer()
            step()
            times.append(runner.dev.timer() - t0)
        return times, 1

    def shape_pool(self, work, settings):
        varying = [s for s in settings if s.varying]
        if not varying or work.shape_fn is None:
            return {}
        _, n0, hw0 = work.shape_fn
        pool = [(n, hw) for n in range(max(1, n0 // 2), 2 * n0 + 1) for hw in range(max(8, hw0 // 2), hw0 * 3 // 2 + 1)
                if (n, hw) != (n0, hw0)]
        random.Random(SEED).shuffle(pool)
        # Deal the shapes out in turn: every shape is new to cuDNN's cache for whichever
        # setting gets it, and each setting's shapes have the same size distribution.
        return dict((s.id, iter(pool[i::len(varying)])) for i, s in enumerate(varying))

    def time_varying(self, runner, s, shapes, Timer, slice_s, est):
        fn = runner.work.shape_fn[0]

        def step():
            nn_, hw = next(shapes)
            x = fn(nn_, hw)
            return runner.step_for(s, (x,), {})()
        times = []
        t_end = time.perf_counter() + slice_s
        try:
            while not times or time.perf_counter() < t_end:
                if Timer is not None:
                    m = Timer(stmt="step()", globals={"step": step}, timer=runner.dev.timer,
                              num_threads=self.torch.get_num_threads()).timeit(number=VARYING_PER_BLOCK)
                    times.extend(float(x) for x in m.times)
                else:
                    t0 = runner.dev.timer()
                    for _ in range(VARYING_PER_BLOCK):
                        step()
                    times.append((runner.dev.timer() - t0) / VARYING_PER_BLOCK)
        except StopIteration:
            pass
        if times:
            est[s.id] = max(times)
        return times, VARYING_PER_BLOCK


def _try(fn):
    try:
        return fn()
    except Exception:  # noqa: BLE001
        return None


def main(argv):
    import faulthandler
    # A segfault or abort in the model prints the Python stack to stderr, which the
    # parent keeps: the finding can say which line of the model was running.
    faulthandler.enable()
    out = Out(argv[1])
    # The parent stops this process group by this id if it is interrupted (Ctrl-C).
    out.rec("start", pid=os.getpid())
    cfg = json.loads(argv[2])
    clock = Clock(cfg["deadline"], cfg.get("reserve", 0.3))
    out.stage("import torch", calls_model=False)
    t0 = time.time()
    try:
        import torch
    except BaseException as e:  # noqa: BLE001 - SystemExit and friends from a broken install too
        out.rec("fatal", kind="import", stage="import torch", **describe_error(e))
        return 3
    out.rec("imported", seconds=round(time.time() - t0, 3), torch=str(torch.__version__))
    tuner = Tuner(torch, cfg, out, clock)
    try:
        tuner.run()
    except Fatal as f:
        out.rec("fatal", kind=f.kind, **f.info)
        return 3
    except Exception as e:  # noqa: BLE001 - a bug here must still end as a record, not a lost run
        out.rec("fatal", kind="internal", stage="tune worker", **describe_error(e))
        return 3
    return 0


def exit_now(rc):
    """Leave without interpreter shutdown (seconds of torch teardown, and a broken model
    can hang in it); every record is already written."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001
            pass
    os._exit(rc)


if __name__ == "__main__":
    exit_now(main(sys.argv[1:] if sys.argv and sys.argv[0] == "-c" else sys.argv))
