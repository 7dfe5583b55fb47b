"""How a setting's results compare: drift against the strict baseline, and whether seeded
runs are equal bit for bit."""

def drift(torch, got, want):
    """How far `got` is from `want` (lists of tensors: the outputs, or the gradients), as the
    normwise relative error over the whole set, ||got - want|| / ||want||, both 2-norms over
    every element of every tensor, in float64 on the CPU; and the largest absolute difference.

    Normwise, not per tensor: a gradient that is mathematically zero (a conv's bias before a
    BatchNorm) comes out as rounding noise, and its noise divided by itself says nothing; in
    the whole set it weighs what it is, an absolute difference at the scale of the set.
    Non-finite values in the same places (NaN and NaN, inf and inf) are equal, as for the
    bitwise comparison; anywhere else they make the drift infinite. None when the shapes do
    not line up."""
    if len(got) != len(want):
        return None
    sq_diff, sq_ref, max_abs, broken = 0.0, 0.0, 0.0, False
    for a, b in zip(got, want):
        if tuple(a.shape) != tuple(b.shape):
            return None
        if a.numel() == 0:
            continue
        wide = torch.complex128 if (a.is_complex() or b.is_complex()) else torch.float64
        a2, b2 = a.detach().cpu().to(wide), b.detach().cpu().to(wide)
        fa, fb = torch.isfinite(a2), torch.isfinite(b2)
        if not bool((fa == fb).all()):
            broken = True
        elif not bool(fa.all()):
            odd_a, odd_b = a2[~fa], b2[~fb]
            same = (odd_a == odd_b) | (torch.isnan(odd_a) & torch.isnan(odd_b))
            broken = broken or not bool(same.all())
        both = fa & fb
        diff = (a2 - b2)[both].abs()
        if diff.numel():
            sq_diff += float((diff * diff).sum().item())
            max_abs = max(max_abs, float(diff.max().item()))
        ref = b2[both].abs()
        sq_ref += float((ref * ref).sum().item())
    if broken:
        rel = float("inf")
    elif sq_diff == 0:
        rel = 0.0
    else:
        rel = (sq_diff ** 0.5) / (sq_ref ** 0.5) if sq_ref > 0 else float("inf")
    return {"rel": rel, "max_abs": max_abs}


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


