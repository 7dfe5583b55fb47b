"""Rendering: the rows text and Markdown share must say what the facts say (unknown is
not "no"), and a finding marks its rows with its severity whatever else is in its category."""

from conftest import make_facts
from torchdoctor.model.findings import Finding
from torchdoctor.render import rows as R


def _row(sections, label):
    for _, rows in sections:
        for r in rows:
            if r.label == label:
                return r
    raise AssertionError("no row %r" % label)


def test_a_warning_is_not_hidden_by_a_later_note_of_the_same_category():
    # Findings come sorted error > warning > info; a config warning followed by a config
    # note used to leave the rows of that category unmarked.
    f = make_facts(env={"CUDA_LAUNCH_BLOCKING": "1"})
    findings = [Finding("cuda-launch-blocking", "config", "warning", "CUDA_LAUNCH_BLOCKING=1"),
                Finding("cudnn-benchmark", "config", "info", "cudnn.benchmark is on")]
    assert _row(R.build(f, findings), "CUDA_LAUNCH_BLOCKING").mark == "warn"


def test_unknown_build_flavours_of_a_paste_are_unknown_not_no():
    # collect_env paste without "CUDA used to build PyTorch": the summary said "unknown",
    # the rows said "CUDA build  no".
    f = make_facts(torch_import={"ok": True}, torch={"version": "2.5.1"}, source="collect_env")
    sections = R.build(f)
    for label in ("CUDA build", "ROCm/HIP build", "XPU build"):
        r = _row(sections, label)
        assert (r.value, r.mark) == ("unknown", "unknown"), (label, r)
    assert _row(sections, "environment").value.startswith("unknown")
    assert _row(sections, "CUDA toolkit (nvcc)").mark == "unknown"


def test_known_absent_flavours_still_say_no():
    f = make_facts(torch_import={"ok": True}, env={},
                   torch={"version": "2.13.0+cpu", "cuda": {"_absent": "not built with it"},
                          "hip": {"_absent": "not built with it"}, "xpu": {"_absent": "not built with it"}})
    sections = R.build(f)
    assert _row(sections, "CUDA build").value == "no"
    assert _row(sections, "environment").value == "no torch-related variables set"


def test_markdown_detail_with_a_dashed_separator_does_not_become_a_heading():
    # A probe's stderr tail in a finding's detail: "text\n-----" is a setext heading in
    # GitHub Markdown, turning the line above into an <h2>.
    from torchdoctor.render.markdown import render_finding
    fi = Finding("torch-import-crash", "torch-import-crash", "error", "`import torch` crashed",
                 detail="Last output:\nFatal Python error: Segmentation fault\n--------------------\n==========")
    body = "\n".join(render_finding(fi))
    assert "Segmentation fault  \n\\--------------------  \n\\==========" in body, body


# -- diff: what a collect_env paste does not list is not "not installed" -----------------
def test_diff_of_a_report_and_a_paste_does_not_call_unlisted_packages_uninstalled(tmp_path):
    import copy
    import json

    from torchdoctor.verbs.diff import diff_reports, load_any
    from torchdoctor.model.facts import Facts
    from torchdoctor.diagnose import diagnose
    report = {"schema_version": 1, "source": "probe", "torch_import": {"ok": True},
              "torch": {"version": "2.5.1+cu121", "cuda": "12.1"}, "os": {"system": "Linux"},
              "python": {"version": "3.11.9"},
              "packages": {"installed": {"torch": {"version": "2.5.1+cu121"}, "numpy": {"version": "1.26.4"},
                                         "transformers": {"version": "4.46.0"}, "pillow": {"version": "11.0.0"},
                                         "torchaudio": {"version": "2.5.1+cu121"}}},
              "env": {"OMP_NUM_THREADS": "8"}}
    a = tmp_path / "a.json"
    a.write_text(json.dumps(diagnose(Facts(copy.deepcopy(report))).to_dict()))
    b = tmp_path / "paste.txt"
    b.write_text("PyTorch version: 2.5.1+cu121\nCUDA used to build PyTorch: 12.1\nOS: Ubuntu 22.04.4 LTS (x86_64)\n"
                 "Python version: 3.11.9\nCUDA_MODULE_LOADING set to: LAZY\n"
                 "Versions of relevant libraries:\n[pip3] numpy==1.26.4\n[pip3] torch==2.5.1+cu121\n")
    d = diff_reports(load_any(str(a)), load_any(str(b)))
    changed = {(c.area, c.key) for c in d.changes}
    # collect_env lists only packages matching its name patterns, and only a few env vars
    assert ("packages", "transformers") not in changed and ("packages", "pillow") not in changed, changed
    assert ("env", "OMP_NUM_THREADS") not in changed, changed
    assert ("packages", "transformers") in {(c.area, c.key) for c in d.not_comparable}
    # ...but it does list every torch* package: a missing torchaudio is a real difference
    assert ("packages", "torchaudio") in changed


def test_commands_are_shell_lines_and_notebook_cells_stay_cells():
    from torchdoctor.render.style import Style
    st = Style(color=False)
    assert st.command("python -m pip install torch") == "$ python -m pip install torch"
    assert st.command("%pip install torch") == "%pip install torch"  # a '$' would not run in a cell
    assert st.command("!nvidia-smi") == "!nvidia-smi"
