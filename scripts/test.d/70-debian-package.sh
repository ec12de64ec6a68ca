#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian packages (debian/, docs/packages.md), built and installed as a user would:
# 1. `dpkg-buildpackage -us -uc -b` on a copy of the tree (build-deb/): p2pscope,
#    libgmmu0, libgmmu-dump0, libgmmu-dev, p2pscope-contrib (contrib/ under
#    /usr/share/p2pscope/contrib, and nowhere else), and p2p-bench where nvcc is found;
# 2. lintian on the result: an error fails the step, warnings are shown (the ones kept
#    are listed in debian/README.source);
# 3. a clean Debian root made by mmdebstrap from this machine's own Debian mirror
#    (/etc/apt/sources.list*), the packages installed into it with apt (which brings
#    their dependencies), and debian/tests/installed run inside it: the tools' versions,
#    contrib's Kubernetes node script, pte-decode on a committed H100 capture, examples/
#    against libgmmu-dev with pkg-config and with CMake.
#
# Needs root (the root is made and entered with chroot) and the Debian mirror; outside
# CI, without them, the step is SKIPPED (exit 77), as it is when nvcc is missing (the
# other packages are then built and checked); under CI=true each of these fails. Environment: JOBS, P2PS_DEBIAN_MIRROR (a mirror
# or sources file for mmdebstrap instead of the host's), CUDACXX (nvcc, as debian/rules).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
step=70-debian-package
top=$(pwd)
work=$top/build-deb
jobs=${JOBS:-2}
# shellcheck source=scripts/lib/step.sh
. scripts/lib/step.sh

[ "$(id -u)" -eq 0 ] || skip "needs root for the Debian root (chroot)"
for cmd in dpkg-buildpackage dh lintian mmdebstrap fakeroot; do
	command -v "$cmd" >/dev/null || skip "$cmd is missing (scripts/deps.d/debian.txt)"
done

# The source tree as git sees it (tracked and untracked files, not the ignored builds),
# in a folder named as dpkg-source wants: p2pscope-UPSTREAM.
deb_version=$(dpkg-parsechangelog -l debian/changelog -SVersion) || fail "debian/changelog"
upstream=${deb_version%-*}
cmake_version=$(sed -n 's/^project(p2pscope VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
[ "$upstream" = "$cmake_version" ] ||
	echo "$step: note: debian/changelog says $upstream, CMakeLists.txt $cmake_version"
rm -rf "$work"
src=$work/p2pscope-$upstream
mkdir -p "$src"
if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files -z -co --exclude-standard | tar -cf - --null -T - | tar -xf - -C "$src"
else
	tar -cf - --exclude='./build*' --exclude=./.git . | tar -xf - -C "$src"
fi || fail "copying the tree into $src"

# p2p-bench where nvcc is (debian/rules looks in the same places).
nvcc=${CUDACXX:-$(command -v nvcc || true)}
[ -n "$nvcc" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc=/usr/local/cuda/bin/nvcc
[ -z "$nvcc" ] || "$nvcc" --version >/dev/null 2>&1 || nvcc=
profile=()
if [ -n "$nvcc" ]; then
	echo "$step: p2p-bench is packaged (nvcc: $nvcc)"
else
	# counted: the step ends with 77 (or fails at once under CI=true)
	step_skip "the p2p-bench package: no nvcc on this machine (the other packages are built)"
	[ "$step_ci_failed" -eq 0 ] || step_exit 0
	profile=(-Ppkg.p2pscope.nocuda)
fi

# 1. The packages.
if ! (cd "$src" && dpkg-buildpackage -us -uc -b "-j$jobs" "${profile[@]}") >"$work/build.log" 2>&1; then
	tail -n 40 "$work/build.log"
	grep -q 'dpkg-gensymbols: error' "$work/build.log" &&
		echo "$step: libgmmu's exported symbols changed: see debian/README.source, 'Symbols'"
	fail "dpkg-buildpackage (log: $work/build.log)"
fi
new_syms=$(grep -E '^\+ [A-Za-z_0-9]+@' "$work/build.log" | sed 's/^+ //; s/@.*//' | paste -sd' ' -)
[ -z "$new_syms" ] ||
	echo "$step: note: new library symbols, not yet in debian/*.symbols: $new_syms"
debs=()
for deb in "$work"/*.deb; do
	case ${deb##*/} in *-dbgsym_*) ;; *) debs+=("$deb") ;; esac
done
want=(p2pscope libgmmu0 libgmmu-dump0 libgmmu-dev p2pscope-contrib)
[ -n "$nvcc" ] && want+=(p2p-bench)
for p in "${want[@]}"; do
	ls "$work/${p}_${deb_version}_"*.deb >/dev/null 2>&1 || fail "dpkg-buildpackage made no $p package"
done
# contrib/ is p2pscope-contrib's, whole, and no other package's.
# (Each listing is read whole: grep -q would end the pipe early, and pipefail count it.)
contrib_deb=$work/p2pscope-contrib_${deb_version}_all.deb
dpkg-deb -c "$contrib_deb" | sed -n 's|.* \./usr/share/p2pscope/contrib/||p' >"$work/contrib.list"
for f in $(cd contrib && { git ls-files 2>/dev/null || find . -type f; }); do
	[ "${f#./}" = CMakeLists.txt ] && continue
	grep -qx "${f#./}" "$work/contrib.list" || fail "p2pscope-contrib lacks contrib/${f#./}"
done
for deb in "${debs[@]}"; do
	[ "$deb" = "$contrib_deb" ] && continue
	dpkg-deb -c "$deb" >"$work/list"
	! grep -q '/usr/share/p2pscope/contrib' "$work/list" || fail "$(basename "$deb") holds contrib/ files"
done
phase "built: $(cd "$work" && echo "${debs[@]##*/}")"

# 2. lintian: errors fail, warnings are shown.
changes=$(echo "$work"/p2pscope_"$deb_version"_*.changes)
lintian --fail-on error --display-info --tag-display-limit 0 "$changes" >"$work/lintian.log" 2>&1
lrc=$?
grep -v 'running with root privileges' "$work/lintian.log"
echo "$step: lintian: $(grep -c '^E: ' "$work/lintian.log") errors," \
	"$(grep -c '^W: ' "$work/lintian.log") warnings"
[ $lrc -eq 0 ] || fail "lintian found errors"
phase "lintian"

# 3. A clean Debian root from this machine's mirror, the packages installed with apt,
#    and the installed-package test inside it.
# shellcheck source=/dev/null
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
mirrors=()
if [ -n "${P2PS_DEBIAN_MIRROR:-}" ]; then
	mirrors=("$P2PS_DEBIAN_MIRROR")
else
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && grep -qs "^[^#]*\b$suite\b" "$f" && grep -qsi '^[^#]*debian' "$f" && mirrors+=("$f")
	done
fi
[ ${#mirrors[@]} -gt 0 ] || skip "no Debian $suite mirror in /etc/apt/sources.list* (set P2PS_DEBIAN_MIRROR)"
echo "$step: Debian root: $suite from ${mirrors[*]}"
inroot=()
for deb in "${debs[@]}"; do inroot+=("/tmp/p2ps/debs/${deb##*/}"); done
# What the installed-package test needs besides our packages: its Depends in
# debian/tests/control (our own packages come from the files above).
test_deps=$(sed -n '/^Depends:/,/^[A-Z]/{s/^Depends://;/^[A-Z]/d;p}' debian/tests/control |
	tr ',' '\n' | tr -d ' \t' | grep -Ev '^(|p2pscope|p2pscope-contrib|p2p-bench|libgmmu.*)$' | paste -sd, -)
[ -n "$test_deps" ] || fail "no Depends in debian/tests/control"
# The docs and translations are left out of the root: nothing there reads them; dpkg
# skips its fsyncs (the root is thrown away at the end). In the hooks "$1" is the root,
# given by mmdebstrap to the shell that runs each one.
# shellcheck disable=SC2016
mmdebstrap --variant=apt --mode=root --format=null \
	--aptopt='Acquire::Check-Valid-Until "false"' \
	--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--dpkgopt=force-unsafe-io \
	--include="$test_deps" \
	--customize-hook='mkdir -p "$1/tmp/p2ps/debs" "$1/tmp/p2ps/src/debian"' \
	--customize-hook="copy-in ${debs[*]} /tmp/p2ps/debs" \
	--customize-hook="copy-in $src/debian/tests $src/debian/changelog /tmp/p2ps/src/debian" \
	--customize-hook="copy-in $src/examples /tmp/p2ps/src" \
	--customize-hook="chroot \"\$1\" env DEBIAN_FRONTEND=noninteractive apt-get install -y \
		--no-install-recommends ${inroot[*]}" \
	--customize-hook='chroot "$1" dpkg-query -W p2pscope libgmmu0 libgmmu-dump0 libgmmu-dev p2pscope-contrib p2p-bench || true' \
	--customize-hook='chroot "$1" /tmp/p2ps/src/debian/tests/installed' \
	"$suite" /dev/null "${mirrors[@]}" >"$work/root.log" 2>&1
rrc=$?
grep -E '^installed: |^(p2pscope|libgmmu|p2p-bench)' "$work/root.log"
if [ $rrc -ne 0 ]; then
	tail -n 30 "$work/root.log"
	fail "the clean Debian root (log: $work/root.log)"
fi
phase "installed into a clean Debian $suite root and checked there"
echo "$step: ok ($SECONDS s in all)"
step_exit 0
