"""The memory facts: RAM and the cgroup's memory limit (a container's --memory, a job's --mem)."""

from torchdoctor.gather import system


def fake_files(monkeypatch, files):
    monkeypatch.setattr(system, "_read", lambda path, limit=1 << 20: files.get(path))


def test_cgroup_v2_and_v1_limits(monkeypatch):
    fake_files(monkeypatch, {"/sys/fs/cgroup/memory.max": "8589934592\n"})
    assert system.cgroup_memory_limit() == 8 << 30
    fake_files(monkeypatch, {"/sys/fs/cgroup/memory/memory.limit_in_bytes": "4294967296\n"})
    assert system.cgroup_memory_limit() == 4 << 30


def test_no_limit_is_none(monkeypatch):
    fake_files(monkeypatch, {"/sys/fs/cgroup/memory.max": "max\n"})
    assert system.cgroup_memory_limit() is None
    fake_files(monkeypatch, {"/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712"})
    assert system.cgroup_memory_limit() is None
    fake_files(monkeypatch, {})
    assert system.cgroup_memory_limit() is None
    assert "cgroup_limit_bytes" not in system.memory_facts()


def test_memory_facts_carry_the_limit(monkeypatch):
    fake_files(monkeypatch, {"/sys/fs/cgroup/memory.max": "1073741824"})
    assert system.memory_facts()["cgroup_limit_bytes"] == 1 << 30
