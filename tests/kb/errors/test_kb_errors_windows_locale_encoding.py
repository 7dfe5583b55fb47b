"""A UTF-8 file read (or text written) through the Windows locale's code page: each code page's wording
is this entry; a binary file read as text (0x80 at position 0), UTF-8 decode failures and Python 2
pickles are not."""

import pytest

from torchdoctor.match.matcher import HIGH, match_text

ENTRY = "windows-locale-encoding"


@pytest.mark.parametrize("text", [
    "UnicodeDecodeError: 'gbk' codec can't decode byte 0xac in position 70: illegal multibyte sequence",
    "UnicodeDecodeError: 'charmap' codec can't decode byte 0x9d in position 1015: character maps to <undefined>",
    "UnicodeDecodeError: 'cp932' codec can't decode byte 0x85 in position 12: illegal multibyte sequence",
    "UnicodeDecodeError: 'cp949' codec can't decode byte 0xec in position 4: illegal multibyte sequence",
    "UnicodeEncodeError: 'gbk' codec can't encode character '\\u2022' in position 0: illegal multibyte sequence",
    "UnicodeEncodeError: 'charmap' codec can't encode character '\\U0001f609' in position 3364: character maps to "
    "<undefined>",
    "UnicodeEncodeError: 'gbk' codec can't encode character '\\xa0' in position 12: illegal multibyte sequence",
    "UnicodeEncodeError: 'charmap' codec can't encode characters in position 1-2: character maps to <undefined>",
])
def test_each_code_page_wording_is_this_entry(text):
    found = match_text(text)
    assert found and found[0].id == ENTRY and found[0].confidence == HIGH, [(m.id, m.confidence) for m in found]


@pytest.mark.parametrize("text, other", [
    # a binary pickle read as text starts with 0x80 at position 0: a Python 2 pickle's entry, not the code page
    ("UnicodeDecodeError: 'gbk' codec can't decode byte 0x80 in position 0: illegal multibyte sequence", None),
    ("  File \"train.py\", line 9, in <module>\n    data = pickle.load(f)\nUnicodeDecodeError: 'ascii' codec can't "
     "decode byte 0x8c in position 16: ordinal not in range(128)", "pickle-from-python2"),
    ("UnicodeDecodeError: 'utf-8' codec can't decode byte 0x8b in position 1: invalid start byte", None),
])
def test_utf8_failures_and_binary_files_are_not_this_entry(text, other):
    found = [m.id for m in match_text(text)]
    assert ENTRY not in found
    if other:
        assert found and found[0] == other, found
