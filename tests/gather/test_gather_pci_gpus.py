"""GPUs on the PCI bus, read from sysfs without any driver: NVIDIA's and AMD's, each by vendor and
display class (a sysfs tree built in a temp directory, as the kernel lays it out)."""

from torchdoctor.gather.system import kfd_gfx_targets, pci_amd_gpus, pci_nvidia_gpus


def device(root, slot, vendor, cls, dev="0x0000"):
    d = root / slot
    d.mkdir(parents=True)
    (d / "vendor").write_text(vendor + "\n")
    (d / "class").write_text(cls + "\n")
    (d / "device").write_text(dev + "\n")


def test_each_vendor_reads_its_own_display_controllers(tmp_path):
    device(tmp_path, "0000:01:00.0", "0x10de", "0x030000", "0x2684")   # an RTX 4090
    device(tmp_path, "0000:01:00.1", "0x10de", "0x040300")             # its HDMI audio: not a GPU
    device(tmp_path, "0000:03:00.0", "0x1002", "0x030000", "0x744c")   # a Radeon RX 7900
    device(tmp_path, "0000:c4:00.0", "0x1002", "0x038000", "0x1586")   # an APU's "display controller"
    device(tmp_path, "0000:00:14.0", "0x8086", "0x0c0330")             # a USB controller
    assert pci_nvidia_gpus(str(tmp_path)) == [{"slot": "0000:01:00.0", "device_id": "0x2684"}]
    device(tmp_path, "0000:85:00.0", "0x1002", "0x120000", "0x74a5")   # an Instinct MI325X: a processing accelerator
    device(tmp_path, "0000:86:00.0", "0x10de", "0x120000")             # not a GPU class NVIDIA uses
    assert [g["slot"] for g in pci_amd_gpus(str(tmp_path))] == ["0000:03:00.0", "0000:85:00.0", "0000:c4:00.0"]
    assert [g["slot"] for g in pci_nvidia_gpus(str(tmp_path))] == ["0000:01:00.0"]


def test_no_sysfs_is_absent_not_empty(tmp_path):
    got = pci_amd_gpus(str(tmp_path / "missing"))
    assert isinstance(got, dict) and "_absent" in got


def test_kfd_names_each_gpu_nodes_gfx_target_and_skips_the_cpu(tmp_path):
    for node, version in (("0", 0), ("1", 110000), ("2", 90010), ("3", 120001)):
        (tmp_path / node).mkdir()
        (tmp_path / node / "properties").write_text("cpu_cores_count 0\ngfx_target_version %d\nsimd_count 0\n" % version)
    assert kfd_gfx_targets(str(tmp_path)) == ["gfx1100", "gfx90a", "gfx1201"]
    assert "_absent" in kfd_gfx_targets(str(tmp_path / "missing"))
