"""torch.distributed.launch and a script that declare the local rank in different spellings. The
launcher, the failure and the fix are real: torch 2.13's launcher passes --local-rank, a parser
that declares only --local_rank refuses it, and the parser line the hook prints accepts both."""

import subprocess

import pytest

from torchdoctor.areas.distributed import BOTH_SPELLINGS
from torchdoctor.areas.registry import all_hooks as hooks
from torchdoctor.match.matcher import match_text

from conftest import TORCH_PYTHON, needs_torch
from hook_facts import facts, top

ID = "launcher-local-rank-spelling"
OLD = "parser.add_argument('--local_rank', default=0, type=int)"
SCRIPT = "import argparse\nparser = argparse.ArgumentParser()\n%s\nargs = parser.parse_args()\nprint('rank', args.local_rank)\n"




@pytest.mark.parametrize("text,side", [
    ("train.py: error: unrecognized arguments: --local-rank=0", "torch 2.0 or newer"),
    ("gpt2_ft.py: error: unrecognized arguments: --platform local --local-rank=3", "torch 2.0 or newer"),
    ("train.py: error: unrecognized arguments: --local_rank=0", "torch.distributed.launch of torch 1.x"),
])
def test_each_spelling_names_its_launcher(text, side):
    m = top(text)
    assert (m.id, m.confidence) == (ID, "high")
    assert side in hooks()[m.entry.tailor](m, facts()).cause


@pytest.mark.parametrize("text", [
    # another argument argparse refused: the user's command line, not the launcher's
    "train.py: error: unrecognized arguments: --lr 0.1",
    "train.py: error: unrecognized arguments: --local-ranks=2",
    # accelerate and deepspeed name their own flags
    "error: unrecognized arguments: --num_processes=2",
])
def test_other_unrecognized_arguments_are_not_this(text):
    assert ID not in [m.id for m in match_text(text)]


@needs_torch
def test_the_printed_parser_line_lets_torch_2s_launcher_start_the_script(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT % OLD)

    def launch():
        return subprocess.run([TORCH_PYTHON, "-m", "torch.distributed.launch", "--standalone", "--nproc-per-node", "1",
                               str(script)], capture_output=True, text=True, timeout=300, cwd=str(tmp_path))

    broken = launch()
    assert broken.returncode != 0
    m = top(broken.stdout + broken.stderr)
    assert m is not None and m.id == ID, (broken.stdout + broken.stderr)[-1500:]
    assert BOTH_SPELLINGS in hooks()[m.entry.tailor](m, facts()).summary
    script.write_text(SCRIPT % BOTH_SPELLINGS)
    healed = launch()
    assert healed.returncode == 0, healed.stderr[-1500:]
    assert "rank 0" in healed.stdout
