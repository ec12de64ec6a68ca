#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Mutation run of the driver model: do its tests catch a wrong row or a wrong gate?

Each mutant is one change: to a column of one row of the driver table
(src/gmmu/nvidia_drivers.c: a bool flipped, a gate bit toggled, an RMForceP2PType value,
an enum or a patch value changed), or to one of the model's predicates (MUTATION_POINTS:
a condition negated or narrowed, a supported switch or I/O hub dropped, a constant
changed). The file is compiled with the build's own command, linked in front of the
libraries into the driver model's tests (test_driver_rows, test_driver_model,
test_nvidia_drivers, test_driver_forks), and the mutant is killed when one of them fails.
A mutant that no test notices is a survivor: a column or a check the tests never hold to
the driver's code.

    scripts/driver-mutation.py [--build DIR] [--jobs N] [--min PERCENT] [--only TEXT]

The build folder (default build-mutation/) is configured and its four tests built once.
Prints one line per mutant and the kill rate; exits 1 when the rate is below --min
(default 90), 2 when it cannot run.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
TABLE = "src/gmmu/nvidia_drivers.c"
TESTS = {  # test target -> its folder under the build
    "test_driver_rows": "tests/analysis",
    "test_driver_model": "tests/analysis",
    "test_nvidia_drivers": "tests/drivers",
    "test_driver_forks": "tests/analysis",
}
# Which tests link which source (the table is in libgmmu: all three).
LINKED = {TABLE: list(TESTS),
          "src/host/analysis": ["test_driver_rows", "test_driver_model", "test_driver_forks"]}

BOOLS = ["bar1_needs_force", "bar1_map_first", "override_atomics", "pcie_type_key",
         "static_bar1_key", "tail_reserve", "amd_default_ryzen", "sb_start_512m",
         "iommu_512m", "mailbox_bar1", "patch_rebar"]
GATE_BITS = {"NO_C2C": "P2PS_NV_GATE_BIT(P2PS_NV_GATE_NO_C2C)",
             "BAR1_BY_DEFAULT": "P2PS_NV_GATE_BIT(P2PS_NV_GATE_BAR1_BY_DEFAULT)"}
# The self_hosted, chipset and chipset_skip bits are not toggled in every row: in the forks'
# rows ForceP2P (built in) decides before them, so such a mutant changes nothing; the rows
# that have them are held by test_nvidia_drivers (stock_after_595) and test_driver_rows.
FORCE_TYPES = ["ft_bar1", "ft_pcie", "ft_nvlink", "ft_c2c"]
ENUMS = {
    "sb_default": ["P2PS_NV_SB_DISABLE", "P2PS_NV_SB_ENABLE", "P2PS_NV_SB_AUTO",
                   "P2PS_NV_SB_ONLY_GPU", "P2PS_NV_SB_NONE"],
    "sb_auto": ["P2PS_NV_AUTO_2X_FB", "P2PS_NV_AUTO_RESERVES", "P2PS_NV_AUTO_RESERVES_512M",
                "P2PS_NV_AUTO_CLIENT_FLOOR"],
}
PATCHES = ["patch_override", "patch_force", "patch_pcie_type"]

# The model's predicates: (file, text, replacement, what). Each text occurs once.
A = "src/host/analysis/"
MUTATION_POINTS = [
    (A + "driver_model.c", "return c->force_type <= 0 || (value && c->force_type == value);",
     "return !(c->force_type <= 0 || (value && c->force_type == value));",
     "RMForceP2PType's check negated"),
    (A + "driver_model.c", "} else if (c->ap->nvlinks > 0) {", "} else if (c->ap->nvlinks > 1) {",
     "NVLink needs two links"),
    (A + "driver_model.c", "\tif (linked &&\n", "\tif (!linked &&\n",
     "the NVSwitch no-fallback rule negated"),
    (A + "driver_model.c", "nvlink_peers[i].links >= P2PS_HOST_MAX_NVLINK",
     "nvlink_peers[i].links > P2PS_HOST_MAX_NVLINK", "a fabric GPU needs more than all links"),
    (A + "driver_model.c", "(rp0->bdf.domain != rp1->bdf.domain || rp0->bdf.bus != rp1->bdf.bus)",
     "rp0->bdf.domain != rp1->bdf.domain", "two I/O hubs only across domains"),
    (A + "driver_model.c", "k0->boot0_id != k1->boot0_id", "k0->boot0_id == k1->boot0_id",
     "areGpusP2PCompatible negated"),
    (A + "driver_model.c", "\t*common = common_switch(c);\n\tif (c->override >= 0) {",
     "\t*common = common_switch(c);\n\tif (c->override >= 0 && 0) {",
     "the mailbox ignores ForceP2P"),
    (A + "driver_model.c", "if (q0 >= 0 && q0 == q1) {", "if (q0 >= 0) {",
     "any clique is one clique"),
    (A + "driver_model.c", 'strstr(c->d[0]->device_name, "GeForce") || strstr(',
     'strstr(c->d[0]->device_name, "GeForce") && strstr(', "GNS needs two GeForce boards"),
    (A + "driver_model.c", "chip->generation < s->bar1_hal_min",
     "chip->generation <= s->bar1_hal_min", "the BAR1 HAL from the next generation"),
    (A + "driver_model.c", "return chip->generation < P2PS_NV_GEN_HOPPER ||",
     "return chip->generation < P2PS_NV_GEN_COUNT ||", "the BAR1 HAL without the series' list"),
    (A + "driver_model.c", "\t    c->pcie_type != 1 &&\n", "\t    c->pcie_type != 2 &&\n",
     "BAR1-by-default for BAR1, not AUTO"),
    (A + "driver_model.c", "\tif (listed_gate(c->s, P2PS_NV_GATE_BAR1_DISABLED,",
     "\tif (0 && listed_gate(c->s, P2PS_NV_GATE_BAR1_DISABLED,", "bBar1Disabled ignored"),
    (A + "driver_model.c", "\t\tif (sb->st != P2PS_NV_ST_OK) {",
     "\t\tif (sb->st == P2PS_NV_ST_NOT_SUPPORTED) {", "unknown static BAR1 passes"),
    (A + "driver_model.c", "(c->pcie_type == 1 || c->pcie_type == 2)", "(c->pcie_type == 1)",
     "RMPcieP2PType=2 (AUTO) dropped"),
    (A + "driver_model.c", "? c->force_type == c->s->ft_bar1", "? c->force_type >= c->s->ft_bar1",
     "BAR1P2P compared loosely"),
    (A + "driver_model.c", "\t\tif (c->s->override_atomics)\n", "\t\tif (1)\n",
     "every series has ForceP2P's atomics field"),
    (A + "driver_model.c", "reads = reads || cpu_ok;", "reads = reads && cpu_ok;",
     "reads need a common switch and the CPU"),
    (A + "driver_model.c", "p2ps_drv_cpu_known(cpu) ? P2PS_NV_ST_CHIPSET_NOT_SUPPORTED : P2PS_NV_ST_UNKNOWN",
     "p2ps_drv_cpu_known(cpu) ? P2PS_NV_ST_UNKNOWN : P2PS_NV_ST_CHIPSET_NOT_SUPPORTED",
     "CNS and U swapped"),
    (A + "driver_model.c", "o->st[P2PS_NV_CAPS_PROP] = o->chosen == P2PS_NV_PATH_PCIE_MAILBOX",
     "o->st[P2PS_NV_CAPS_PROP] = o->chosen == P2PS_NV_PATH_PCIE_BAR1", "PROP for BAR1"),
    (A + "driver_model.c", "\tif (f == 0)\n", "\tif (f == 2)\n", "ForceP2P's DISABLE field value"),
    (A + "driver_model.c", "if (b1->bdf.bus == b0->bdf.bus &&", "if (b1->bdf.bus != b0->bdf.bus &&",
     "the common switch on another bus"),
    (A + "driver_tables.c", " || (device & 0xff00) == 0x9700", "", "PLX 97xx dropped"),
    (A + "driver_tables.c", "(device & 0xff00) == 0x8700 || ", "", "PLX 87xx dropped"),
    (A + "driver_tables.c", "(device & 0xff00) == 0x8500 || ", "", "PMC 85xx dropped"),
    (A + "driver_tables.c", " || (device & 0xff00) == 0x4000", "", "PMC 40xx dropped"),
    (A + "driver_tables.c", "return device == 0x1976;", "return false;", "Mellanox 0x1976 dropped"),
    (A + "driver_tables.c", "device == 0x01b3 || ", "", "BR03 dropped"),
    (A + "driver_tables.c", " || (device >> 4) == (0x05b0 >> 4)", "", "BR04 dropped"),
    (A + "driver_tables.c", "        {0x3408, 0x3411}, /* 5520/5500 (Tylersburg) */\n", "",
     "I/O hub 3408-3411 dropped"),
    (A + "driver_tables.c", "        {0x3c02, 0x3c0b}, /* Xeon E5 (Sandy Bridge-EP) */\n", "",
     "I/O hub 3C02-3C0B dropped"),
    (A + "driver_tables.c", "        {0x0e02, 0x0e0b}, /* Xeon E5 v2 (Ivy Bridge-EP) */\n", "",
     "I/O hub 0E02-0E0B dropped"),
    (A + "driver_tables.c", "        {0x2f01, 0x2f0b}, /* Xeon E5 v3 (Haswell-EP) */\n", "",
     "I/O hub 2F01-2F0B dropped"),
    (A + "driver_tables.c", "        {0x6f01, 0x6f0b}, /* Xeon E5 v4 (Broadwell-EP) */\n", "",
     "I/O hub 6F01-6F0B dropped"),
    (A + "driver_tables.c", "        {0x3420, 0x3421}, /* 7500 (Boxboro) */\n", "",
     "I/O hub 3420-3421 dropped"),
    (A + "driver_tables.c", "if (family == 6 && model == 143) {", "if (family == 6 && model == 144) {",
     "XEON_SPR's model"),
    (A + "driver_tables.c", "bool ryzen = ext == 8 || ext == 10 ||", "bool ryzen = ext == 8 ||",
     "Zen 3/4 not RYZEN"),
    (TABLE, 'GB_DEFAULT "GR100 GR102 ",', 'GB_DEFAULT,', "GR100/GR102 not BAR1 P2P by default"),
    (TABLE, '"GB10B GB10C GB20B GB20C ",', '"GB10B GB20B GB20C ",', "GB10C's BAR1 not disabled"),
    (TABLE, 'GB_HAL "GB10C GR100 GR102 "', 'GB_HAL', "615's chips without the BAR1 HAL"),
    (A + "driver_model.c", "\tif (yes >= 0) {\n", "\tif (yes > 0) {\n",
     "self-hosted only when the second GPU is"),
    (A + "driver_model.c", "if (!has_gate(c, P2PS_NV_GATE_CHIPSET) || common)",
     "if (!has_gate(c, P2PS_NV_GATE_CHIPSET))", "the chipset check ignores a common switch"),
    (A + "driver_tables.c", "{0x8086, 0x29c0, \"QEMU q35\",", "{0x8086, 0x29c1, \"QEMU q35\",",
     "q35's host bridge dropped"),
    (A + "driver_tables.c", "{0x2342, 0x2348,", "{0x2348,", "GH200 120GB dropped"),
    (A + "driver_tables.c", "{\"GH100\", \"GB100\",", "{\"GB100\",",
     "GH100 never self-hosted"),
    (A + "driver_tables.c", "cpu->known && cpu->arch[0] && strcmp(cpu->arch, \"arm64\")",
     "cpu->known && cpu->arch[0]", "an Arm CPU rules self-hosting out"),
    (A + "driver_bar1.c", "return ALIGN_UP(r, SZ_2M) + SZ_2M;", "return r + BAR1_VA_GUARD;",
     "the BAR1 VA not aligned down"),
    (A + "driver_bar1.c", "con + mbx ? need + SZ_512M - (con + mbx) % SZ_512M", "con + mbx ? need",
     "no 512 MiB padding"),
    (A + "driver_bar1.c", "o->start = s->sb_start_512m ? ALIGN_UP(con + mbx, SZ_512M) : con + mbx;",
     "o->start = con + mbx;", "the start never aligned"),
    (A + "driver_bar1.c", "(s->bar1_needs_force ? force_type != s->ft_bar1 : pcie_type != 1)",
     "(pcie_type != 1)", "mailbox space even with BAR1P2P forced"),
    (A + "driver_bar1.c", ": pcie_type != 1);", ": 1);", "mailbox space even for RMPcieP2PType=1"),
    (A + "driver_bar1.c", "\tif (s->sb_default == P2PS_NV_SB_NONE)\n\t\tpolicy = P2PS_NV_SB_NONE;\n",
     "", "RMForceStaticBar1 read where it does not exist"),
    (A + "driver_bar1.c", "#define DOORBELL_MMIO  (128 * 1024ull)", "#define DOORBELL_MMIO  (64 * 1024ull)",
     "doorbell and MMIO priv halved"),
    (A + "driver_bar1.c", "bool asks = s->patch_rebar || cfg->reg.enable_rebar == 1;",
     "bool asks = s->patch_rebar;", "NVreg_EnableResizableBar ignored"),
    (A + "driver_fixes.c", "if (!s->iommu_512m || o->chosen != P2PS_NV_PATH_PCIE_BAR1)",
     "if (!s->iommu_512m)", "the IOMMU alignment fix without BAR1"),
    (A + "driver_fixes.c", "if (!translating && peer % SZ_512M)", "if (!translating && peer % 2)",
     "the IOMMU alignment constant"),
]


def sh(cmd, cwd=None, timeout=600):
    return subprocess.run(cmd, cwd=cwd, shell=isinstance(cmd, str), capture_output=True,
                          text=True, timeout=timeout)


def configure(build, jobs):
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        r = sh(["cmake", "-S", TOP, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", "-DP2PS_LAYER_CHECK=OFF"])
        if r.returncode:
            sys.exit(f"driver-mutation: configuring {build} failed:\n{r.stdout}{r.stderr}")
    r = sh(["cmake", "--build", build, "-j", str(jobs), "--target"] + list(TESTS))
    if r.returncode:
        sys.exit(f"driver-mutation: building the tests failed:\n{r.stdout[-3000:]}{r.stderr}")


def compile_command(build, rel):
    """The build's compile command of source rel, as (directory, argv with -o and -c)."""
    with open(os.path.join(build, "compile_commands.json")) as f:
        for c in json.load(f):
            if os.path.realpath(c["file"]) == os.path.join(TOP, rel):
                return c["directory"], shlex.split(c["command"])
    sys.exit(f"driver-mutation: {rel} is not in {build}/compile_commands.json")


def link_command(build, test):
    folder = os.path.join(build, TESTS[test])
    with open(os.path.join(folder, "CMakeFiles", test + ".dir", "link.txt")) as f:
        return folder, shlex.split(f.read().strip())


def row_spans(text):
    """(start, end) of each row's initializer in the table: from {.series to its brace."""
    start = text.index("static const struct p2ps_nv_driver rows[] = {")
    end = text.index("\n};", start)
    spans = []
    for m in re.finditer(r"\{\.series = ", text[start:end]):
        a, depth = m.start() + start, 0
        for i in range(a, end):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            if depth == 0:
                spans.append((a, i + 1))
                break
    return spans


def column(row, name):
    m = re.search(r"\." + name + r" = ([^,}\n]+)", row)
    return m


def mutate_value(name, value):
    value = value.strip()
    if name in BOOLS:
        return {"true": "false", "false": "true"}[value]
    if name in FORCE_TYPES:
        v = int(value)
        return str(1 if v == 0 else v - 1)
    if name in ENUMS:
        order = ENUMS[name]
        return order[(order.index(value) + 1) % len(order)]
    if name == "bar1_hal_min":
        return f"({value}) + 1"
    if name in PATCHES:
        return "1" if value == "NA" else "NA"
    raise KeyError(name)


def table_mutants(text):
    out = []
    for s, e in row_spans(text):
        row = text[s:e]
        series = re.search(r"\.series = (\d+)", row).group(1)
        flavor = re.search(r"\.flavor = P2PS_NV_FLAVOR_(\w+)", row).group(1).lower()
        names = BOOLS + FORCE_TYPES + list(ENUMS) + ["bar1_hal_min"] + PATCHES
        for name in names:
            m = column(row, name)
            if not m:
                sys.exit(f"driver-mutation: row {series} {flavor} has no .{name}")
            new = mutate_value(name, m.group(1))
            mutated = row[:m.start(1)] + new + row[m.end(1):]
            out.append((TABLE, text[:s] + mutated + text[e:],
                        f"{series} {flavor}: .{name} {m.group(1).strip()} -> {new}"))
        m = column(row, "gates")
        for bit, expr in GATE_BITS.items():
            new = f"({m.group(1).strip()}) ^ {expr}"
            mutated = row[:m.start(1)] + new + row[m.end(1):]
            out.append((TABLE, text[:s] + mutated + text[e:],
                        f"{series} {flavor}: gate {bit} toggled"))
    return out


def loose(text):
    """A pattern of text that takes any run of blanks for one (clang-format moves them)."""
    return r"\s+".join(re.escape(t) for t in text.split())


def code_mutants():
    out = []
    for rel, old, new, what in MUTATION_POINTS:
        with open(os.path.join(TOP, rel)) as f:
            text = f.read()
        found = list(re.finditer(loose(old), text))
        if len(found) != 1:
            sys.exit(f"driver-mutation: {rel}: the mutation point '{what}' matches "
                     f"{len(found)} times (the source changed: update MUTATION_POINTS)")
        m = found[0]
        out.append((rel, text[:m.start()] + new.strip() + text[m.end():],
                    f"{rel.split('/')[-1]}: {what}"))
    return out


def linked_tests(rel):
    return LINKED[TABLE] if rel == TABLE else LINKED["src/host/analysis"]


def run_mutant(build, commands, rel, text, work):
    """'killed', 'survived' or 'build error'."""
    src = os.path.join(work, os.path.basename(rel))
    obj = src + ".o"
    with open(src, "w") as f:
        f.write(text)
    cdir, argv = commands[rel]
    argv = list(argv)
    argv[argv.index("-o") + 1] = obj
    argv[argv.index("-c") + 1] = src
    # The file's own folder first, for its quoted includes.
    argv.insert(1, "-I" + os.path.join(TOP, os.path.dirname(rel)))
    argv.append("-Wno-error")  # a mutant may leave a variable unused
    if sh(argv, cwd=cdir).returncode:
        return "build error"
    env = dict(os.environ, P2PS_SOURCE_DIR=TOP, CMOCKA_MESSAGE_OUTPUT="STDOUT")
    for test in linked_tests(rel):
        ldir, link = commands[test]
        link = list(link)
        out = link.index("-o")
        exe = os.path.join(work, test)
        link[out + 1] = exe
        link.insert(out, obj)
        if sh(link, cwd=ldir).returncode:
            return "build error"
        try:
            r = subprocess.run([exe], cwd=work, env=env, capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            return "killed"
        if r.returncode:
            return "killed"
    return "survived"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(TOP, "build-mutation"))
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", "2")))
    ap.add_argument("--min", type=float, default=90.0)
    ap.add_argument("--only", default="", help="only the mutants whose line has this text")
    args = ap.parse_args()
    if not shutil.which("cmake"):
        sys.exit("driver-mutation: cmake is not installed")
    t0 = time.time()
    build = os.path.abspath(args.build)
    configure(build, args.jobs)
    commands = {rel: compile_command(build, rel) for rel in
                {TABLE} | {p[0] for p in MUTATION_POINTS}}
    commands.update({t: link_command(build, t) for t in TESTS})
    with open(os.path.join(TOP, TABLE)) as f:
        mutants = table_mutants(f.read()) + code_mutants()
    mutants = [m for m in mutants if args.only in m[2]]
    results = {}
    with tempfile.TemporaryDirectory(prefix="driver-mutation.") as tmp:
        def one(i):
            work = os.path.join(tmp, str(i))
            os.mkdir(work)
            rel, text, what = mutants[i]
            return i, run_mutant(build, commands, rel, text, work)
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            for i, verdict in pool.map(one, range(len(mutants))):
                results[i] = verdict
                print(f"{verdict:9s} {mutants[i][2]}", flush=True)
    errors = [i for i, v in results.items() if v == "build error"]
    killed = sum(v == "killed" for v in results.values())
    counted = len(results) - len(errors)
    rate = 100.0 * killed / counted if counted else 0.0
    survivors = [mutants[i][2] for i, v in sorted(results.items()) if v == "survived"]
    print(f"\ndriver-mutation: {killed} of {counted} mutants killed ({rate:.1f}%), "
          f"{len(survivors)} survived, {len(errors)} did not build; "
          f"{time.time() - t0:.0f} s with {args.jobs} jobs")
    for s in survivors:
        print(f"  survived: {s}")
    if errors:
        print("driver-mutation: a mutant that does not build is a broken mutation point",
              file=sys.stderr)
        return 2
    if rate < args.min:
        print(f"driver-mutation: below {args.min:.0f}% killed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
