"""torch.compile on Windows with an MSVC whose language pack is not English: torch 2.13+ says so
itself; older releases crashed decoding cl.exe's localised output. Both are one condition, apart
from a missing cl.exe and from decoding errors elsewhere."""

from torchdoctor.match.matcher import match_text


def top(text):
    found = match_text(text)
    return found[0].id if found else None


def test_torchs_own_language_pack_check():
    text = ("RuntimeError: Torch.compile() is only support MSVC with English language pack,"
            "Please reinstall its language pack to English.")
    assert top(text) == "inductor-msvc-not-english"


def test_the_older_decode_crash_on_cl_output_is_the_same_condition():
    for byte, pos in (("0xd3", "0"), ("0xb4", "13")):
        text = ("torch._inductor.exc.InductorError: UnicodeDecodeError: 'utf-8' codec can't decode byte %s in "
                "position %s: invalid continuation byte" % (byte, pos))
        m = match_text(text)[0]
        assert m.id == "inductor-msvc-not-english" and m.confidence == "high", text


def test_a_missing_cl_and_a_plain_decode_error_stay_apart():
    assert top("torch._inductor.exc.InductorError: RuntimeError: Compiler: cl is not found.") == \
        "inductor-msvc-not-found"
    assert top("UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte") != \
        "inductor-msvc-not-english"
