# SPDX-License-Identifier: MIT
"""What QEMU was told (run-guest.sh's command line, restated) and what the guest's
kernel makes of it: the expected facts of the guest integration tests. check-guest.py
asserts them; its check_qemu_argv() keeps them and run-guest.sh from drifting apart."""
import os


GiB = 1 << 30

# PCI resource flags in sysfs `resource` (include/linux/ioport.h).
IORESOURCE_MEM = 0x200
IORESOURCE_PREFETCH = 0x2000
IORESOURCE_MEM_64 = 0x100000

RP1, RP2, RP3 = "0000:00:01.0", "0000:00:02.0", "0000:00:03.0"
UP = "0000:01:00.0"
DN1, DN2, DN3 = "0000:02:00.0", "0000:02:01.0", "0000:02:02.0"
IVS1, IVS2, NVME, IVS3, NIC = (
    "0000:03:00.0",
    "0000:04:00.0",
    "0000:05:00.0",
    "0000:06:00.0",
    "0000:07:00.0",
)
ENDPOINTS = [IVS1, IVS2, NVME, IVS3, NIC]
SWITCH = [UP, DN1, DN2, DN3]

# bdf -> (vendor:device, class, parent bdf, memdev of the large BAR or None)
TOPOLOGY = {
    RP1: ("1b36:000c", 0x060400, None, None),
    RP2: ("1b36:000c", 0x060400, None, None),
    RP3: ("1b36:000c", 0x060400, None, None),
    UP: ("104c:8232", 0x060400, RP1, None),
    DN1: ("104c:8233", 0x060400, UP, None),
    DN2: ("104c:8233", 0x060400, UP, None),
    DN3: ("104c:8233", 0x060400, UP, None),
    IVS1: ("1af4:1110", 0x050000, DN1, "m1"),
    IVS2: ("1af4:1110", 0x050000, DN2, "m2"),
    NVME: ("1b36:0010", 0x010802, DN3, "pmr"),
    IVS3: ("1af4:1110", 0x050000, RP2, "m3"),
    NIC: ("8086:10d3", 0x020000, RP3, None),
}

# The large 64-bit prefetchable BAR of each "GPU-like" endpoint:
# bdf -> (BAR index, size). ivshmem-plain exposes its memory backend as BAR2,
# QEMU's nvme its persistent memory region (pmrdev) as BAR4.
BIG_BARS = {IVS1: (2, 4 * GiB), IVS2: (2, 8 * GiB), NVME: (4, 1 * GiB), IVS3: (2, 16 * GiB)}
MEMDEV_SIZES = {"m1": "4G", "m2": "8G", "pmr": "1G", "m3": "16G"}
# Small BARs QEMU gives these devices (hw/misc/ivshmem.c: 256-byte register
# BAR0; hw/nvme: 16 KiB BAR0 holding registers and the MSI-X table).
SMALL_BARS = {IVS1: (0, 256), IVS2: (0, 256), IVS3: (0, 256), NVME: (0, 16 * 1024)}

if os.environ.get("P2PS_VM_BREAK") == "1":
    # Deliberately wrong: QEMU was told 4G for m1.
    BIG_BARS[IVS1] = (2, 2 * GiB)


def vfio_regions(bdf):
    """VFIO regions (index -> size) of an endpoint, from the same BAR facts:
    unused BARs and the upper halves of 64-bit BARs are regions of size 0;
    region 7 is config space (256 bytes for conventional PCI, 4096 for PCIe)."""
    if bdf == NIC:  # e1000e: three memory BARs and an I/O BAR, no 64-bit ones
        return {0: 128 * 1024, 1: 128 * 1024, 2: 32, 3: 16 * 1024, 4: 0, 5: 0, 7: 4096}
    regions = {i: 0 for i in range(7)}
    for table in (BIG_BARS, SMALL_BARS):
        idx, size = table[bdf]
        regions[idx] = size
    regions[7] = 4096 if bdf == NVME else 256
    return regions


VFIO_ENDPOINTS = [IVS1, IVS2, NVME, IVS3, NIC]
PCIE_TYPE = {RP1: "Root Port", RP2: "Root Port", RP3: "Root Port", UP: "Upstream Port",
             DN1: "Downstream Port", DN2: "Downstream Port", DN3: "Downstream Port",
             IVS1: None, IVS2: None, IVS3: None, NVME: "Endpoint", NIC: "Endpoint"}
# The stand-in GPUs (bar-inspect --peers): two under the switch, one on rp2.
PEERS = [IVS1, IVS2, IVS3]
MATRIX = [["X", "PIX", "PHB"], ["PIX", "X", "PHB"], ["PHB", "PHB", "X"]]

# NVMe VS register (BAR0 + 0x8): QEMU's controller reports NVMe 1.4.
NVME_VS = "0x00010400"

# ACS on QEMU's pcie-root-port: capability 0x5f (SV TB RR CR UF DT); Linux
# enables Source Validation, Request Redirect, Completion Redirect and Upstream
# Forwarding (0x1d) on every port that has the capability.
ACS_CAP_ID = 0x000D
RP_ACS_CAP = 0x005F
RP_ACS_CTL = 0x001D
