"""Every setting tune knows, per device: how to turn it on, what it needs from the model,
what it is measured against, and why one is not measured here; and the strict baseline
every setting's drift is measured against."""

import os

from .state import fp32_api, get_path, has_path, set_deterministic


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



def setter(obj_path, name, value):
    def enter(torch):
        setattr(get_path(torch, obj_path), name, value)
    return enter


def caller(fn_name, *args, **kw):
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
                    threads=n, enter=caller("set_num_threads", n))
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
                    group="matmul-precision", needs={"matmul"}, enter=caller("set_float32_matmul_precision", p))
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
                    context=autocast_context(torch, device, dtype))
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


def autocast_context(torch, device, dtype):
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
            s.context = sdpa_context(torch, attention, backend, legacy_kw, names, dtype)
        out.append(s)
    return out


def sdpa_context(torch, attention, backend, legacy_kw, names, dtype):
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
                               enter=setter("backends.cudnn", "benchmark", True)))
        if varying_ok:
            out.append(Setting("varying:cudnn.benchmark=False", "cudnn.benchmark",
                               "cudnn.benchmark=False (varying shapes)", "torch.backends.cudnn.benchmark = False",
                               needs=cudnn_needs, varying=True, role="reference", reference=None,
                               enter=setter("backends.cudnn", "benchmark", False)))
            out.append(Setting("varying:cudnn.benchmark=True", "cudnn.benchmark",
                               "cudnn.benchmark=True (varying shapes)", "torch.backends.cudnn.benchmark = True",
                               needs=cudnn_needs, varying=True, reference="varying:cudnn.benchmark=False",
                               enter=setter("backends.cudnn", "benchmark", True)))
        if not cd.deterministic:
            out.append(Setting("cudnn.deterministic=True", "cudnn.deterministic", "cudnn.deterministic=True",
                               "torch.backends.cudnn.deterministic = True", needs=cudnn_needs,
                               enter=setter("backends.cudnn", "deterministic", True)))
        if cd.enabled:
            out.append(Setting("cudnn.enabled=False", "cudnn.enabled", "cudnn.enabled=False",
                               "torch.backends.cudnn.enabled = False", needs=cudnn_needs,
                               enter=setter("backends.cudnn", "enabled", False)))
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
            on = (get_path(torch, obj + ".fp32_precision") == "tf32") if new else bool(get_path(torch, obj + ".allow_tf32"))
        else:
            obj, legacy, needs = ("backends.cudnn.conv" if new else "backends.cudnn"), "allow_tf32", {"conv", "rnn"} \
                if not new else {"conv"}
            on = (get_path(torch, obj + ".fp32_precision") == "tf32") if new else bool(get_path(torch, obj + ".allow_tf32"))
        target = not on
        sid = "tf32.%s=%s" % (what, "on" if target else "off")
        py_obj = "torch." + obj
        if new:
            value = "tf32" if target else "ieee"
            code = '%s.fp32_precision = "%s"' % (py_obj, value)
            enter, api = setter(obj, "fp32_precision", value), "fp32_precision (2.9+)"
        else:
            code = "%s.%s = %s" % (py_obj, legacy, target)
            enter, api = setter(obj, legacy, target), "allow_tf32 (legacy flag)"
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
    if has_path(torch, "backends.mkldnn.enabled") and torch.backends.mkldnn.is_available():
        s = Setting("mkldnn.enabled=False", "mkldnn.enabled", "oneDNN off (mkldnn.enabled=False)",
                    "torch.backends.mkldnn.enabled = False", enter=setter("backends.mkldnn", "enabled", False))
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


def control_setting(torch):
    """The default settings once more, timed as one more setting: what two timings of the
    same thing differ by on this machine, now, is the noise no verdict may fall inside."""
    return Setting("control", "default", "default settings, timed again (noise control)", "", role="control",
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
            elif has_path(t, "backends.cuda.matmul.allow_tf32"):
                t.backends.cuda.matmul.allow_tf32 = False
            if fp32_api(t, "conv"):
                t.backends.cudnn.conv.fp32_precision = "ieee"
                if has_path(t, "backends.cudnn.rnn.fp32_precision"):
                    t.backends.cudnn.rnn.fp32_precision = "ieee"
            elif has_path(t, "backends.cudnn.allow_tf32"):
                t.backends.cudnn.allow_tf32 = False
            if has_path(t, "backends.cudnn.deterministic"):
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


