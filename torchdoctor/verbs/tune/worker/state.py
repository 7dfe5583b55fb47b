"""The global torch flags a setting may change (threads, matmul precision, the fp32_precision
attributes, TF32, cuDNN, oneDNN, deterministic algorithms): snapshot them before a setting,
restore them after, and notice a setting (or a model) that leaves one changed."""

def get_path(obj, path):
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def has_path(obj, path):
    try:
        get_path(obj, path)
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
            if has_path(t, path):
                items.append(self._attr(path))
        if not fp32_api(t, "matmul") and has_path(t, "backends.cuda.matmul.allow_tf32"):
            items.append(self._attr("backends.cuda.matmul.allow_tf32"))
        if not fp32_api(t, "conv") and has_path(t, "backends.cudnn.allow_tf32"):
            items.append(self._attr("backends.cudnn.allow_tf32"))
        for path in ("backends.cudnn.enabled", "backends.cudnn.benchmark", "backends.cudnn.deterministic",
                     "backends.mkldnn.enabled", "backends.mkldnn.deterministic"):
            if has_path(t, path):
                items.append(self._attr(path))
        if hasattr(t, "are_deterministic_algorithms_enabled"):
            warn = getattr(t, "is_deterministic_algorithms_warn_only_enabled", lambda: False)
            items.append(("deterministic_algorithms",
                          lambda: (bool(t.are_deterministic_algorithms_enabled()), bool(warn())),
                          lambda v: set_deterministic(t, v[0], v[1])))
        self.items = items

    def _attr(self, path):
        head, _, name = path.rpartition(".")
        obj = get_path(self.torch, head)
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
        return has_path(torch, "backends.cuda.matmul.fp32_precision")
    return has_path(torch, "backends.cudnn.conv.fp32_precision")

