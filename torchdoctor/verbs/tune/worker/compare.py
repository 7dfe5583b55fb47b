"""How a setting's results compare: drift against the strict baseline, and whether seeded
runs are equal bit for bit."""

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


