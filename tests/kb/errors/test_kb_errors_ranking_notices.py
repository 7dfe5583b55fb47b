"""A notice printed on every run ranks below the error beside it."""

from torchdoctor.match.matcher import match_text

# torchrun prints its OMP_NUM_THREADS notice on every launch with more than one process; the
# error of the run (here: Windows wheels have no libuv) is what the user needs first.
TORCHRUN_WINDOWS = (
    "RuntimeError: use_libuv was requested but PyTorch was build without libuv support\n"
    "W1222 18:00:48.018000 13964 site-packages\\torch\\distributed\\run.py:792] Setting OMP_NUM_THREADS "
    "environment variable for each process to be 1 in default, to avoid your system being overloaded, "
    "please further tune the variable for optimal performance in your application as needed.\n")


def test_the_error_ranks_above_torchruns_thread_notice():
    ids = [m.id for m in match_text(TORCHRUN_WINDOWS)]
    assert ids[0] == "libuv-not-built-use-libuv"
    assert "torchrun-omp-num-threads-default" in ids


def test_the_notice_alone_is_still_explained():
    ids = [m.id for m in match_text(TORCHRUN_WINDOWS.split("\n", 1)[1])]
    assert ids == ["torchrun-omp-num-threads-default"]
