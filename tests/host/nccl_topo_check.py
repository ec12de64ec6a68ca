#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks NCCL topology XML files (NCCL_TOPO_FILE / NCCL_TOPO_DUMP_FILE) the way NCCL's
reader takes them (NCCL src/graph/xml.cc: xmlGetNode, xmlGetToken, xmlGetValue, xmlLoadSub
and the ncclTopoXmlLoad* handler tables; src/graph/topo.cc: the attributes ncclTopoAddCpu,
ncclTopoAddPci, ncclTopoAddGpu, ncclTopoAddNvLinks and ncclTopoAddNet read, and the
dictionaries kvDictCpuArch, kvDictCpuVendor, kvDictPciGen they convert with).

    nccl_topo_check.py FILE...        exit 0 when every file passes; one line per problem

Structure: only ' ', '\\n', '\\r' between elements; '<name attr="value" ...>' or '/>',
closing tags that match; values quoted, names and values under 256 characters, at most
16 attributes (xml.h MAX_STR_LEN, MAX_ATTR_COUNT). Nesting: system > cpu > pci|nic;
pci > pci|gpu|nic|pcilink; gpu > nvlink|c2c; nic > net. Attributes: the ones NCCL reads
with xmlGetAttrInt/xmlGetAttrStr must be present where NCCL cannot fill them in from the
running machine, and every value must have the syntax its reader converts."""
import re
import sys

MAX_STR_LEN = 255  # src/graph/xml.h
MAX_ATTR_COUNT = 16

CHILDREN = {
    None: {"system"},
    "system": {"cpu"},
    "cpu": {"pci", "nic"},
    "pci": {"pci", "gpu", "nic", "pcilink"},
    "gpu": {"nvlink", "c2c"},
    "nic": {"net"},
    "net": set(),
    "nvlink": set(),
    "c2c": set(),
    "pcilink": set(),
}

INT = re.compile(r"-?[0-9]+$")
HEX = re.compile(r"0x[0-9a-fA-F]+$")
BUSID = re.compile(r"[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
# NVLink targets NCCL cannot see: xml.cc's "fffffff:ffff:ff" or NVML's all-ones address.
NVL_TARGET = re.compile(r"[0-9a-f]+:[0-9a-f]+:[0-9a-f]+(\.[0-9a-f]+)?$")
CLASS = re.compile(r"0x[0-9a-f]{6}$")
ID16 = re.compile(r"0x[0-9a-f]{4}$")
CPUSET = re.compile(r"[0-9a-f]+(,[0-9a-f]+)*$")
FLOAT = re.compile(r"-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$")
PCI_GEN = {"2.5 GT/s", "5 GT/s", "8 GT/s", "16 GT/s", "32 GT/s", "2.5 GT/s PCIe",
           "5.0 GT/s PCIe", "8.0 GT/s PCIe", "16.0 GT/s PCIe", "32.0 GT/s PCIe",
           "64.0 GT/s PCIe", ""}
CPU_ARCH = {"x86_64", "arm64", "ppc64"}
CPU_VENDOR = {"GenuineIntel", "AuthenticAMD", "CentaurHauls", "  Shanghai  "}

# element: {attribute: (required, syntax)}; a syntax is a regex or a set of values.
ATTRS = {
    "system": {"version": (True, {"1"}), "name": (False, None)},
    "cpu": {"numaid": (True, INT), "affinity": (False, CPUSET), "arch": (False, CPU_ARCH),
            "vendor": (False, CPU_VENDOR), "familyid": (False, INT), "modelid": (False, INT),
            "host_hash": (False, HEX)},
    "pci": {"busid": (True, BUSID), "class": (True, CLASS), "vendor": (False, ID16),
            "device": (False, ID16), "subsystem_vendor": (False, ID16),
            "subsystem_device": (False, ID16), "link_speed": (True, PCI_GEN),
            "link_width": (True, re.compile(r"([0-9]+)?$"))},
    "gpu": {"dev": (True, INT), "sm": (False, INT), "rank": (False, INT),
            "gdr": (False, {"0", "1"}), "mlopart": (False, INT)},
    "nvlink": {"target": (True, NVL_TARGET), "count": (True, re.compile(r"[1-9][0-9]*$")),
               "tclass": (True, CLASS)},
    "c2c": {"bw": (True, INT), "count": (True, INT)},
    "pcilink": {"target": (True, BUSID)},
    "nic": {},
    "net": {"name": (True, None), "dev": (True, INT), "speed": (False, INT),
            "latency": (False, FLOAT), "port": (False, INT), "guid": (False, HEX),
            "maxconn": (False, INT), "gdr": (False, INT), "coll": (False, INT),
            "keep": (False, INT)},
}


class Bad(Exception):
    pass


class Reader:
    """NCCL's character-level reader (xml.cc), on a string."""

    def __init__(self, text):
        self.t = text
        self.i = 0

    def char(self):
        if self.i >= len(self.t):
            raise Bad("unexpected end of file")
        c = self.t[self.i]
        self.i += 1
        return c

    def token(self, want_value):
        """xmlGetToken: a name up to ' ', '>', '/', newline, or name=value."""
        name = ""
        while True:
            c = self.char()
            if c == "=":
                if not want_value:
                    raise Bad(f"unexpected value after '{name}'")
                return name, self.value()
            if c in " >/\n\r":
                if len(name) > MAX_STR_LEN - 1:
                    raise Bad(f"name '{name[:20]}...' too long")
                return name, (None, c)
            name += c

    def value(self):
        q = self.char()
        if q not in "\"'":
            raise Bad("attribute value without quotes")
        v = ""
        while True:
            c = self.char()
            if c == q:
                break
            v += c
        if len(v) > MAX_STR_LEN - 1:
            raise Bad(f"value '{v[:20]}...' longer than {MAX_STR_LEN - 1} characters")
        return (v, self.char())

    def node(self):
        """xmlGetNode: (kind, name, attrs) with kind open/single/close, or None at the end."""
        c = " "
        while c in " \n\r":
            if self.i >= len(self.t):
                return None
            c = self.char()
        if c != "<":
            raise Bad(f"expected '<', got {c!r}")
        name, (_, last) = self.token(False)
        if name.startswith("!--"):
            end = self.t.find("-->", self.i - 1)
            if end < 0:
                raise Bad("unterminated comment")
            self.i = end + 3
            return self.node()
        if name == "" and last == "/":
            name, (_, last) = self.token(False)
            if last != ">":
                raise Bad(f"unexpected {last!r} in closing tag {name}")
            return ("close", name, {})
        attrs = {}
        while last == " ":
            key, (val, last) = self.token(True)
            if val is None:
                if key == "":
                    continue  # a second space
                raise Bad(f"<{name}>: attribute '{key}' without a value")
            if key in attrs:
                raise Bad(f"<{name}>: attribute '{key}' twice")
            attrs[key] = val
        if len(attrs) > MAX_ATTR_COUNT:
            raise Bad(f"<{name}>: more than {MAX_ATTR_COUNT} attributes")
        kind = "open"
        if last == "/":
            kind = "single"
            _, (_, last) = self.token(False)
        if last != ">":
            raise Bad(f"<{name}>: expected '>', got {last!r}")
        return (kind, name, attrs)



def check_attrs(name, attrs, path):
    rules = ATTRS[name]
    for key, (required, syntax) in rules.items():
        if key not in attrs:
            if required:
                raise Bad(f"{path}: missing attribute '{key}'")
            continue
        v = attrs[key]
        if isinstance(syntax, set) and v not in syntax:
            raise Bad(f"{path}: {key}=\"{v}\" is not one of NCCL's values")
        if hasattr(syntax, "match") and not syntax.match(v):
            raise Bad(f"{path}: {key}=\"{v}\" has the wrong syntax")
    for key in attrs:
        if key not in rules and key != "keep":
            raise Bad(f"{path}: unknown attribute '{key}'")
    if name == "cpu" and attrs.get("arch") == "x86_64" and "vendor" not in attrs:
        pass  # NCCL reads the vendor from CPUID when the file has none


def check(text):
    r = Reader(text)
    stack = []  # (name, path)
    seen_system = False
    counts = {}
    while True:
        n = r.node()
        if n is None:
            if stack:
                raise Bad(f"unterminated <{stack[-1][0]}>")
            break
        kind, name, attrs = n
        if kind == "close":
            if not stack or stack[-1][0] != name:
                raise Bad(f"</{name}> does not close <{stack[-1][0] if stack else ''}>")
            stack.pop()
            continue
        parent = stack[-1][0] if stack else None
        if parent is not None and parent not in CHILDREN:
            raise Bad(f"<{name}> inside unknown <{parent}>")
        if name not in CHILDREN.get(parent, set()):
            raise Bad(f"<{name}> cannot be inside <{parent or 'the top'}>")
        if name == "system":
            if seen_system:
                raise Bad("a second <system>")
            seen_system = True
        path = "/".join([s[1] for s in stack] + [f"{name}[{counts.get(name, 0)}]"])
        counts[name] = counts.get(name, 0) + 1
        check_attrs(name, attrs, path)
        if kind == "open":
            stack.append((name, path))
    if not seen_system:
        raise Bad("no <system> element")
    if not counts.get("cpu"):
        raise Bad("no <cpu> element")
    return counts


def main(argv):
    if len(argv) < 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    status = 0
    for f in argv[1:]:
        try:
            with open(f, encoding="utf-8") as fh:
                counts = check(fh.read())
            print(f"{f}: ok ({', '.join(f'{v} {k}' for k, v in sorted(counts.items()))})")
        except (OSError, UnicodeDecodeError, Bad) as e:
            print(f"{f}: {e}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
