"""Every lint rule, one module each, and the registry that lists them.

A rule is a function with the one rule shape of every family (model/rules.py)::

    @rule("lint", "TD301", severity=WARNING, category="lint", name="cudnn-disabled-for-determinism",
          on="file", fixable=False, source="RANDOMNESS+CUDNN_DOCS", links=(...))
    def cudnn_disabled_for_determinism(scan): ...

alone in a module named after it (td301_cudnn_disabled_for_determinism.py) whose docstring is
its documentation: the first line is the summary the rule table shows; the sections (What it
finds, Why it matters, Fix) are what `lint --explain TD301` prints and docs/lint-rules.md
holds, with the module's FIRES and QUIET examples (examples.py). Its options, read by lint
only: ``on`` (what it is called with, below), ``fixable`` (True, False or "some"), ``since``
(the release the condition holds from, or "per API"), ``source`` (citation keys of
data/api_history.json's sources), ``default`` (False: off unless selected),
``despite_guards`` (True: a use rule that also runs in guarded code: misusing an API is
wrong there too), ``about_absence`` (True: a use rule about an API that is not there, which a
guard naming that API or testing a capability hides; other guards hide only by the releases
they keep out).

What a rule is called with (``on``), and by whom:

* ``use``   - a uses.Use, one reference to a torch path, by the walker (pyscan) as it meets it;
* ``file``  - a pyevents.FileScan, the settings the walker recorded in one file, after the walk;
* ``env``   - an envcheck.EnvCase, one environment file's pins, by lintfile;
* ``parse`` - the parse error of a file that does not parse, by lintfile.

It returns None, one located.Located (made with located.hit) or a list; located.call stamps
them with the rule and turns a crash into a rule-crashed finding. ``RULES`` lists every rule
in the order the rules run; tests/verbs/lint/test_verbs_lint_meta.py holds it to the modules
of this package and runs every module's examples.
"""

from typing import Dict, List, Tuple

from ....model.rules import Rule, rules_of
from . import (td000_syntax_error, td101_api_not_yet_added, td102_api_removed, td103_submodule_not_auto_imported,
               td104_unknown_backends_attribute, td105_setting_called, td106_function_not_called,
               td107_setting_wrong_type, td108_context_manager_not_entered, td201_deprecated_api, td202_tf32_api_mix,
               td203_tf32_legacy_flag, td204_tf32_default_changed,
               td205_torchvision_legacy_weights, td301_cudnn_disabled_for_determinism,
               td302_benchmark_with_deterministic, td303_deterministic_without_cublas_config,
               td304_benchmark_set_in_loop, td305_seed_helper_enables_benchmark,
               td306_benchmark_with_varying_shapes, td307_deterministic_without_algorithms, td401_companion_pins_unpaired,
               td402_index_url_variant, td403_no_wheel_for_python, td404_cuda_image_too_old,
               td405_torch_unpinned_beside_companion, td406_cuda_image_driver_floor)

SUBJECTS = ("use", "file", "env", "parse")

RULES = rules_of((
    td000_syntax_error.syntax_error,
    td101_api_not_yet_added.api_not_yet_added,
    td102_api_removed.api_removed,
    td103_submodule_not_auto_imported.submodule_not_auto_imported,
    td104_unknown_backends_attribute.unknown_backends_attribute,
    td105_setting_called.setting_called,
    td106_function_not_called.function_not_called,
    td107_setting_wrong_type.setting_wrong_type,
    td108_context_manager_not_entered.context_manager_not_entered,
    td201_deprecated_api.deprecated_api,
    td202_tf32_api_mix.tf32_api_mix,
    td203_tf32_legacy_flag.tf32_legacy_flag,
    td204_tf32_default_changed.tf32_default_changed,
    td205_torchvision_legacy_weights.torchvision_legacy_weights,
    td301_cudnn_disabled_for_determinism.cudnn_disabled_for_determinism,
    td302_benchmark_with_deterministic.benchmark_with_deterministic,
    td303_deterministic_without_cublas_config.deterministic_without_cublas_config,
    td304_benchmark_set_in_loop.benchmark_set_in_loop,
    td305_seed_helper_enables_benchmark.seed_helper_enables_benchmark,
    td306_benchmark_with_varying_shapes.benchmark_with_varying_shapes,
    td307_deterministic_without_algorithms.deterministic_without_algorithms,
    td401_companion_pins_unpaired.companion_pins_unpaired,
    td402_index_url_variant.index_url_variant,
    td403_no_wheel_for_python.no_wheel_for_python,
    td404_cuda_image_too_old.cuda_image_too_old,
    td405_torch_unpinned_beside_companion.torch_unpinned_beside_companion,
    td406_cuda_image_driver_floor.cuda_image_driver_floor,
))
BY_CODE: Dict[str, Rule] = {r.id: r for r in RULES}


def on(subject: str) -> Tuple[Rule, ...]:
    """The rules called with `subject` (see the module doc), in run order."""
    return tuple(r for r in RULES if r.options.get("on") == subject)


def all_codes() -> List[str]:
    return sorted(BY_CODE)


def default_codes() -> List[str]:
    return sorted(r.id for r in RULES if r.options.get("default", True))


def module_of(r: Rule):
    """The rule's module: its documentation and its examples."""
    import sys
    return sys.modules[r.func.__module__]


def row(r: Rule) -> Dict[str, object]:
    """The rule as data: `--list-rules --format json`, the SARIF rule descriptors."""
    o = r.options
    out = {"name": r.name, "severity": r.severity, "summary": r.doc, "fixable": o.get("fixable", False),
           "since": o.get("since"), "links": list(r.links), "source": o.get("source")}
    why = " ".join(x for x in (section(r, "Why it matters"), section(r, "Fix")) if x)
    if why:
        out["explain"] = why
    if not o.get("default", True):
        out["default"] = False
    return out


def section(r: Rule, title: str) -> str:
    """The text of one `## title` section of the rule's documentation, as one paragraph."""
    text = r.docs
    head = "## %s\n" % title
    at = text.find(head)
    if at < 0:
        return ""
    body = text[at + len(head):].split("\n## ", 1)[0]
    return " ".join(body.split())
