"""The models tune measures: the built-in workloads (a convnet, an attention block, a
matmul, an LSTM, at three sizes) and the user's ``--model`` with its ``--inputs`` or
``--input-shape``."""

import os
import random
import sys
import time

from .output import Fatal, describe_error

SEED = 0
INPUT_CALLS = 8  # calls of --inputs: enough to see whether, and how, its shapes vary
INPUT_SHARE = 0.05  # of the time left: what those calls may take
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
# What the built-ins call (as ops.detect_ops reports it): --list-settings plans them without a run.
BUILTIN_OPS = {"convnet": ["adaptive_avg_pool2d", "batch_norm", "conv2d", "linear", "max_pool2d", "relu"],
               "attention": ["layer_norm", "linear", "scaled_dot_product_attention"],
               "matmul": ["matmul"], "lstm": ["lstm"]}


class Workload(object):
    """A model and its input. `pool`: every input the timing turns through, one after the
    other (the user's --inputs when its shapes vary; else just `args`, `kwargs`): the drift
    and reproducibility checks use the first."""

    def __init__(self, name, description, model, args, kwargs, ops=None, builtin=True, shape_fn=None,
                 input_desc="", pool=None):
        self.name, self.description = name, description
        self.model, self.args, self.kwargs = model, args, kwargs
        self.ops, self.builtin, self.shape_fn, self.input_desc = ops, builtin, shape_fn, input_desc
        self.pool = pool or [(args, kwargs)]

    def shapes(self, torch):
        """How many different input shapes the timing measures."""
        return len(set(shape_key(torch, p) for p in self.pool))


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


def shape_key(torch, inputs):
    return tuple(tuple(t.shape) for t in flat_tensors(torch, inputs))


def same_inputs(torch, a, b):
    ta, tb = flat_tensors(torch, a), flat_tensors(torch, b)
    return len(ta) == len(tb) and all(x.shape == y.shape and x.dtype == y.dtype and torch.equal(x, y)
                                      for x, y in zip(ta, tb))


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
    pool = None
    if cfg.get("inputs"):
        make = load_callable(cfg["inputs"], "--inputs")
        left = max(0.0, float(cfg.get("deadline") or time.time()) - time.time())
        pool = input_pool(torch, make, cfg["inputs"], time.time() + INPUT_SHARE * left)
        args, kwargs = pool[0]
        desc = cfg["inputs"]
        shapes = []
        for p in pool:
            key = shape_key(torch, p)
            if key not in shapes:
                shapes.append(key)
        if len(shapes) > 1:
            desc += ", %d shapes (%s%s)" % (len(shapes), "; ".join(
                ", ".join("x".join(str(d) for d in t) for t in key) for key in shapes[:4]),
                "; ..." if len(shapes) > 4 else "")
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
        if pool is not None:
            pool = [(args, kwargs)] + [(to_device(torch, a, device), to_device(torch, k, device)) for a, k in pool[1:]]
    except Exception as e:  # noqa: BLE001
        raise Fatal("model_error", dict(describe_error(e), stage="move the model to %s" % device))
    name = getattr(model, "__class__", type(model)).__name__ if isinstance(model, torch.nn.Module) else spec
    return Workload(spec, "%s from %s" % (name, spec), model, args, kwargs, builtin=False, input_desc=desc,
                    pool=pool)


def as_arguments(torch, raw, spec):
    """What --inputs returned, as (args, kwargs) of the model's call."""
    if isinstance(raw, torch.Tensor):
        return (raw,), {}
    if isinstance(raw, dict):
        return (), raw
    if isinstance(raw, (list, tuple)):
        return tuple(raw), {}
    raise Fatal("spec", {"error": "--inputs %s returned %s; return a tensor, a tuple/list of positional "
                                  "arguments or a dict of keyword arguments (or an iterator of them)"
                                  % (spec, type(raw).__name__)})


def input_pool(torch, make, spec, until):
    """Inputs from the user's --inputs callable: up to INPUT_CALLS calls (each after
    torch.manual_seed and random.seed, so a callable that draws its batch size draws the
    same ones every run), or as many items of the iterator it returns. A callable whose
    first two calls give equal inputs gives a fixed input: one is kept. Later calls stop at
    `until`; the model is timed on every input kept, in turn."""
    pool, items = [], None
    for i in range(INPUT_CALLS):
        if i and time.time() > until:
            break
        torch.manual_seed(SEED + i)
        random.seed(SEED + i)
        try:
            if items is None:
                raw = make()
                if hasattr(raw, "__next__") and not isinstance(raw, (torch.Tensor, dict, list, tuple)):
                    items = raw
                    raw = next(items)
            else:
                raw = next(items)
        except StopIteration:
            if not pool:
                raise Fatal("spec", {"error": "--inputs %s gave no input (its iterator was empty)" % spec})
            break
        except Exception as e:  # noqa: BLE001
            raise Fatal("model_error", dict(describe_error(e), stage="build inputs (%s())" % spec))
        pool.append(as_arguments(torch, raw, spec))
        if i == 1 and items is None and same_inputs(torch, pool[0], pool[1]):
            return pool[:1]
    return pool


