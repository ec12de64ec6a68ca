#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The portable release binaries (scripts/release.sh, docs/install.md), for x86_64 and for
# aarch64 (Grace: GH200, GB200), which nothing else here builds or runs:
# 1. scripts/release.sh makes both tarballs and SHA256SUMS: libpci from Debian's pciutils
#    source, libpci, json-c and zlib linked in; the aarch64 build cross-compiled with
#    Debian's gcc-aarch64-linux-gnu and :arm64 libraries, and its cmocka suites (every test
#    that is a program of the build, about a third of the suite: the rest are scripts that
#    run the host's shell or Python on the tools) run under qemu-user, all but the one that
#    starts a second program (test_p2p_bench_ipc: qemu-user without binfmt runs the first
#    program only); the x86_64 suites need no run here, the comparison below covers them;
# 2. every binary is an ELF of its architecture whose only shared libraries are libc.so.6
#    and the loader, needs no glibc symbol newer than 2.34 (the portability floor
#    docs/install.md states) and says "static" and its architecture in --version;
# 3. each tarball holds what docs/install.md lists, and SHA256SUMS verifies;
# 4. the x86_64 static binaries against the dynamic build ($BUILD_DIR), byte for byte:
#    bar-inspect on every snapshot, lspci dump and paste under tests/fixtures as text, -a,
#    --json, --nfd, --prometheus, --dot and --nccl-topo; pte-decode's formats and the
#    committed H100 entries; pte-probe replaying every committed RM capture;
# 5. the aarch64 binaries under qemu-user on the same corpus against the x86_64 ones.
#
# Needs root (apt-get source into a private apt folder), the Debian mirror, and the packages
# of scripts/deps.d/release.txt with the arm64 architecture; without them the step is
# SKIPPED (exit 77), and fails under CI=true. Environment: BUILD_DIR, JOBS.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
step=72-release
top=$(pwd)
build=${BUILD_DIR:-$top/build}
work=$top/build-release
jobs=${JOBS:-2}
# shellcheck source=scripts/lib/step.sh
. scripts/lib/step.sh

[ "$(id -u)" -eq 0 ] || skip "needs root for apt-get source in a private apt folder"
for cmd in aarch64-linux-gnu-gcc qemu-aarch64 dpkg-source readelf objdump python3; do
	command -v "$cmd" >/dev/null || skip "$cmd is missing (scripts/deps.d/release.txt)"
done
for p in libjson-c-dev:arm64 zlib1g-dev:arm64 libcmocka-dev:arm64; do
	case $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) in
	*"ok installed") ;;
	*) skip "$p is not installed (scripts/deps.d/release.txt; dpkg --add-architecture arm64)" ;;
	esac
done
version=$(sed -n 's/^project(p2pscope VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)

# 1. The release files.
JOBS=$jobs scripts/release.sh --arch x86_64 >"$work.x86_64.log" 2>&1 ||
	{ tail -n 30 "$work.x86_64.log"; fail "scripts/release.sh --arch x86_64"; }
phase "x86_64 tarball"
JOBS=$jobs scripts/release.sh --arch aarch64 --tests >"$work.aarch64.log" 2>&1 ||
	{ tail -n 30 "$work.aarch64.log"; fail "scripts/release.sh --arch aarch64 --tests"; }
grep -E 'ctest for aarch64|tests passed' "$work.aarch64.log" | sed "s/^/$step: /"
phase "aarch64 tarball and its tests under qemu-user"

# 2. The binaries, from the tarballs.
rm -rf "$work/check"
mkdir -p "$work/check"
for arch in x86_64 aarch64; do
	tar -C "$work/check" -xzf "$work/dist/p2pscope-$version-linux-$arch.tar.gz" ||
		bad "unpacking the $arch tarball"
done
run_on() { # ARCH BINARY ARGS...
	local arch=$1
	shift
	if [ "$arch" = aarch64 ]; then qemu-aarch64 "$@"; else "$@"; fi
}
machine() { [ "$1" = aarch64 ] && echo AArch64 || echo X86-64; }
for arch in x86_64 aarch64; do
	d=$work/check/p2pscope-$version-linux-$arch
	for t in bar-inspect pte-decode pte-probe; do
		f=$d/bin/$t
		header=$(readelf -h "$f" 2>/dev/null) || { bad "$arch/$t is no ELF file"; continue; }
		[[ $header == *"Machine:"*"$(machine "$arch")"* ]] || bad "$arch/$t is not built for $arch"
		needed=$(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | paste -sd' ' -)
		case " $needed " in
		" ld-linux-x86-64.so.2 libc.so.6 " | " ld-linux-aarch64.so.1 libc.so.6 " | " libc.so.6 ") ;;
		*) bad "$arch/$t needs shared libraries besides glibc: $needed" ;;
		esac
		newest=$(objdump -T "$f" | grep -o 'GLIBC_[0-9][0-9.]*' | sort -uV | tail -n1)
		[ "$(printf '%s\n' "$newest" GLIBC_2.34 | sort -V | tail -n1)" = GLIBC_2.34 ] ||
			bad "$arch/$t needs $newest, newer than the GLIBC_2.34 docs/install.md promises"
		v=$(run_on "$arch" "$f" --version | sed -n 2p)
		case $v in
		"build: commit "*", $arch, Release, static ("*"; glibc shared)") ;;
		*) bad "$arch/$t --version's build line: '$v'" ;;
		esac
		echo "$step: $arch/$t: $(stat -c %s "$f") bytes, needs $needed (glibc up to $newest)"
	done
	for f in bin/p2pscope-capture-host LICENSE README.md LICENSES/README LICENSES/libpci.COPYING \
		share/man/man8/bar-inspect.8 share/man/man1/pte-decode.1 share/man/man8/pte-probe.8 \
		share/man/man8/p2pscope-capture-host.8 share/bash-completion/completions/bar-inspect \
		share/bash-completion/completions/pte-decode share/bash-completion/completions/pte-probe \
		share/p2pscope/schemas/bar-inspect.schema.json \
		share/p2pscope/contrib/kubernetes/p2pscope-daemonset.yaml; do
		[ -s "$d/$f" ] || bad "the $arch tarball lacks $f"
	done
done
# What is not a binary is the same in both: man pages, completion (the aarch64 build makes
# it by running its tools under qemu-user), schemas, contrib, licences.
diff -r "$work/check/p2pscope-$version-linux-x86_64/share" "$work/check/p2pscope-$version-linux-aarch64/share" ||
	bad "the tarballs' share/ differ"
(cd "$work/dist" && sha256sum --quiet -c SHA256SUMS) || bad "SHA256SUMS does not verify"
phase "binaries and tarballs"

# 4, 5. The same corpus through each build: NAME files of stdout, stderr and status.
corpus() { # OUT ARCH BINDIR
	local out=$1 arch=$2 bin=$3 n=0 f
	rm -rf "$out"
	mkdir -p "$out"
	case1() { # NAME TOOL ARGS...
		local name=$1 tool=$2
		shift 2
		run_on "$arch" "$bin/$tool" "$@" >"$out/$name.out" 2>"$out/$name.err"
		echo $? >"$out/$name.rc"
		n=$((n + 1))
	}
	local fx=tests/fixtures args view
	while IFS= read -r f; do
		case $f in
		*/p2pscope/snapshot-info) args=(--root "${f%/p2pscope/snapshot-info}") ;;
		*/lspci-xxxx.txt) args=(--lspci-dump "$f") ;;
		*) args=(--paste "$f") ;;
		esac
		for view in "" -a --json --nfd --prometheus --dot --nccl-topo; do
			case1 "bi-$(tr '/' '_' <<<"$f")$view" bar-inspect "${args[@]}" $view
		done
	done < <(find "$fx" \( -path '*/p2pscope/snapshot-info' -o -name lspci-xxxx.txt \
		-o -name paste.txt \) | LC_ALL=C sort)
	case1 pd-formats pte-decode formats
	case1 pd-formats-json pte-decode formats --json
	case1 pd-formats-md pte-decode formats --markdown
	case1 pd-gh100 pte-decode decode --chip GH100 --va 0x120000000 --text debian/tests/gh100-pt-small.txt
	for f in "$fx"/pte-probe/*.json; do
		case1 "pp-$(basename "$f")" pte-probe --replay "$f"
		case1 "pp-$(basename "$f")-json" pte-probe --replay "$f" --json
	done
	echo "$n"
}
compare() { # WHAT A B
	if diff -r "$2" "$3" >"$2.diff"; then
		echo "$step: $1: identical"
	else
		bad "$1 differ:"
		head -n 40 "$2.diff"
	fi
}
cmake --build "$build" -j "$jobs" --target bar-inspect pte-decode pte-probe >"$work.dynamic.log" 2>&1 ||
	{ tail -n 20 "$work.dynamic.log"; fail "building the dynamic tools in $build"; }
n=$(corpus "$work/out-dynamic" x86_64 "$build/tools")
corpus "$work/out-static" x86_64 "$work/check/p2pscope-$version-linux-x86_64/bin" >/dev/null
compare "x86_64 static and dynamic ($n cases)" "$work/out-dynamic" "$work/out-static"
phase "x86_64 static against dynamic"
corpus "$work/out-aarch64" aarch64 "$work/check/p2pscope-$version-linux-aarch64/bin" >/dev/null
compare "aarch64 (qemu-user) and x86_64 ($n cases)" "$work/out-static" "$work/out-aarch64"
phase "aarch64 against x86_64"
step_end
