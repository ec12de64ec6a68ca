#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Each name of the driver's P2P vocabulary is written once in src/: in the driver table.

The NV0000_P2P_CAPS_STATUS_* names and the codes nvidia-smi prints for them, the caps
indices and the connectivity paths are one vocabulary (include/p2pscope/nvidia_drivers.h);
every library prints them through its functions (p2ps_nv_status_name(), _code(),
p2ps_nv_caps_index_name(), p2ps_nv_path_name()), so a second copy of a name in src/ is a
second table that can drift. The check counts each name as a whole string literal in the C
sources under src/ (comments removed) and fails unless it occurs exactly once, in
src/gmmu/nvidia_drivers.c. It proves it can fail on a planted copy first.

GENERIC lists the names of the vocabulary that are also ordinary words of other tables
("OK" of a verify result, "read" of a file operation, "none"): those are not counted.

    tests/drivers/check_p2p_names.py [TOP]
"""
import os
import re
import sys

from check_series_literals import strip

TABLE = "src/gmmu/nvidia_drivers.c"
NAMES = [
    # NV0000_P2P_CAPS_STATUS_* and nvidia-smi topo -p2p's codes (with its IOH spelling)
    "CHIPSET_NOT_SUPPORTED", "GPU_NOT_SUPPORTED", "IOH_TOPOLOGY_NOT_SUPPORTED",
    "DISABLED_BY_REGKEY", "NOT_SUPPORTED", "CNS", "GNS", "TNS", "DR", "NS", "U", "IOH",
    # NV0000_CTRL_P2P_CAPS_INDEX_*
    "atomics", "prop", "loopback", "c2c", "pci_bar1",
    # P2P_CONNECTIVITY_*
    "nvlink_indirect", "pcie_mailbox", "pcie_bar1",
]
GENERIC = {"OK": "a verify result, an error code's name",
           "UNKNOWN": "the CPU type nobody recognised",
           "read": "record/replay's file operations", "write": "VFIO's operations",
           "nvlink": "NCCL's topology and the reason names", "pci": "host facts",
           "none": "many tables' empty value"}

def count(texts, name):
    lit = re.compile('"' + re.escape(name) + '"')
    return [rel for rel, text in texts for _ in lit.finditer(text)]

def sources(top):
    for root, _, files in os.walk(os.path.join(top, "src")):
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                path = os.path.join(root, f)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    yield os.path.relpath(path, top), strip(fh.read())

def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
        "P2PS_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
    texts = list(sources(top))
    planted = texts + [("planted.c", strip('static const char *n[] = {"pci_bar1", "CNS"};\n'
                                           '/* "pcie_bar1" in a comment */\n'))]
    if len(count(planted, "pci_bar1")) != 2 or len(count(planted, "pcie_bar1")) != 1:
        print("check_p2p_names: the count misses a planted copy", file=sys.stderr)
        return 1
    bad = []
    for name in NAMES:
        where = count(texts, name)
        if where != [TABLE]:
            bad.append(f'"{name}": {len(where)} times ({", ".join(sorted(set(where))) or "nowhere"})')
    if bad:
        print(f"check_p2p_names: P2P names written outside {TABLE}, or not once there:",
              file=sys.stderr)
        print("\n".join(bad), file=sys.stderr)
        return 1
    print(f"check_p2p_names: {len(NAMES)} names, each once in src/ ({TABLE}); "
          f"not counted: {', '.join(sorted(GENERIC))}")
    return 0

if __name__ == "__main__":
    sys.exit(main())
