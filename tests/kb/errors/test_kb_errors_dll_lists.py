"""The Windows entries that name torch's own DLLs hold one list: a DLL added to one pattern and not
the others would send the same `Error loading "X.dll"` to different entries by its WinError."""

import re

from torchdoctor.kb.errors import load_entries

DLL_LIST = re.compile(r"\(\?:(c10\|c10_cuda\|[\w|]+)\)\\\.dl")


def test_every_pattern_naming_torchs_dlls_names_the_same_ones():
    lists = {}
    for e in load_entries():
        for p in e.patterns:
            for m in DLL_LIST.finditer(p.source):
                lists.setdefault(m.group(1), []).append(e.id)
    assert len(lists) == 1, lists
    (names,) = lists
    assert {"c10", "torch_cpu", "torch_python", "shm", "fbgemm", "libiomp5md", "uv"} <= set(names.split("|"))
    assert sorted(set(sum(lists.values(), []))) == ["windows-dll-init-failed-1114", "windows-torch-dll-not-found"]
