"""Which torch functions a model calls, seen by a TorchFunctionMode during its first run,
and what that says about the settings that can reach it."""

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


