"""Shorter or older forms of known messages, and the setuptools change that breaks
torch.utils.cpp_extension of torch 2.3 and older. The texts are from public reports (one is also
its entry's example); none is an evaluation text."""

import pytest

from torchdoctor.match.matcher import HIGH, match_text


def top(text):
    found = match_text(text)
    return (found[0].id, found[0].confidence) if found else None


ROUTES = [
    # torch before 1.11 named neither the address nor the port
    ("pytorch training errors - RuntimeError: Address already in use", "dist-rendezvous-port-in-use"),
    # the second sentence of the fork message on a line of its own
    ("To use CUDA with multiprocessing, you must use the 'spawn' start method\n", "cuda-in-forked-subprocess"),
    ("    from pkg_resources import packaging  # type: ignore[attr-defined]\n"
     "ImportError: cannot import name 'packaging' from 'pkg_resources' "
     "(C:\\ProgramData\\miniforge3\\envs\\models\\lib\\site-packages\\pkg_resources\\__init__.py)",
     "cpp-extension-setuptools-pkg-resources"),
]


@pytest.mark.parametrize("text,entry", ROUTES, ids=[e for _, e in ROUTES])
def test_a_short_form_lands_on_its_entry(text, entry):
    assert top(text) == (entry, HIGH)


@pytest.mark.parametrize("text", [
    "OSError: [Errno 98] Address already in use",  # any Python server's socket
    "RuntimeError: Address already in use (os error 98)",  # a Rust service, not torch's store
    "error: address already in use",
])
def test_other_programs_busy_ports_are_not_torchs_rendezvous(text):
    assert top(text) is None or top(text)[0] != "dist-rendezvous-port-in-use"


# Issue titles that drop words of the message, and torchvision 0.26's removed video API.
TITLE_FORMS = [
    ("No kernel image available for execution", "cuda-no-kernel-image"),  # an issue title
    ("ImportError: cannot import name 'VideoReader' from 'torchvision.io'", "torchvision-video-io-removed"),
]


@pytest.mark.parametrize("text,entry", TITLE_FORMS, ids=[e for _, e in TITLE_FORMS])
def test_a_title_form_lands_on_its_entry(text, entry):
    assert top(text)[0] == entry


@pytest.mark.parametrize("text", [
    "ImportError: cannot import name 'read_image' from 'torchvision.io'",  # image IO is still there
    "ImportError: cannot import name 'VideoReader' from 'decord'",  # another package's reader
    "No module named 'torchvision.io.image'",
])
def test_torchvisions_image_io_and_other_readers_are_not_the_removed_video_api(text):
    found = top(text)
    assert found is None or found[0] != "torchvision-video-io-removed"
