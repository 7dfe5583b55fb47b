"""torchdoctor tune, the measuring side. Runs *inside the interpreter being tuned*.

It imports torch, so it never runs in torchdoctor's own process: the parent starts
``script.py`` in a child of the target interpreter (``--python``), with a budget. That
interpreter may not have torchdoctor installed, so this folder is self-contained:
standard library plus torch, Python 3.8 syntax, and only relative imports between its
modules. ``script.py`` loads the folder as a package under a private name (never
through ``sys.path``, where a module of the user's named like one of these would
collide), then runs ``tuner.Tuner``.

Every result is appended to the output file as one JSON line the moment it exists
(the plan, each setting's drift check, each timed block), so when the model raises,
hangs past the budget or segfaults, the parent keeps everything measured before and
knows the stage that was running. The parent kills the process group at the deadline;
this side plans its work to end before it.

* ``output``    - the JSON-lines writer, errors as records, the deadline clock;
* ``state``     - the global torch flags a setting may change: snapshot and restore;
* ``settings``  - every setting tune knows, per device, and the strict baseline;
* ``workloads`` - the built-in models and the user's ``--model``/``--inputs``;
* ``ops``       - which torch functions a model calls (what a setting can reach);
* ``runner``    - one (workload, setting) step: run it, capture outputs and gradients;
* ``compare``   - drift against the baseline and bitwise reproducibility;
* ``timing``    - interleaved timed blocks of every setting;
* ``tuner``     - a whole run: device, environment, workloads, checks, timing.
"""
