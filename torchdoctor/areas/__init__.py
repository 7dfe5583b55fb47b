"""Areas: one module (or package) per area of a PyTorch environment, holding every way
that area's conditions are recognised, side by side.

A condition (a CPU-only wheel, a driver too old for the build, a GPU torch has no kernels
for) shows up two ways: in the facts of a machine (`check`) and in error text (`explain`).
Its area module holds both:

* checks: ``@check("arch-unsupported", ...)`` functions, facts -> findings;
* tailoring hooks: ``@hook("arch-unsupported")`` functions, (a known-error match, facts) ->
  the fix for this machine;

both thin over the condition's remedy, so the two answers cannot drift. The module of an
area is named like its file of known errors: the entries of ``kb/errors/cuda.json`` are
tailored by hooks of ``areas/cuda`` (a test enforces it), and ``explain`` imports only the
area whose entries matched. The registry lives in ``areas/registry.py``.
"""
