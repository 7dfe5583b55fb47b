"""The pure parts of torchdoctor dist: launcher variables, bandwidth definitions, naming,
topology parsing and bounds, torchrun's failure summary, the data file and its sources."""

import json
import os
import re

import pytest

from conftest import REFERENCE
from torchdoctor.verbs.dist import bandwidth as B
from torchdoctor.verbs.dist import env as E
from torchdoctor.verbs.dist import jobfacts as J
from torchdoctor.verbs.dist import launch as L
from torchdoctor.verbs.dist import topology as T

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "fixtures")


def fixture(name):
    with open(os.path.join(FIX, name), encoding="utf-8") as fh:
        return fh.read()


# ------------------------------------------------------------------------- env --
TORCHRUN = {"RANK": "3", "WORLD_SIZE": "8", "LOCAL_RANK": "1", "LOCAL_WORLD_SIZE": "2", "GROUP_RANK": "1",
            "MASTER_ADDR": "localhost", "MASTER_PORT": "29500", "TORCHELASTIC_RUN_ID": "abc",
            "TORCHELASTIC_USE_AGENT_STORE": "True", "TORCHELASTIC_RESTART_COUNT": "0"}


def test_torchrun_variables():
    j = E.detect(TORCHRUN)
    assert (j.launcher, j.rank, j.world_size, j.local_rank, j.local_world_size, j.node_rank) == \
        ("torchrun", 3, 8, 1, 2, 1)
    assert j.agent_store and j.run_id == "abc" and j.master_port == 29500


def test_plain_env_variables_make_rank_0_the_store_host():
    j = E.detect({"RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "1234"})
    assert j.launcher == "env" and not j.agent_store and j.local_rank is None


def test_slurm_step_variables():
    env = {"SLURM_PROCID": "5", "SLURM_NTASKS": "8", "SLURM_LOCALID": "1", "SLURM_NODEID": "1",
           "SLURM_STEP_TASKS_PER_NODE": "4(x2)", "SLURM_STEP_NODELIST": "gpu[07-08]", "SLURM_JOB_ID": "4242",
           "SLURM_STEP_ID": "0"}
    j = E.detect(env)
    assert (j.launcher, j.rank, j.world_size, j.local_rank, j.local_world_size, j.node_rank) == \
        ("slurm", 5, 8, 1, 4, 1)
    assert j.master_addr == "gpu07" and j.master_port == 20000 + 4242 % 10000 and j.run_id == "slurm-4242.0"


def test_torchrun_wins_inside_a_slurm_allocation():
    env = dict(TORCHRUN, SLURM_PROCID="0", SLURM_NTASKS="1", SLURM_STEP_ID="0")
    assert E.detect(env).launcher == "torchrun"


def test_a_batch_script_is_not_a_launch():
    assert E.detect({"SLURM_PROCID": "0", "SLURM_NTASKS": "4", "SLURM_JOB_ID": "1"}) is None
    assert E.detect({}) is None


@pytest.mark.parametrize("env,msg", [
    ({"RANK": "0"}, "WORLD_SIZE is not set"),
    ({"RANK": "2", "WORLD_SIZE": "2", "MASTER_ADDR": "h", "MASTER_PORT": "1"}, "not below WORLD_SIZE"),
    ({"RANK": "0", "WORLD_SIZE": "2", "MASTER_PORT": "1"}, "MASTER_ADDR is not set"),
    ({"RANK": "x", "WORLD_SIZE": "2", "MASTER_ADDR": "h", "MASTER_PORT": "1"}, "not a whole number"),
    ({"RANK": "0", "WORLD_SIZE": "2", "MASTER_ADDR": "h", "MASTER_PORT": "99999"}, "not a TCP port"),
])
def test_contradicting_variables_are_one_line_errors(env, msg):
    with pytest.raises(ValueError, match=msg):
        E.detect(env)


@pytest.mark.parametrize("spec,host", [("gpu[01-04,07],cpu3", "gpu01"), ("node7", "node7"),
                                       ("rack[1-2]-n[05-06]", "rack1-n05"), ("", None)])
def test_first_host_of_a_hostlist(spec, host):
    assert E.first_host(spec) == host


def test_tasks_per_node():
    assert [E.tasks_on_node("2(x3),1", i) for i in range(5)] == [2, 2, 2, 1, None]


# ------------------------------------------------------------------- bandwidth --
def test_bus_bandwidth_factors_are_nccl_tests():
    assert B.bus_factor("all_reduce", 8) == pytest.approx(2 * 7 / 8)
    assert B.bus_factor("all_gather", 8) == pytest.approx(7 / 8)
    assert B.bus_factor("reduce_scatter", 4) == pytest.approx(3 / 4)
    assert B.bus_factor("broadcast", 8) == 1
    assert B.busbw("all_reduce", 10 ** 9, 0.01, 2) == pytest.approx(100.0)
    assert B.algbw(10 ** 9, 0) is None


def test_sizes():
    assert B.parse_sizes("1M,64K,1G,64k") == [64 << 10, 1 << 20, 1 << 30]
    assert B.human_size(256 << 20) == "256 MiB" and B.human_size(1536) == "1.5 KiB"
    for bad in ("", "x", "1T", "3", "1.5"):
        with pytest.raises(ValueError):
            B.parse_sizes(bad)


# --------------------------------------------------------------------- naming --
def test_ranges_and_letters():
    assert J.ranges([0, 1, 2, 3, 4, 6, 7]) == "0-4,6-7"
    assert J.ranges([5]) == "5" and J.ranges([]) == ""
    assert J.ranks_text([2]) == "rank 2" and J.ranks_text([2, 2]) == "rank 2"
    assert J.ranks_text([0, 1, 3]) == "ranks 0-1,3"
    assert [J.node_letter(i) for i in (0, 25, 26, 27)] == ["a", "z", "aa", "ab"]


def test_split_majority_and_tie():
    assert J.split({0: "a", 1: "a", 2: "b"}) == ("a", [0, 1], [("b", [2])])
    assert J.split({0: "x", 1: "y"}) == ("x", [0], [("y", [1])])  # a tie: rank 0's side is the reference


# ------------------------------------------------------------------- topology --
def test_h100_nvswitch_matrix():
    t = T.parse_topo_matrix(fixture("topo_h100_nv18.txt"))
    assert t["gpus"] == list(range(8)) and len(t["links"]) == 28
    assert set(t["links"].values()) == {"NV18"}
    assert t["cpu_affinity"][4] == "48-95,144-191" and t["numa"][4] == "1"


def test_tab_separated_phb_matrix():
    t = T.parse_topo_matrix(fixture("topo_2x5090_phb.txt"))
    assert t["gpus"] == [0, 1] and t["links"] == {"0-1": "PHB"}


def test_matrix_with_a_nic_column():
    t = T.parse_topo_matrix(fixture("topo_k8s_pix_sys_partial.txt"))
    assert t["links"]["0-1"] == "PIX" and t["links"]["0-4"] == "SYS" and t["links"]["2-3"] == "PIX"
    assert t["cpu_affinity"][0] == "0-9,20-29"


def _node(matrix, cap="9.0", gen=5, width=16):
    t = T.parse_topo_matrix(fixture(matrix))
    return {"topo": t, "gpus": [{"index": i, "capability": cap, "pcie_gen": gen, "pcie_width": width}
                                for i in t["gpus"]]}


def test_nvlink_bound():
    b = T.intra_node_bound(_node("topo_h100_nv18.txt"), list(range(8)))
    assert b["gbps"] == 18 * 25 and b["judged"]


def test_pcie_bound_through_the_host_bridge():
    b = T.intra_node_bound(_node("topo_2x5090_phb.txt", cap="12.0", gen=5), [0, 1])
    assert b["gbps"] == pytest.approx(16 * 3.938) and b["judged"] and b["link"].startswith("PHB")


def test_cross_socket_bound_is_reported_not_judged():
    b = T.intra_node_bound(_node("topo_k8s_pix_sys_partial.txt", cap="7.0", gen=3), [0, 4])
    assert not b["judged"] and "socket" in b["why"]
    assert T.intra_node_bound(_node("topo_k8s_pix_sys_partial.txt"), [0]) is None


def test_unknown_nvlink_rate_is_not_guessed():
    b = T.intra_node_bound(_node("topo_h100_nv18.txt", cap="7.5"), [0, 1])
    assert b["gbps"] is None and not b["judged"]


def test_inter_node_bound_is_the_slowest_nodes_network():
    ib = [{"active": True, "gbit": 400.0}] * 8
    nodes = [{"label": "a", "ib": ib}, {"label": "b", "ib": ib[:4]}]
    b = T.inter_node_bound(nodes)
    assert b["gbps"] == 200.0 and b["node"] == "b"
    eth = {"label": "c", "ib": [], "net": [{"name": "eth0", "up": True, "mbit": 25000, "virtual": False}]}
    assert T.inter_node_bound([eth])["gbps"] == pytest.approx(3.125)


@pytest.mark.parametrize("spec,names,hits", [
    ("eth", ["eth0", "eth1", "ib0", "lo"], ["eth0", "eth1"]),
    ("=eth0", ["eth0", "eth01"], ["eth0"]),
    ("^docker,lo", ["docker0", "lo", "ens5"], ["ens5"]),
    ("^=docker0", ["docker0", "docker1"], ["docker1"]),
    ("ib", ["eth0", "lo"], []),
])
def test_nccl_socket_ifname_rule(spec, names, hits):
    assert T.ifname_matches(spec, names) == hits


def test_pci_query_and_gpu_hash():
    rows = T.parse_pci_query("0, GPU-8a1b2c3d-0000-1111-2222-333344445555, 00000000:3B:00.0, 4, 16, 8.0\n"
                             "garbage\n")
    assert rows == [{"index": 0, "gpu_hash": T.gpu_hash("8a1b2c3d-0000-1111-2222-333344445555"),
                     "pci_bus_id": "0000:3b:00.0", "pcie_gen": 4, "pcie_width": 16, "capability": "8.0"}]
    assert T.gpu_hash("GPU-ABC") == T.gpu_hash("abc") and T.gpu_hash("") is None


def test_net_interfaces_on_this_machine_are_read_without_error():
    for rec in T.net_interfaces():
        assert set(rec) >= {"name", "up", "virtual"}


# ------------------------------------------------------------ torchrun's summary --
def test_torchrun_child_failed_summary():
    exits = L.parse_torchrun_failures(fixture("torchrun_child_failed.txt"))
    assert exits[1] == {"exitcode": 7, "pid": 14425, "local_rank": 1, "root": True, "signal": None}
    assert exits[0]["exitcode"] == -15 and exits[0]["signal"] == "SIGTERM" and not exits[0]["root"]


def test_merge_exits_marks_the_root_and_the_victims(tmp_path):
    job = {"ranks": [{"rank": 0, "joined": True, "summary": {}}, {"rank": 1, "joined": True, "summary": {}}],
           "steps": [{"name": "all_reduce", "per_rank": {"0": {"status": "error"}, "1": {"status": "missing"}}}]}
    L.merge_exits(job, L.parse_torchrun_failures(fixture("torchrun_child_failed.txt")), str(tmp_path))
    assert job["ranks"][1]["fate"]["exitcode"] == 7 and job["ranks"][1]["fate"]["step"] == "all_reduce"
    assert job["ranks"][0]["fate"]["victim"] is True


# ------------------------------------------------------------------ the data file --
def test_data_values_have_sources():
    d = T.data()
    for cap, rec in d["nvlink_link_gbps"]["by_capability"].items():
        assert re.match(r"^\d+\.\d+$", cap) and rec["gbps"] > 0 and rec["source"].startswith("https://")
        assert rec["quote"]
    assert d["pcie_lane_gbps"]["source"].startswith("https://")
    for kind in ("nccl", "gloo"):
        for item in d["timeout_debug"][kind]:
            assert item["source"].startswith("https://") and item["name"] and item["value"]
    assert d["shm"]["source"].startswith("https://") and d["shm"]["min_bytes"] == 1 << 30


@pytest.mark.skipif(not os.path.exists(os.path.join(REFERENCE, "NOTES.md")),
                    reason="../shared/reference is not beside this checkout")
def test_data_agrees_with_the_shared_reference():
    with open(os.path.join(REFERENCE, "NOTES.md"), encoding="utf-8") as fh:
        notes = fh.read()
    listed = set(re.findall(r"`([A-Z_]+)`", notes))
    torch_nccl = [x["name"] for x in T.data()["timeout_debug"]["nccl"] if x["name"].startswith("TORCH_NCCL_")]
    assert torch_nccl
    for name in torch_nccl:  # NOTES.md lists them without the TORCH_NCCL_ prefix
        assert name[len("TORCH_NCCL_"):] in listed or name in listed, name
    banner = T.data()["texts"]["omp_banner"]["text"]
    assert banner[:banner.index("overloaded") + len("overloaded")] in notes  # NOTES.md quotes its start
    assert "NCCL_DEBUG" in notes


def test_the_package_does_not_read_the_shared_folder():
    src = os.path.join(os.path.dirname(T.__file__))
    for name in os.listdir(src):
        if name.endswith(".py"):
            with open(os.path.join(src, name), encoding="utf-8") as fh:
                assert "shared/reference" not in fh.read() or name == "__init__.py", name


def test_data_file_is_package_data():
    import configparser
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "setup.cfg"))
    assert "dist/data/*.json" in cfg["options.package_data"]["torchdoctor"]
    json.loads(open(T.DATA_PATH, encoding="utf-8").read())


def test_last_error_of_a_launcher_traceback():
    text = ('Traceback (most recent call last):\n  File "run.py", line 755, in determine_local_world_size\n'
            '    raise ValueError("Cuda is not available.") from e\nValueError: Cuda is not available.\n')
    assert L.last_error(text) == "ValueError: Cuda is not available."
    assert L.last_error("just a line\n\n") == "just a line" and L.last_error("") == "no output"


@pytest.mark.parametrize("args", [["dist", "--timeout", "nan"], ["dist", "--join-timeout", "inf"],
                                  ["dist", "--timeout", "-1"], ["dist", "--iters", "0"],
                                  ["check", "--timeout", "inf"], ["check", "--timeout", "nan"]])
def test_a_time_limit_that_is_not_a_positive_finite_number_is_one_line_and_exit_2(args):
    from click.testing import CliRunner

    from torchdoctor.cli import cli
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 2, (res.output, res.exception)
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("torchdoctor: error: %s must be a positive" % args[1]), res.stderr
