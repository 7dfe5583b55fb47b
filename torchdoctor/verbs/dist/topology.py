"""A node's GPU interconnect and network, and the bus bandwidth it should reach.

Reading (one rank per node does it, each command time-limited): ``nvidia-smi topo -m``
(the link matrix), ``nvidia-smi --query-gpu=...`` (PCIe generation and width, UUIDs),
/sys/class/infiniband (active HCA ports and their rates) and /sys/class/net (interfaces,
their state and speed). Everything else here is pure: the parser of the matrix, the NCCL
interface-prefix rule and the expected bound, with the link rates from data/dist.json.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
from typing import Any, Dict, Iterable, List, Optional, Tuple

DATA_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "dist.json")
_DATA: Optional[Dict[str, Any]] = None

PCI_FIELDS = ("index", "uuid", "pci.bus_id", "pcie.link.gen.max", "pcie.link.width.max", "compute_cap")
VIRTUAL_IFACES = ("lo", "docker", "veth", "virbr", "br-", "cni", "flannel", "cali", "tunl", "vxlan", "kube")


def data() -> Dict[str, Any]:
    global _DATA
    if _DATA is None:
        with open(DATA_PATH, encoding="utf-8") as fh:
            _DATA = json.load(fh)
    return _DATA


def gpu_hash(uuid: Any) -> Optional[str]:
    """A short, one-way name for a GPU UUID (the UUID itself is redacted before it travels)."""
    if not isinstance(uuid, str) or not uuid.strip():
        return None
    norm = uuid.strip().lower()
    if norm.startswith(("gpu-", "mig-")):
        norm = norm[4:]
    return hashlib.sha256(norm.encode()).hexdigest()[:12]


# ------------------------------------------------------------- parsing (pure) --
def parse_topo_matrix(text: str) -> Dict[str, Any]:
    """`nvidia-smi topo -m` -> {"gpus": [0, 1, ..], "links": {"0-1": "NV12", ..},
    "nics": {"NIC0": "mlx5_0", ..}, "cpu_affinity": {0: "0-47,96-143"}, "numa": {0: "0"}}."""
    columns: List[str] = []
    links: Dict[str, str] = {}
    gpus: List[int] = []
    affinity: Dict[int, str] = {}
    numa: Dict[int, str] = {}
    nics: Dict[str, str] = {}
    for raw in (text or "").splitlines():
        line = raw.rstrip()
        tokens = line.split()
        if not tokens:
            continue
        m = re.match(r"^\s*(NIC\d+)\s*:\s*(\S+)\s*$", line)
        if m:
            nics[m.group(1)] = m.group(2)
            continue
        if not columns and tokens[0] == "GPU0" and "X" not in tokens:
            # the header: device columns up to "CPU Affinity"
            for t in tokens:
                if t == "CPU":
                    break
                columns.append(t)
            continue
        if columns and re.match(r"^GPU\d+$", tokens[0]):
            i = int(tokens[0][3:])
            values = tokens[1:1 + len(columns)]
            if len(values) < len(columns):
                continue
            gpus.append(i)
            for col, v in zip(columns, values):
                cm = re.match(r"^GPU(\d+)$", col)
                if cm and int(cm.group(1)) != i:
                    j = int(cm.group(1))
                    links["%d-%d" % (min(i, j), max(i, j))] = v
            rest = tokens[1 + len(columns):]
            if rest and re.match(r"^[\d,\-]+$", rest[0]):
                affinity[i] = rest[0]
                if len(rest) > 1 and re.match(r"^\d+$", rest[1]):
                    numa[i] = rest[1]
    return {"gpus": sorted(set(gpus)), "links": links, "nics": nics, "cpu_affinity": affinity, "numa": numa}


def link_kind(value: str) -> Tuple[str, int]:
    """'NV12' -> ('NV', 12); 'PIX' -> ('PIX', 0)."""
    m = re.match(r"^NV(\d+)$", value or "")
    if m:
        return "NV", int(m.group(1))
    return (value or "?").upper(), 0


def parse_pci_query(text: str) -> List[Dict[str, Any]]:
    out = []
    for line in (text or "").splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < len(PCI_FIELDS) or not parts[0].isdigit():
            continue
        row = dict(zip(PCI_FIELDS, parts))
        rec: Dict[str, Any] = {"index": int(row["index"]), "gpu_hash": gpu_hash(row["uuid"]),
                               "pci_bus_id": _bus(row["pci.bus_id"])}
        for key, field in (("pcie_gen", "pcie.link.gen.max"), ("pcie_width", "pcie.link.width.max")):
            if row[field].isdigit():
                rec[key] = int(row[field])
        if re.match(r"^\d+\.\d+$", row["compute_cap"]):
            rec["capability"] = row["compute_cap"]
        out.append(rec)
    return out


def _bus(text: str) -> Optional[str]:
    """'00000000:3B:00.0' -> '0000:3b:00.0' (sysfs spelling)."""
    m = re.match(r"^(?:([0-9A-Fa-f]{4,8}):)?([0-9A-Fa-f]{2}):([0-9A-Fa-f]{2})\.([0-9A-Fa-f])$", (text or "").strip())
    if not m:
        return None
    dom = (m.group(1) or "0000")[-4:]
    return ("%s:%s:%s.%s" % (dom, m.group(2), m.group(3), m.group(4))).lower()


def ifname_matches(spec: str, names: Iterable[str]) -> List[str]:
    """The interfaces NCCL_SOCKET_IFNAME=`spec` selects among `names` (NCCL's rule:
    comma-separated prefixes, '^' excludes, '=' matches a name exactly)."""
    spec = (spec or "").strip()
    exclude = spec.startswith("^")
    if exclude:
        spec = spec[1:]
    exact = spec.startswith("=")
    if exact:
        spec = spec[1:]
    parts = [p.strip() for p in spec.split(",") if p.strip()]

    def hit(name):
        return any(name == p if exact else name.startswith(p) for p in parts)

    names = list(names)
    return [n for n in names if (not hit(n)) == exclude] if parts else ([] if not exclude else names)


# --------------------------------------------------------- expectations (pure) --
def nvlink_gbps(capability: Optional[str]) -> Optional[float]:
    rec = data()["nvlink_link_gbps"]["by_capability"].get(capability or "")
    return float(rec["gbps"]) if rec else None


def pcie_gbps(gen: Optional[int], width: Optional[int]) -> Optional[float]:
    rate = data()["pcie_lane_gbps"]["by_generation"].get(str(gen)) if gen else None
    return float(rate) * width if rate and width else None


def intra_node_bound(node: Dict[str, Any], indices: List[int]) -> Optional[Dict[str, Any]]:
    """What the GPUs `indices` (nvidia-smi order) of one node should reach, as bus bandwidth.

    -> {"gbps", "link", "judged", "why"}, or None with fewer than two GPUs or no matrix."""
    topo = node.get("topo") if isinstance(node.get("topo"), dict) else None
    if not topo or len(indices) < 2:
        return None
    pcis = {g.get("index"): g for g in node.get("gpus") or [] if isinstance(g, dict)}
    kinds = []
    for a in range(len(indices)):
        for b in range(a + 1, len(indices)):
            i, j = sorted((indices[a], indices[b]))
            v = topo.get("links", {}).get("%d-%d" % (i, j))
            if v is None:
                return None
            kinds.append(link_kind(v))
    exp = data()["expectation"]
    if all(k == "NV" for k, _ in kinds):
        caps = {pcis.get(i, {}).get("capability") for i in indices}
        rates = [nvlink_gbps(c) for c in caps]
        if not rates or any(r is None for r in rates):
            return {"gbps": None, "link": "NVLink", "judged": False,
                    "why": "no NVLink rate on file for compute capability %s" % ", ".join(sorted(str(c) for c in caps))}
        n = min(c for _, c in kinds)
        per = min(rates)
        return {"gbps": n * per, "link": "NV%d (%d NVLink x %g GB/s per direction)" % (n, n, per), "judged": True,
                "why": ""}
    gens = [(pcis.get(i, {}).get("pcie_gen"), pcis.get(i, {}).get("pcie_width")) for i in indices]
    bounds = [pcie_gbps(g, w) for g, w in gens]
    worst = sorted({k for k, _ in kinds if k != "NV"}, key=lambda k: ["PIX", "PXB", "PHB", "NODE", "SYS"].index(k)
                   if k in ("PIX", "PXB", "PHB", "NODE", "SYS") else 9)[-1]
    if any(b is None for b in bounds):
        return {"gbps": None, "link": worst, "judged": False, "why": "PCIe generation/width unknown"}
    g, w = min(gens, key=lambda gw: pcie_gbps(*gw) or 0)
    link = "%s (PCIe gen %s x%s, %g GB/s per direction)" % (worst, g, w, min(bounds))
    if worst not in exp["judged_links"]:
        return {"gbps": min(bounds), "link": link, "judged": False, "why": exp["not_judged"].get(worst, worst)}
    return {"gbps": min(bounds), "link": link, "judged": True, "why": ""}


def inter_node_bound(nodes: List[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """The slowest node's network: the sum of its active HCA ports (InfiniBand/RoCE),
    or else its fastest up Ethernet link."""
    worst = None
    for node in nodes:
        ports = [p for p in node.get("ib") or [] if isinstance(p, dict) and p.get("active") and p.get("gbit")]
        if ports:
            gbps = sum(p["gbit"] for p in ports) / 8.0
            what = "%d active HCA port(s), %g Gb/s in all" % (len(ports), sum(p["gbit"] for p in ports))
        else:
            eth = [i for i in node.get("net") or [] if isinstance(i, dict) and i.get("up") and i.get("mbit")
                   and not i.get("virtual")]
            if not eth:
                return None
            best = max(eth, key=lambda i: i["mbit"])
            gbps = best["mbit"] / 8000.0
            what = "Ethernet %s at %g Gb/s" % (best.get("name"), best["mbit"] / 1000.0)
        if worst is None or gbps < worst["gbps"]:
            worst = {"gbps": gbps, "link": what, "node": node.get("label"), "judged": True, "why": ""}
    return worst


# --------------------------------------------------------------- reading ----
def _run(cmd: List[str], timeout: float) -> Tuple[Optional[str], Optional[str]]:
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, "timed out after %g s" % timeout
    except OSError as e:
        return None, str(e)
    if r.returncode != 0:
        return None, (r.stderr or r.stdout).decode("utf-8", "replace").strip()[-300:] or "exit %d" % r.returncode
    return r.stdout.decode("utf-8", "replace"), None


def _read(path: str) -> Optional[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read().strip()
    except OSError:
        return None


def net_interfaces(root: str = "/sys/class/net") -> List[Dict[str, Any]]:
    out = []
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return out
    for name in names:
        state = _read(os.path.join(root, name, "operstate"))
        speed = _read(os.path.join(root, name, "speed"))
        rec: Dict[str, Any] = {"name": name, "up": state in ("up", "unknown") and name != "lo",
                               "virtual": name.startswith(VIRTUAL_IFACES)}
        if speed and speed.lstrip("-").isdigit() and int(speed) > 0:
            rec["mbit"] = int(speed)
        out.append(rec)
    return out


def ib_ports(root: str = "/sys/class/infiniband") -> List[Dict[str, Any]]:
    out = []
    try:
        devs = sorted(os.listdir(root))
    except OSError:
        return out
    for dev in devs:
        pdir = os.path.join(root, dev, "ports")
        try:
            ports = sorted(os.listdir(pdir))
        except OSError:
            continue
        for port in ports:
            state = _read(os.path.join(pdir, port, "state")) or ""
            rate = _read(os.path.join(pdir, port, "rate")) or ""
            m = re.match(r"^\s*([\d.]+)\s*Gb/sec", rate)
            out.append({"device": dev, "port": port, "active": "ACTIVE" in state,
                        "gbit": float(m.group(1)) if m else None, "rate": rate,
                        "link_layer": _read(os.path.join(pdir, port, "link_layer"))})
    return out


def gather_node(timeout: float = 10.0) -> Dict[str, Any]:
    """The node's topology facts (called by one rank per node)."""
    out: Dict[str, Any] = {"net": net_interfaces(), "ib": ib_ports()}
    smi = shutil.which("nvidia-smi")
    if not smi:
        out["topo"] = {"_absent": "nvidia-smi not on PATH"}
        return out
    text, err = _run([smi, "topo", "-m"], timeout)
    out["topo"] = parse_topo_matrix(text) if text is not None else {"_failed": "nvidia-smi topo -m: %s" % err}
    text, err = _run([smi, "--query-gpu=" + ",".join(PCI_FIELDS), "--format=csv,noheader,nounits"], timeout)
    out["gpus"] = parse_pci_query(text) if text is not None else {"_failed": "nvidia-smi --query-gpu: %s" % err}
    return out
