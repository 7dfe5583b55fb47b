"""One (workload, setting) step: the model called with the setting on (its flags, its
context, its memory layout), a fixed loss in train mode, and a seeded run whose outputs
and gradients are kept for the comparisons."""

import time

from .workloads import SEED, flat_tensors


# ---------------------------------------------------------------- running --
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
            for x in flat_tensors(torch, work.pool):
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

    def inputs_for(self, setting, args=None, kwargs=None):
        if args is None:
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

    def timed_step(self, setting):
        """(the step the timing repeats, how many model calls it makes): one call on the input,
        or, when the user's inputs vary in shape, one call on each of them in turn, so that
        every timed block holds the same mix of shapes."""
        if len(self.work.pool) < 2:
            return self.step_for(setting), 1
        steps = [self.step_for(setting, *self.inputs_for(setting, a, k)) for a, k in self.work.pool]

        def step():
            for one in steps:
                out = one()
            return out
        return step, len(steps)

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


