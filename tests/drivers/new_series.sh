#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Adding a driver series is what docs/architecture.md says: one row in
# src/gmmu/nvidia_drivers.c and the RM facts of its tag (tests/rm/fixtures/ctrl-offsets/,
# scripts/rm-derive-offsets.sh). This applies exactly those two edits to a copy of the
# tracked tree for a hypothetical series 600 (the newest stock row again, as 600 with tag
# 600.10.01, and that tag's facts: the newest tag's, renamed), builds what reads the table
# (its tests, bar-inspect, pte-decode, pte-probe) and checks that
#   - the table, driver model, RM and BAR1-row tests and the source checks pass unchanged;
#   - bar-inspect models 600 as itself: no "assumed" note, model_series 600;
#   - the RM client takes 600.10.01's layout (pte-probe gets past the version and stops at
#     the missing /dev/nvidiactl), and still refuses 601;
#   - pte-decode's BAR1 rows cover 600 without the fallback rule.
# If anything else had to change for a new series, one of these fails.
set -u
src=${P2PS_SOURCE_DIR:?}
# shellcheck source=tests/support/p2ps_test.sh
. "$src/tests/support/p2ps_test.sh"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# ---- the copy: the files git does not ignore (a tree without git: its sources and tests) -
mkdir "$W/tree"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
	git -C "$src" ls-files -z --cached --others --exclude-standard |
		(cd "$src" && tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -xf - -C "$W/tree"
else
	for d in CMakeLists.txt cmake include src tools tests examples fuzz bench completion man \
		schemas docs; do
		[ -e "$src/$d" ] && cp -r "$src/$d" "$W/tree/"
	done
fi
cp -r "$W/tree" "$W/orig"

# ---- the two edits ----------------------------------------------------------------------
python3 - "$W/tree" <<'PY' || exit 1
import re, sys
top = sys.argv[1]
path = top + "/src/gmmu/nvidia_drivers.c"
text = open(path).read()
start = text.index("static const struct p2ps_nv_driver rows[] = {")
end = text.index("\n};", start)
def row_end(a):  # the brace closing the initializer that opens at a
    depth = 0
    for i in range(a, end):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return i + 1
    sys.exit("new_series: an unclosed row")
best, best_series = None, 0
for m in re.finditer(r"\{\.series = ", text[start:end]):
    a = m.start() + start
    b = row_end(a)
    row = text[a:b]
    series = int(re.search(r"\.series = (\d+)", row).group(1))
    if ".flavor = P2PS_NV_FLAVOR_STOCK" in row and series > best_series:
        best, best_series = (a, b), series
row = text[best[0]:best[1]]
tag = re.search(r'\.ref = "([^"]+)"', row).group(1)
new = re.sub(r"\.series = \d+", ".series = 600", row)
new = re.sub(r'\.ref = "[^"]+"', '.ref = "600.10.01"', new)
new = re.sub(r"\.tags = \{[^}]*\}", '.tags = {"600.10.01"}', new)
# The new series is read in full from its own tag: nothing assumed.
new = re.sub(r',\s*\.assumed = (?:\s*"(?:[^"\\]|\\.)*")+', "", new)
text = text[:best[1]] + ",\n\t" + new + text[best[1]:]
open(path, "w").write(text)
facts = top + "/tests/rm/fixtures/ctrl-offsets/"
body = open(facts + tag + ".txt").read().replace("tag " + tag + ":", "tag 600.10.01:")
open(facts + "600.10.01.txt", "w").write(body)
print(f"new_series: row 600 from stock {best_series} ({tag}), facts 600.10.01 from {tag}")
PY
changed=$(diff -rq --no-dereference "$W/orig" "$W/tree" | sed -E "s|^Files $W/orig/([^ ]+) and .*|\1|; s|^Only in $W/tree/([^:]*): (.*)|\1/\2|" | sort)
p2ps_check "the edit is one row and one facts file" \
	"src/gmmu/nvidia_drivers.c tests/rm/fixtures/ctrl-offsets/600.10.01.txt" "${changed//$'\n'/ }"

# ---- build what reads the table -----------------------------------------------------------
tests="test_nvidia_drivers test_driver_model test_driver_rows test_rm_fields test_rm
test_gmmu_bar1_rows test_gmmu_drvmap"
cmake -S "$W/tree" -B "$W/build" -DCMAKE_BUILD_TYPE=Release -DP2PS_LAYER_CHECK=OFF \
	>"$W/configure.log" 2>&1 || { cat "$W/configure.log"; exit 1; }
# shellcheck disable=SC2086
cmake --build "$W/build" -j "${JOBS:-2}" --target $tests bar-inspect pte-decode pte-probe \
	>"$W/build.log" 2>&1 || { tail -30 "$W/build.log"; exit 1; }

# ---- the tests of the table, unchanged -------------------------------------------------
pattern="^(${tests//[$'\n ']/|}|check_series_literals|check_p2p_names)\$"
if ctest --test-dir "$W/build" -R "$pattern" --output-on-failure >"$W/ctest.log" 2>&1; then
	echo "ok   $(grep -c 'Passed' "$W/ctest.log") table, driver, RM and BAR1-row tests pass"
else
	p2ps_fail "the tests with series 600 added"
	grep -E "Failed|FAIL|\[  FAILED" "$W/ctest.log" | head -20
fi
[ "$(grep -c 'Passed' "$W/ctest.log")" -ge 9 ] || p2ps_fail "fewer tests than the 9 named ran"

# ---- the new series, modelled as itself ---------------------------------------------------
T=$W/build/tools
snap=$src/tests/fixtures/h200x2-raw-snap
"$T/bar-inspect" --root "$snap" --driver 600 --json >"$W/600.json" 2>"$W/600.err" ||
	p2ps_fail "bar-inspect --driver 600: $(cat "$W/600.err")"
p2ps_check "bar-inspect models 600 as its own row" '"model_series": 600, "note": null' \
	"$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["driver_model"]; print("\"model_series\": %d, \"note\": %s" % (d["model_series"], json.dumps(d["note"])))' "$W/600.json")"
"$T/bar-inspect" --root "$snap" --driver 600 >"$W/600.txt" 2>&1
p2ps_check "no assumed note" 0 "$(grep -c "has no row in the driver table" "$W/600.txt")"
"$T/bar-inspect" --root "$snap" --driver 601 >"$W/601.txt" 2>&1
p2ps_check "601 is assumed from 600" 1 "$(grep -c 'modelled as stock 600 (600.10.01), the newest stock row not newer than it (assumed)' "$W/601.txt")"

# The RM client: 600.10.01's layout is known; 601 is refused before any ioctl.
for v in 600.10.01 601.1; do
	mkdir -p "$W/root-$v/proc/driver/nvidia" "$W/root-$v/dev"
	printf 'NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  %s  Release Build\n' "$v" \
		>"$W/root-$v/proc/driver/nvidia/version"
	"$T/pte-probe" --root "$W/root-$v" >/dev/null 2>"$W/rm-$v.err"
done
p2ps_check "the RM client takes 600.10.01" 1 "$(grep -c 'cannot open /dev/nvidiactl' "$W/rm-600.10.01.err")"
p2ps_check "the RM client refuses 601" 1 "$(grep -c 'RM API struct layouts of series 601 are not known' "$W/rm-601.1.err")"

# The BAR1 rows: 600's era holds them, no fallback.
"$T/pte-decode" p2p --chip GB202 --mode bar1 --driver 600 --bar1 0x28800000000 \
	--start-offset 512M --offset 0x123400000 --page-size 2M >"$W/pd.txt" 2>&1 ||
	p2ps_fail "pte-decode --driver 600: $(cat "$W/pd.txt")"
p2ps_check "pte-decode: the row covers 600" 1 "$(grep -cE '^row: 580-6[0-9]{2} stock uvm Blackwell: SYS_COH' "$W/pd.txt")"
p2ps_check "pte-decode: not assumed" 0 "$(grep -c assumed "$W/pd.txt")"

[ "$p2ps_fails" -eq 0 ] && echo "new_series: ok"
p2ps_test_exit "$p2ps_fails"
