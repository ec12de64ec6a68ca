#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Byte-for-byte comparison of every tool's output on every fixture, between this tree
# and a base commit: the check behind refactors that must not change behaviour.
#
#   scripts/check-outputs.sh --base REV [--build DIR] [--vm|--vm-iommufd]
#                                                       build REV and this tree, compare
#   scripts/check-outputs.sh --run BUILD_DIR OUT_DIR    only record one build's outputs
#
# --base exports REV with `git archive` into build-check/<sha>/src (ignored, reused on
# the next run), builds the tools there and in DIR (default build/, configured if
# needed), runs the same corpus with both and diffs the two record folders. The
# outputs are generated on demand, not committed: many inputs are public dumps kept
# in ../shared, whose derivatives stay out of the repository, and a golden set would
# have to be re-recorded by every change that means to change an output.
#
# The corpus (each case records stdout, stderr and the exit status):
#  - bar-inspect: every snapshot under tests/fixtures (--root) and every lspci dump
#    (tests/fixtures/**/lspci-xxxx.txt, and ../shared/fixtures/**/*.txt when present),
#    each as text, --json, --dot and --nfd, with and without --all; -s and --peers
#    selections;
#    the live backend of this machine (--no-nvml); the command-line errors;
#  - bar-inspect --paste: every paste and bug-report log under tests/fixtures (and
#    ../shared/fixtures/pastes when present), as text, --json and --dot, and --check's
#    exit status;
#  - host-dump (the model as JSON, tests/host) on the same inputs and live;
#  - pte-decode: every `pte-decode` command in the docs' console blocks (with the
#    images tests/gmmu-dump/make_example_pd writes) and `formats` in its three forms;
#  - p2p-bench report (where p2p-bench is built) on tests/fixtures/p2p-bench and on
#    every docs/results run;
#  - the driver table's readers across series and flavors, rows or not: bar-inspect
#    --driver on every snapshot (text and --json), pte-decode p2p --driver on three chips
#    (both paths, --json, the PEER-field patch), pte-probe on every committed capture with
#    --series and --flavor;
#  - with --vm, bar-inspect inside the QEMU test guests (tests/vm/run-guest.sh, as the
#    50-vm-guest step boots them: ACS on and off; --vm-iommufd adds the cdev/iommufd and
#    no-IOMMU guests of 60-vm-iommufd, building their kernel once): every bi-* block the
#    guest reports (--vfio, --read-reg, --map-peer on real VFIO), each build's binary in
#    the same guest.
# Exit status: 0 identical, 1 differences (listed with a diff of each), 2 usage/build.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-2}
targets=(bar-inspect pte-decode pte-probe host-dump make_example_pd)

die() {
	echo "check-outputs: $*" >&2
	exit 2
}

# ---- the corpus ------------------------------------------------------------------------

# case NAME CMD...: runs CMD in the scratch folder, records it under $out/NAME.
case_run() {
	local name=$1
	shift
	local f="$out/$name"
	(cd "$scratch" && "$@") >"$f.stdout" 2>"$f.stderr"
	echo $? >"$f.rc"
	n_cases=$((n_cases + 1))
}

# cases_from PREFIX CMD...: one case per line of standard input, CMD with the line's
# words as arguments (shell syntax), named PREFIX-01, PREFIX-02, ...
cases_from() {
	local pfx=$1 e=0 args
	shift
	while IFS= read -r args; do
		e=$((e + 1))
		eval "case_run $pfx-$(printf %02d $e) \"\$@\" $args"
	done
}

# A stable case name from a path under the source tree or ../shared.
slug() {
	local p=${1#"$top"/}
	p=${p#../shared/}
	p=${p#"$(dirname "$top")"/shared/}
	printf '%s' "$p" | tr '/ ' '__'
}

bar_inspect_views() { # NAME-PREFIX SOURCE-ARGS...
	local pfx=$1
	shift
	local v
	for v in text json dot nfd; do
		local fmt=()
		[ "$v" = json ] && fmt=(--json)
		[ "$v" = dot ] && fmt=(--dot)
		[ "$v" = nfd ] && fmt=(--nfd)
		case_run "bi-$pfx-$v" "$bi" "$@" "${fmt[@]}"
		case_run "bi-$pfx-all-$v" "$bi" "$@" --all "${fmt[@]}"
	done
}

snapshots() {
	find "$top/tests/fixtures" -path '*/p2pscope/snapshot-info' -printf '%h\n' |
		xargs -r -n1 dirname | sort
}

dumps() {
	find "$top/tests/fixtures" -name 'lspci-xxxx.txt' | sort
	local shared
	shared=$(dirname "$top")/shared/fixtures
	[ -d "$shared" ] && find "$shared" -name '*.txt' | sort
}

corpus_bar_inspect() {
	local s d
	for s in $(snapshots); do
		bar_inspect_views "root-$(slug "$s")" --root "$s"
		case_run "hd-root-$(slug "$s")" "$hd" --root "$s"
		case_run "bi-root-$(slug "$s")-numeric" "$bi" --root "$s" -n --all
	done
	while IFS= read -r d; do
		bar_inspect_views "dump-$(slug "$d")" --lspci-dump "$d"
		case_run "hd-dump-$(slug "$d")" "$hd" --lspci-dump "$d"
	done < <(dumps)
	local h200=$top/tests/fixtures/h200x2-raw-snap q=$top/tests/fixtures/qemu-switch
	case_run bi-slot-gpu1 "$bi" --root "$h200" -s 00:07.0
	case_run bi-slot-gpu1-json "$bi" --root "$h200" -s 0:7 --json
	case_run bi-slot-none "$bi" --root "$h200" -s 1f:00.0 --all
	case_run bi-slot-bus "$bi" --root "$h200" -s 00: --all --dot
	for s in acs-on acs-off; do
		case_run "bi-peers-$s" "$bi" --root "$q/$s" --peers 0000:02:00.0,0000:03:00.0
		case_run "bi-peers-$s-json" "$bi" --root "$q/$s" --peers 02:00.0,03:00.0 --json
		case_run "bi-peers-$s-dot" "$bi" --root "$q/$s" --peers 02:00.0,3:0.0 --dot --all
	done
	# The live backend: the same machine for both builds.
	bar_inspect_views live --no-nvml
	case_run hd-live "$hd" --live --no-nvml
	# A live report says when it was made (host.time): the one field two runs differ in.
	local f
	for f in "$out"/bi-live-*.stdout "$out"/hd-live.stdout; do
		sed -i 's/"time": "[0-9T:-]*Z"/"time": "(now)"/' "$f"
	done
	# Command-line errors (one line on stderr, exit 2).
	cases_from bi-error "$bi" <<'EOF'
--frobnicate
--root
extra
--json --dot
--root /nonexistent --lspci-dump /nonexistent
-s zz:zz.z
--root /nonexistent/snapshot
--lspci-dump /nonexistent/dump.txt
--peers zz
--peers ''
--peers 0000:99:00.0 --root "$top/tests/fixtures/h200x2-raw-snap"
--read-reg 0:0x3 -s 00:00.0
--read-reg 7:0x0 -s 00:00.0
--read-reg 0x0 -s 00:00.0
--read-reg 0:0x0
--read-reg 0:0x0 --root /nonexistent
--map-peer 1,2
--map-peer 0000:01:00.0
--map-peer 01:00.0,02:00.0,9
--vfio-flow nope --vfio 01:00.0
--vfio 01:00.0 --root /nonexistent
--vfio 01:00.0 --dot
--version
--help
EOF
}

# The held-back validation split (tests/fixtures/pastes-validation) is scored by
# scripts/paste-score.py only: its outputs are not recorded.
pastes() {
	find "$top/tests/fixtures" -path '*/pastes-validation' -prune -o \
		\( -name 'paste.txt' -o -name '*.log' -o -name '*.log.gz' \) -print | sort
	local shared
	shared=$(dirname "$top")/shared/fixtures/pastes
	[ -d "$shared" ] && find "$shared" -name 'paste.txt' | sort
}

corpus_paste() {
	local p
	while IFS= read -r p; do
		local name
		name=paste-$(slug "$p")
		case_run "bi-$name-text" "$bi" --paste "$p"
		case_run "bi-$name-json" "$bi" --paste "$p" --json
		case_run "bi-$name-dot" "$bi" --paste "$p" --dot
		case_run "bi-$name-check" "$bi" --paste "$p" --check
	done < <(pastes)
}

corpus_pte_decode() {
	# The images, SPEC and log the documented commands read (make_example_pd writes them;
	# the SPEC and log also come from the docs, for a base whose make_example_pd wrote only
	# the images, into the current folder), and the broken inputs of docs/pte-dumps.md's
	# error examples (the commands shown before them: head, printf, cp, sed).
	(cd "$scratch" && "$bindir/tests/gmmu-dump/make_example_pd" --out "$scratch" >/dev/null) ||
		return
	awk '/^```json/ { on = 1; next } /^```/ { if (on) exit } on' "$top/docs/pte-dumps.md" \
		>"$scratch/spec.json"
	awk '/^\$ cat log.txt/ { on = 1; next } /^\$ / { on = 0 } on' \
		"$top/docs/pte-dumps.md" >"$scratch/log.txt"
	local setup
	while IFS= read -r setup; do
		(cd "$scratch" && bash -c "$setup" >/dev/null 2>&1)
	done < <(sed -nE 's/^\$ ((head|printf|cp|sed) .*)/\1/p' "$top/docs/pte-dumps.md")
	local i=0 line
	while IFS= read -r line; do
		i=$((i + 1))
		case_run "pte-doc-$(printf %02d $i)" env PATH="$bindir/tools:$PATH" bash -c "$line"
	done < <(cat "$top"/README.md "$top"/docs/*.md | sed -n 's/^\$ \(pte-decode .*\)/\1/p')
	case_run pte-formats "$bindir/tools/pte-decode" formats
	case_run pte-formats-md "$bindir/tools/pte-decode" formats --markdown
	case_run pte-formats-json "$bindir/tools/pte-decode" formats --json
	# Help and command-line errors (one line on stderr, exit 2).
	cases_from pte-cli "$bindir/tools/pte-decode" <<'EOF'
--help
encode --help
decode --help
p2p --help
verify --help
decode --raw x --help
frob
encode --chip RTX4090 VALID=1
encode --chip GB300 VALID=1
decode --format v4 0x1
encode --chip AD102 --frobnicate VALID=1
encode --chip AD102 --mode bar1 VALID=1
decode --chip AD102 --format v3 0x1
decode --chip AD102 0x0600_0002_0000_0103
decode --chip AD102 0x00000000000000001
decode --chip AD102 0x10000000000000000
p2p --chip AD102 --mode bar1 --bar1 0x28800000000 --offset 0x2MiB --page-size 2MiB -q
p2p --chip AD102 --mode bar1
p2p --chip AD102 --mode stock extra
p2p --chip AD102 --mode stock --peer +1
decode --chip AD102 --raw
decode --chip AD102 --raw /nonexistent --text /nonexistent
decode --chip AD102 --mem 0x1000=/nonexistent --pdb 0x1000 --level PD0
verify --chip AD102 --raw /nonexistent
decode --chip AD102 --raw /nonexistent --expect x
formats --yaml
EOF
}

corpus_p2p_bench() {
	local pb=$bindir/tools/p2p-bench
	if [ ! -x "$pb" ]; then
		echo "check-outputs: $bindir has no p2p-bench (no CUDA compiler): its report not compared"
		return
	fi
	cases_from pb-cli "$pb" <<'EOF'
--help
report --help
--size 17
--reps 0
--bogus
report --bench x
EOF
	local fx=$top/tests/fixtures/p2p-bench
	case_run pb-report-fixture "$pb" report --bench "$fx/h200x2-bench.json" \
		--host "$fx/h200x2-bar-inspect.json"
	case_run pb-report-fixture-json "$pb" report --bench "$fx/h200x2-bench.json" \
		--host "$fx/h200x2-bar-inspect.json" --json
	local r
	for r in "$top"/docs/results/p2p-bench/*/; do
		[ -e "$r/p2p-bench.json" ] && [ -e "$r/bar-inspect.json" ] || continue
		case_run "pb-report-$(basename "$r")" "$pb" report --bench "$r/p2p-bench.json" \
			--host "$r/bar-inspect.json"
		case_run "pb-report-$(basename "$r")-json" "$pb" report \
			--bench "$r/p2p-bench.json" --host "$r/bar-inspect.json" --json
	done
}

# Specs with and without a row of the driver table, of each flavor.
driver_specs="550 565 570 575 580 590 595 535 600 610 550-tinygrad 565-tinygrad 580-tinygrad
570-aikitoria 575-aikitoria 580-aikitoria 595-aikitoria 590.44.01 595.71.05-p2p"

corpus_driver() {
	local s spec chip d fl path cap
	for s in $(snapshots); do
		for spec in $driver_specs; do
			case_run "drv-$(slug "$s")-$spec" "$bi" --root "$s" --driver "$spec"
			case_run "drv-$(slug "$s")-$spec-json" "$bi" --root "$s" --driver "$spec" --json
		done
	done
	local pd=$bindir/tools/pte-decode
	for chip in AD102 GH100 GB202; do
		for d in 550 565 570 575 580 590 595 600; do
			for fl in stock tinygrad aikitoria; do
				for path in uvm rm; do
					case_run "pd-$chip-$d-$fl-$path" "$pd" p2p --chip "$chip" --mode bar1 \
						--bar1 0x28800000000 --start-offset 512M --offset 0x123400000 \
						--page-size 2M --driver "$d" --flavor "$fl" --path "$path"
				done
				case_run "pd-$chip-$d-$fl-json" "$pd" p2p --chip "$chip" --mode bar1 \
					--bar1 0x28800000000 --driver "$d" --flavor "$fl" --json
				case_run "pd-$chip-$d-$fl-nvlink" "$pd" p2p --chip "$chip" --mode nvlink \
					--fabric-base 0 --peer 3 --offset 0x123400000 --driver "$d" --flavor "$fl"
			done
		done
	done
	local pp=$bindir/tools/pte-probe
	for cap in "$top"/tests/fixtures/pte-probe/*.json "$top"/tests/fixtures/pte-probe/bar1p2p/*.json; do
		[ -e "$cap" ] || continue
		case_run "pp-$(slug "$cap")" "$pp" --replay "$cap" --peer 1
		for d in 550 565 570 580 600; do
			for fl in stock tinygrad aikitoria; do
				case_run "pp-$(slug "$cap")-$d-$fl" "$pp" --replay "$cap" --peer 1 --series "$d" --flavor "$fl"
			done
		done
		case_run "pp-$(slug "$cap")-json" "$pp" --replay "$cap" --peer 1 --json
	done
}

# run_corpus BUILD_DIR OUT_DIR
run_corpus() {
	bindir=$(cd "$1" && pwd)
	out=$2
	bi=$bindir/tools/bar-inspect
	hd=$bindir/tests/host/host-dump
	[ -x "$bi" ] && [ -x "$hd" ] || die "$bindir lacks bar-inspect or tests/host/host-dump"
	rm -rf "$out"
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	scratch=$(mktemp -d)
	n_cases=0
	corpus_bar_inspect
	corpus_paste
	corpus_pte_decode
	corpus_p2p_bench
	corpus_driver
	rm -rf "$scratch"
	echo "check-outputs: $n_cases cases recorded from $bindir in $out"
}

# vm_corpus BUILD_DIR OUT_DIR: the guests with this build's bar-inspect.
vm_corpus() {
	local bi_bin=$1/tools/bar-inspect out=$2 boot args
	local boots=("acs-on" "acs-off --rp1-acs off")
	if [ "$vm" = iommufd ]; then
		local image
		image=$(JOBS=$jobs "$top/tests/vm/build-kernel.sh" "$top/build-vm/kernel") ||
			die "building the guest kernel failed"
		boots+=("cdev --kernel-image $image --mode cdev"
			"noiommu --kernel-image $image --mode noiommu")
	fi
	for args in "${boots[@]}"; do
		boot=${args%% *}
		# shellcheck disable=SC2086
		"$top/tests/vm/run-guest.sh" --boot $args --out "$out/../vm-$boot" \
			--bar-inspect "$bi_bin" >"$out/../vm-$boot.log" 2>&1 ||
			die "guest $boot failed (see $out/../vm-$boot.log)"
		local b
		for b in "$out/../vm-$boot"/blocks/bi-*; do
			cp "$b" "$out/vm-$boot-$(basename "$b")"
		done
	done
}

# ---- builds ---------------------------------------------------------------------------

build_tools() { # SRC BUILD
	local src=$1 b=$2 t have=()
	if [ ! -e "$b/CMakeCache.txt" ]; then
		cmake -S "$src" -B "$b" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$b.configure.log" 2>&1 ||
			{ cat "$b.configure.log"; die "configure $src failed"; }
	fi
	have=("${targets[@]}")
	local help
	help=$(cmake --build "$b" --target help)
	grep -q '\.\.\. p2p-bench$' <<<"$help" && have+=(p2p-bench)
	for t in "${have[@]}"; do
		cmake --build "$b" -j "$jobs" --target "$t" >"$b.build.log" 2>&1 ||
			{ tail -30 "$b.build.log"; die "building $t in $b failed"; }
	done
}

main() {
	local base="" build=$top/build
	vm=""
	case "${1:-}" in
	--run)
		[ $# -eq 3 ] || die "usage: --run BUILD_DIR OUT_DIR"
		run_corpus "$2" "$3"
		return 0
		;;
	--base)
		[ $# -ge 2 ] || die "usage: --base REV [--build DIR]"
		base=$2
		shift 2
		while [ $# -gt 0 ]; do
			case $1 in
			--build) [ $# -ge 2 ] || die "--build needs a folder"; build=$2; shift 2 ;;
			--vm) vm=guest; shift ;;
			--vm-iommufd) vm=iommufd; shift ;;
			*) die "unknown option $1" ;;
			esac
		done
		;;
	*) die "usage: $0 --base REV [--build DIR] [--vm|--vm-iommufd] | --run BUILD_DIR OUT_DIR" ;;
	esac
	local sha
	sha=$(git -C "$top" rev-parse --verify "$base^{commit}") || die "no commit $base"
	local work=$top/build-check/${sha:0:12}
	if [ ! -e "$work/src/CMakeLists.txt" ]; then
		mkdir -p "$work/src"
		git -C "$top" archive "$sha" | tar -x -C "$work/src" || die "git archive $sha failed"
	fi
	echo "check-outputs: building base $base (${sha:0:12}) in $work/build"
	build_tools "$work/src" "$work/build"
	echo "check-outputs: building this tree in $build"
	mkdir -p "$build"
	build_tools "$top" "$build"
	run_corpus "$work/build" "$work/out-base"
	run_corpus "$build" "$work/out-this"
	if [ -n "$vm" ]; then
		echo "check-outputs: the QEMU guests with each build's bar-inspect"
		vm_corpus "$work/build" "$work/out-base"
		vm_corpus "$build" "$work/out-this"
	fi
	if diff -rq "$work/out-base" "$work/out-this" >"$work/diff-list"; then
		echo "check-outputs: identical: $(find "$work/out-this" -name '*.rc' | wc -l) cases," \
			"stdout, stderr and exit status byte for byte;" \
			"$(find "$work/out-this" -name 'vm-*' | wc -l) guest outputs (base ${sha:0:12})"
		return 0
	fi
	echo "check-outputs: DIFFERENCES against base ${sha:0:12}:"
	cat "$work/diff-list"
	diff -ru "$work/out-base" "$work/out-this" | head -200
	return 1
}

main "$@"
