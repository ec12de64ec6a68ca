#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The RPM packages (packaging/rpm/p2pscope.spec, docs/packages.md), built and checked on
# Debian with Debian's rpm and rpmlint:
# 1. the source tarball as git sees the tree (tracked and untracked files, not the ignored
#    builds), then `rpmbuild -ba --nodeps` (the build dependencies are Debian packages
#    here, not RPMs) with packaging/rpm/rpmbuild-debian.macros, which gives Debian's
#    rpmbuild the %cmake macros and post-install steps Fedora's has; p2p-bench, which needs
#    `--with cuda`, is left out (rpmspec only checks that --with cuda adds its package);
# 2. the packages: p2pscope, libgmmu, libgmmu-devel, p2pscope-contrib and the source
#    package; no file in two packages; every binary of p2pscope with its man page;
#    libgmmu's libraries with their SONAMEs and executable; contrib/ whole in
#    p2pscope-contrib; no static library; no `#!/usr/bin/env` interpreter;
# 3. the packaged bar-inspect and pte-decode, unpacked with rpm2cpio, on a committed
#    snapshot and the committed H100 entries: the dynamic build's output ($BUILD_DIR);
# 4. rpmlint on the spec, the source and the binary packages with
#    packaging/rpm/rpmlint.toml: an error fails the step; the warnings are shown (the ones
#    kept are listed, with their reasons, in that file).
#
# Needs rpmbuild and rpmlint (scripts/deps.d/release.txt); without them the step is
# SKIPPED (exit 77), and fails under CI=true. Environment: BUILD_DIR, JOBS.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
step=76-rpm
top=$(pwd)
build=${BUILD_DIR:-$top/build}
work=$top/build-rpm
jobs=${JOBS:-2}
# shellcheck source=scripts/lib/step.sh
. scripts/lib/step.sh
for cmd in rpmbuild rpmspec rpmlint rpm2cpio cpio; do
	command -v "$cmd" >/dev/null || skip "$cmd is missing (scripts/deps.d/release.txt)"
done
spec=packaging/rpm/p2pscope.spec
version=$(sed -n 's/^Version: *//p' "$spec")
cmake_version=$(sed -n 's/^project(p2pscope VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
[ "$version" = "$cmake_version" ] || bad "the spec says version $version, CMakeLists.txt $cmake_version"

# 0. --with cuda adds p2p-bench (the build below leaves it out: nvcc is not an RPM).
names=$(rpmspec -q --with cuda --qf '%{NAME}\n' "$spec" 2>&1 | paste -sd' ' -)
[ "$names" = "p2pscope libgmmu libgmmu-devel p2pscope-contrib p2p-bench" ] ||
	bad "rpmspec --with cuda: packages '$names'"

# 1. The packages.
rm -rf "$work"
mkdir -p "$work/SOURCES" "$work/src/p2pscope-$version"
if git rev-parse --git-dir >/dev/null 2>&1; then
	git ls-files -z -co --exclude-standard | tar -cf - --null -T - | tar -xf - -C "$work/src/p2pscope-$version"
else
	tar -cf - --exclude='./build*' --exclude=./.git . | tar -xf - -C "$work/src/p2pscope-$version"
fi || { fail "copying the tree"; }
tar -C "$work/src" -czf "$work/SOURCES/p2pscope-$version.tar.gz" "p2pscope-$version"
if ! rpmbuild --define "_topdir $work" --define "_smp_build_ncpus $jobs" \
	--load packaging/rpm/rpmbuild-debian.macros --nodeps -ba "$spec" >"$work/build.log" 2>&1; then
	tail -n 40 "$work/build.log"
	fail "rpmbuild (log: $work/build.log)"
fi
mapfile -t rpms < <(find "$work/RPMS" "$work/SRPMS" -name '*.rpm' | LC_ALL=C sort)
phase "built: $(printf '%s\n' "${rpms[@]##*/}" | paste -sd' ' -)"

# 2. What each package holds.
pkg() { find "$work/RPMS" -name "$1-$version-*.rpm" | head -n1; }
for p in p2pscope libgmmu libgmmu-devel p2pscope-contrib; do
	[ -n "$(pkg "$p")" ] || bad "rpmbuild made no $p package"
done
[ -n "$(find "$work/SRPMS" -name "p2pscope-$version-*.src.rpm")" ] || bad "no source package"
# Each package's files (PERMS PATH lines) and provides, read whole into files: grep -q
# on a pipe would end the pipe early, and pipefail count that as a failure.
for r in "${rpms[@]}"; do
	case $r in *.src.rpm) continue ;; esac
	rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$r" >"$r.files" 2>/dev/null ||
		bad "rpm -qp $(basename "$r")"
	rpm -qp --provides "$r" >"$r.provides" 2>/dev/null
done
# Files and links (a folder may belong to several packages).
for r in "${rpms[@]}"; do
	case $r in *.src.rpm) ;; *) sed -n 's/^[-l][^ ]* //p' "$r.files" | grep -v '^/usr/share/licenses/' ;; esac
done | sort | uniq -d >"$work/twice"
[ ! -s "$work/twice" ] || bad "files in two packages: $(paste -sd' ' "$work/twice")"
main=$(pkg p2pscope)
for b in $(sed -n 's|^[^ ]* /usr/bin/||p' "$main.files"); do
	grep -Eq " /usr/share/man/man[18]/$b\.[18]\.gz$" "$main.files" || bad "p2pscope: $b has no man page"
done
lib=$(pkg libgmmu)
for so in libgmmu.so.0 libgmmu-dump.so.0; do
	grep -q " /usr/lib64/$so$" "$lib.files" || bad "libgmmu lacks /usr/lib64/$so"
	grep -q "^${so//./\\.}()(64bit)" "$lib.provides" || bad "libgmmu does not provide $so()(64bit)"
done
grep ' /usr/lib64/.*\.so\.0\.' "$lib.files" >"$work/libs"
grep -qv '^-rwxr-xr-x' "$work/libs" && bad "libgmmu's libraries are not executable"
contrib=$(pkg p2pscope-contrib)
for f in $(git -C contrib ls-files 2>/dev/null || (cd contrib && find . -type f)); do
	[ "${f#./}" = CMakeLists.txt ] && continue
	grep -q " /usr/share/p2pscope/contrib/${f#./}$" "$contrib.files" ||
		bad "p2pscope-contrib lacks contrib/${f#./}"
done
for r in "${rpms[@]}"; do
	case $r in *.src.rpm) continue ;; esac
	grep -q '\.a$' "$r.files" && bad "$(basename "$r") holds a static library"
done
mkdir -p "$work/unpacked"
for r in "${rpms[@]}"; do
	case $r in *.src.rpm) ;; *) (cd "$work/unpacked" && rpm2cpio "$r" | cpio -idm --quiet) ;; esac
done
if grep -rl '^#!/usr/bin/env' "$work/unpacked/usr/bin" "$work/unpacked/usr/share/p2pscope/contrib"; then
	bad "scripts above still run their interpreter through env"
fi
phase "contents"

# 3. The packaged tools.
cmake --build "$build" -j "$jobs" --target bar-inspect pte-decode >"$work/dynamic.log" 2>&1 ||
	{ tail -n 20 "$work/dynamic.log"; fail "building the tools in $build"; }
for args in "--root tests/fixtures/h200x2" "--root tests/fixtures/h200x2 --nfd" \
	"--root tests/fixtures/qemu-switch/acs-on --json"; do
	# shellcheck disable=SC2086 # the arguments are words
	cmp -s <("$work/unpacked/usr/bin/bar-inspect" $args) <("$build/tools/bar-inspect" $args) ||
		bad "the packaged bar-inspect $args differs from $build's"
done
pd=(decode --chip GH100 --va 0x120000000 --text debian/tests/gh100-pt-small.txt)
cmp -s <("$work/unpacked/usr/bin/pte-decode" "${pd[@]}") <("$build/tools/pte-decode" "${pd[@]}") ||
	bad "the packaged pte-decode differs from $build's"
phase "the packaged tools"

# 4. rpmlint.
rpmlint -c packaging/rpm/rpmlint.toml "$spec" "${rpms[@]}" >"$work/rpmlint.log" 2>&1
lrc=$?
grep -E ': [EW]: ' "$work/rpmlint.log"
errors=$(grep -c ': E: ' "$work/rpmlint.log")
echo "$step: rpmlint: $errors errors, $(grep -c ': W: ' "$work/rpmlint.log") warnings"
if [ "$errors" -ne 0 ] || ! grep -q 'packages and 1 specfiles checked' "$work/rpmlint.log"; then
	tail -n 5 "$work/rpmlint.log"
	bad "rpmlint (exit $lrc)"
fi
phase "rpmlint"
step_end
