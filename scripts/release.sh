#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The release files: portable tarballs of the tools for x86_64 and aarch64, their
# SHA256SUMS, and on request the OCI image of bar-inspect (docs/install.md).
#
#   scripts/release.sh [--arch x86_64|aarch64]... [--out DIR] [--image] [--tests]
#                      [--pciutils-src DIR]
#
# For each architecture (default: both):
#  1. libpci as a static archive, built from Debian's pciutils source package (apt-get
#     source, with deb-src lines made from this machine's Debian sources in a private apt
#     folder; or --pciutils-src DIR, an unpacked pciutils tree) without udev, kmod or DNS,
#     with zlib: Debian ships no libpci.a, and its shared libpci needs libudev and libkmod;
#  2. the project configured with P2PS_STATIC=ON (cmake/P2psStatic.cmake: libpci, json-c
#     and zlib linked in, glibc shared) and CMAKE_BUILD_TYPE=Release, aarch64 with
#     cmake/toolchain-aarch64-linux-gnu.cmake (Debian's gcc-aarch64-linux-gnu and the
#     :arm64 -dev packages); with --tests, the cmocka suite too, run with ctest (aarch64
#     under qemu-user);
#  3. p2pscope-VERSION-linux-ARCH.tar.gz: bin/ (bar-inspect, pte-decode, pte-probe,
#     p2pscope-capture-host), share/man, share/bash-completion, share/p2pscope/schemas and
#     contrib (Ansible, Prometheus, Slurm, Kubernetes), LICENSE, README.md and LICENSES/ (the licences of the libraries linked in: libpci
#     is GPL-2.0-or-later, so the binaries are distributed under its terms too; the
#     source of the pciutils version used is named there);
#  4. with --image, p2pscope-VERSION-oci-ARCH.tar: the OCI image (docs/kubernetes.md),
#     made with umoci from scratch: the static bar-inspect, the C library and loader
#     from this machine's Debian libc6 (the binaries' only shared library), busybox
#     (Debian's busybox-static) for the node script contrib/kubernetes/p2pscope-node.sh.
# Then OUT/SHA256SUMS over every file made. Archives are reproducible: file times are
# the commit's, owners root, names sorted.
#
# Needs: cmake, make, gcc; gcc-aarch64-linux-gnu and the :arm64 libraries for aarch64;
# qemu-user for the aarch64 tests and bash completion; umoci and busybox-static for
# --image (scripts/deps.d/release.txt). Work folder: build-release/ (P2PS_RELEASE_WORK),
# reused: libpci is built once per architecture. Environment: JOBS.
# Exit status: 0 done, 1 a build or test failed, 2 bad usage or a missing tool.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
work=${P2PS_RELEASE_WORK:-$top/build-release}
jobs=${JOBS:-2}
out=""
arches=()
image=0
tests=0
pciutils_src=""

die() {
	echo "release.sh: $*" >&2
	exit 2
}
fail() {
	echo "release.sh: FAIL: $*" >&2
	exit 1
}
note() { echo "release.sh: $*"; }

while [ $# -gt 0 ]; do
	case $1 in
	--arch)
		[ $# -ge 2 ] || die "--arch needs x86_64 or aarch64"
		case $2 in x86_64 | aarch64) arches+=("$2") ;; *) die "--arch $2: x86_64 or aarch64" ;; esac
		shift 2
		;;
	--out) [ $# -ge 2 ] || die "--out needs a folder"; out=$2; shift 2 ;;
	--image) image=1; shift ;;
	--tests) tests=1; shift ;;
	--pciutils-src) [ $# -ge 2 ] || die "--pciutils-src needs a folder"; pciutils_src=$2; shift 2 ;;
	-h | --help) sed -n '3,34p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (try --help)" ;;
	esac
done
[ ${#arches[@]} -gt 0 ] || arches=(x86_64 aarch64)
out=${out:-$work/dist}
mkdir -p "$work" "$out"
out=$(cd "$out" && pwd)
version=$(sed -n 's/^project(p2pscope VERSION \([0-9.]*\).*/\1/p' "$top/CMakeLists.txt")
[ -n "$version" ] || die "no version in CMakeLists.txt"
# File times in the archives: the commit's, or the newest tracked file's outside git.
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$top" log -1 --format=%ct 2>/dev/null || date +%s)}

triplet() { echo "$1-linux-gnu"; }

# ---- 1. libpci ---------------------------------------------------------------------

# The deb-src entries of this machine's Debian sources (one-line and deb822 files).
debian_src_lists() { # FOLDER
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -n 's/^[[:space:]]*deb[[:space:]]\(.*debian.*\)$/deb-src \1/p' "$f"
	done >"$1/debian-src.list"
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'function flush() {
				if (deb && uri) printf "%s\n", para
				para = ""; deb = 0; uri = 0
			}
			/^[ \t]*$/ { flush(); next }
			/^Types:/ { if ($0 ~ /[ \t]deb([ \t]|$)/) deb = 1; $0 = "Types: deb-src" }
			/^URIs:/ && /debian/ { uri = 1 }
			{ para = para $0 "\n" }
			END { flush() }' "$f"
	done >"$1/debian-src.sources"
	[ -s "$1/debian-src.list" ] || [ -s "$1/debian-src.sources" ]
}

# Unpacks Debian's pciutils source under $work/src (once); prints its folder.
pciutils_source() {
	if [ -n "$pciutils_src" ]; then
		[ -f "$pciutils_src/lib/pci.h" ] || die "--pciutils-src $pciutils_src: no lib/pci.h"
		(cd "$pciutils_src" && pwd)
		return
	fi
	local src=$work/src have
	have=$(find "$src" -maxdepth 1 -type d -name 'pciutils-*' 2>/dev/null | head -n1)
	if [ -n "$have" ] && [ -f "$have/lib/pci.h" ]; then
		echo "$have"
		return
	fi
	if ! command -v apt-get >/dev/null || ! command -v dpkg-source >/dev/null; then
		die "apt-get and dpkg-source (dpkg-dev) fetch pciutils' source; or give --pciutils-src"
	fi
	local apt=$src/apt
	mkdir -p "$apt/sources.d" "$apt/lists/partial" "$apt/cache/archives/partial"
	debian_src_lists "$apt/sources.d" || die "no Debian entry in /etc/apt/sources.list*"
	local opts=(-o "Dir::Etc::SourceList=$apt/sources.d/debian-src.list"
		-o "Dir::Etc::SourceParts=$apt/sources.d" -o "Dir::State::Lists=$apt/lists"
		-o "Dir::Cache=$apt/cache" -o "APT::Sandbox::User=root")
	[ -s "$apt/sources.d/debian-src.sources" ] || rm -f "$apt/sources.d/debian-src.sources"
	apt-get -qq "${opts[@]}" update >&2 || die "apt-get update of the deb-src entries failed"
	(cd "$src" && apt-get -qq "${opts[@]}" source pciutils) >&2 ||
		die "apt-get source pciutils failed"
	have=$(find "$src" -maxdepth 1 -type d -name 'pciutils-*' | head -n1)
	[ -n "$have" ] || die "apt-get source pciutils unpacked nothing"
	echo "$have"
}

# libpci.a and its .pc under $work/deps/ARCH, from a copy of the source (built in place).
build_libpci() { # ARCH
	local arch=$1 prefix=$work/deps/$1 src
	if [ -f "$prefix/lib/libpci.a" ] && [ -f "$prefix/lib/pkgconfig/libpci.pc" ]; then
		return 0
	fi
	src=$(pciutils_source)
	note "libpci for $arch from $(basename "$src")"
	rm -rf "$prefix"
	mkdir -p "$prefix"
	cp -a "$src" "$prefix/src"
	local cross=""
	[ "$arch" = "$(uname -m)" ] || cross="$(triplet "$arch")-"
	# No udev (hwdb names), no kmod (lspci's kernel-module names), no DNS (network
	# names): the tools use none of them. zlib reads a compressed pci.ids. The name list
	# is Debian's /usr/share/misc/pci.ids (-i names another).
	local vars=(CROSS_COMPILE="$cross" HOST="$arch-linux" ZLIB=yes DNS=no SHARED=no
		LIBKMOD=no HWDB=no PREFIX="$prefix" IDSDIR=/usr/share/misc
		OPT="-O2 -fPIC -fstack-protector-strong -D_FORTIFY_SOURCE=2")
	make -C "$prefix/src" -j"$jobs" "${vars[@]}" install-lib >"$prefix/build.log" 2>&1 ||
		{ tail -n 20 "$prefix/build.log"; fail "building libpci for $arch"; }
	# The version, for LICENSES/: the Debian source package's when there is one.
	local dsc
	dsc=$(find "$(dirname "$src")" -maxdepth 1 -name 'pciutils_*.dsc' | head -n1)
	if [ -n "$dsc" ]; then
		sed -n 's/^Version: /Debian source package pciutils /p' "$dsc" >"$prefix/origin"
	else
		echo "pciutils $(sed -n 's/^VERSION=//p' "$src/Makefile")" >"$prefix/origin"
	fi
	cp "$src/COPYING" "$prefix/COPYING"
	[ -f "$src/debian/copyright" ] && cp "$src/debian/copyright" "$prefix/copyright"
	return 0
}

# ---- 2. the build ------------------------------------------------------------------

# The tests whose command is a program of the build (the cmocka suites, run through the
# emulator in a cross build), as NAME|NAME|...: the scripts among the tests run the host's
# shell or Python on the tools, which a cross build's binaries cannot serve. In a cross
# build, less the suites that start another program of the build: qemu-user runs the
# first program only, a child it starts needs the kernel's binfmt_misc registration,
# which this script does not make (it is the whole machine's).
cross_spawners="test_p2p_bench_ipc"
program_tests() { # BUILD
	(cd "$1" && ctest --show-only=json-v1) | python3 -c '
import json, sys
build = sys.argv[1]
spawners = sys.argv[2].split()
emulator = set(sys.argv[3:])
names = []
for t in json.load(sys.stdin)["tests"]:
    cmd = t.get("command") or [""]
    if cmd[0] in emulator and t["name"] in spawners:
        continue
    if cmd[0] in emulator or cmd[0].startswith(build + "/"):
        names.append(t["name"])
print("|".join(names))' "$(cd "$1" && pwd)" "$cross_spawners" \
		"$(sed -n 's/^P2PS_QEMU_AARCH64:FILEPATH=//p' "$1/CMakeCache.txt")"
}

build_tree() { # ARCH
	local arch=$1 b=$work/$1 args=() with_tests=OFF
	[ $tests = 0 ] || with_tests=ON
	args=(-DCMAKE_BUILD_TYPE=Release -DP2PS_STATIC=ON -DP2PS_CUDA=OFF
		-DCMAKE_PREFIX_PATH="$work/deps/$arch" -DP2PS_TESTS="$with_tests")
	if [ "$arch" != "$(uname -m)" ]; then
		[ "$arch" = aarch64 ] || die "no toolchain file for $arch"
		command -v aarch64-linux-gnu-gcc >/dev/null ||
			die "aarch64-linux-gnu-gcc is missing (gcc-aarch64-linux-gnu)"
		args+=(-DCMAKE_TOOLCHAIN_FILE="$top/cmake/toolchain-aarch64-linux-gnu.cmake")
	fi
	note "building for $arch in $b"
	cmake -S "$top" -B "$b" "${args[@]}" >"$b.configure.log" 2>&1 ||
		{ tail -n 30 "$b.configure.log"; fail "configuring for $arch"; }
	cmake --build "$b" -j "$jobs" >"$b.build.log" 2>&1 ||
		{ grep -E 'error|Error' "$b.build.log" | head -n 20; fail "building for $arch (log: $b.build.log)"; }
	if [ $tests = 1 ]; then
		local names
		names=$(program_tests "$b")
		[ -n "$names" ] || fail "no test runs a program of the $arch build"
		note "ctest for $arch: the $(tr '|' '\n' <<<"$names" | wc -l) suites that are programs of the build"
		(cd "$b" && ctest -j "$jobs" --timeout 600 -R "^($names)\$" --output-on-failure) ||
			fail "tests for $arch"
	fi
	rm -rf "$work/stage/$arch"
	cmake --install "$b" --prefix "$work/stage/$arch" --strip >"$b.install.log" 2>&1 ||
		{ tail -n 20 "$b.install.log"; fail "installing for $arch"; }
}

# ---- 3. the tarball ----------------------------------------------------------------

# A reproducible gzip'ed tar of FOLDER's content under its name.
pack() { # FOLDER TARBALL
	tar -C "$(dirname "$1")" --sort=name --owner=0 --group=0 --numeric-owner \
		--mtime="@$epoch" --format=gnu -cf - "$(basename "$1")" | gzip -9n >"$2"
}

# The licences of what is linked into the binaries, with where each came from.
third_party() { # ARCH DEST
	local arch=$1 d=$2 deps=$work/deps/$1
	mkdir -p "$d"
	cp "$deps/COPYING" "$d/libpci.COPYING"
	[ -f "$deps/copyright" ] && cp "$deps/copyright" "$d/libpci.copyright"
	local p doc
	for p in libjson-c5 zlib1g; do
		doc=/usr/share/doc/$p/copyright
		[ -f "$doc" ] || fail "$doc is missing: the licence of a library linked in"
		cp "$doc" "$d/$p.copyright"
	done
	local dpkg_arch=amd64
	[ "$arch" = aarch64 ] && dpkg_arch=arm64
	{
		echo "Libraries linked into the programs in bin/ (each takes those it uses):"
		echo
		echo "  libpci (GPL-2.0-or-later): $(cat "$deps/origin"), built without"
		echo "    udev, kmod and DNS; licence in libpci.COPYING, libpci.copyright."
		echo "    The binaries are therefore distributed under the GPL-2.0-or-later"
		echo "    as a whole; the source of that pciutils version is Debian's"
		echo "    (apt-get source pciutils) and https://mj.ucw.cz/sw/pciutils/."
		for p in libjson-c-dev zlib1g-dev; do
			echo "  $(dpkg-query -W -f '${source:Package} ${Version}' "$p:$dpkg_arch" 2>/dev/null ||
				echo "$p"): Debian's static archive; licence in" \
				"$([ $p = zlib1g-dev ] && echo zlib1g || echo libjson-c5).copyright."
		done
		echo
		echo "The C library (glibc) is not linked in: the host's is used."
		echo "p2pscope's own code is under the MIT licence (../LICENSE)."
	} >"$d/README"
}

tarball() { # ARCH
	local arch=$1 stage=$work/stage/$1 name root
	name=p2pscope-$version-linux-$arch
	root=$work/pkg/$name
	rm -rf "$root"
	mkdir -p "$root/bin" "$root/share/man/man1" "$root/share/man/man8" "$root/share/p2pscope"
	local t
	for t in bar-inspect pte-decode pte-probe p2pscope-capture-host; do
		cp -p "$stage/bin/$t" "$root/bin/" || fail "$t was not installed for $arch"
	done
	local mandir
	mandir=$(find "$stage" -type d -name man1 -path '*/man/*' | head -n1)
	mandir=$(dirname "$mandir")
	cp "$mandir"/man8/bar-inspect.8 "$mandir"/man8/pte-probe.8 "$root/share/man/man8/"
	cp "$mandir"/man1/pte-decode.1 "$root/share/man/man1/"
	cp "$top/debian/p2pscope-capture-host.8" "$root/share/man/man8/"
	cp -r "$stage/share/bash-completion" "$root/share/"
	for t in bar-inspect pte-decode pte-probe; do
		[ -s "$root/share/bash-completion/completions/$t" ] ||
			fail "no bash completion for $t ($arch)"
	done
	cp -r "$stage/share/p2pscope/schemas" "$stage/share/p2pscope/contrib" "$root/share/p2pscope/"
	rm -f "$root/share/p2pscope/schemas/p2p-bench"*
	cp "$top/LICENSE" "$top/README.md" "$root/"
	third_party "$arch" "$root/LICENSES"
	pack "$root" "$out/$name.tar.gz"
	note "$out/$name.tar.gz"
}

# ---- 4. the image ------------------------------------------------------------------

image() { # ARCH
	"$top/scripts/oci-image.sh" --arch "$1" --bar-inspect "$work/stage/$1/bin/bar-inspect" \
		--licenses "$work/pkg/p2pscope-$version-linux-$1/LICENSES" \
		--version "$version" --epoch "$epoch" --work "$work/oci-$1" \
		--out "$out/p2pscope-$version-oci-$1.tar" || fail "the OCI image for $1"
	note "$out/p2pscope-$version-oci-$1.tar"
}

for arch in "${arches[@]}"; do
	build_libpci "$arch"
	build_tree "$arch"
	tarball "$arch"
	[ $image = 0 ] || image "$arch"
done
(cd "$out" && find . -maxdepth 1 -type f \( -name '*.tar.gz' -o -name '*.tar' \) -printf '%f\n' |
	LC_ALL=C sort | xargs -r sha256sum >SHA256SUMS)
note "$out/SHA256SUMS:"
sed 's/^/  /' "$out/SHA256SUMS"
