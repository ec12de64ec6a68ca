#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The example's test built as a porter builds it, against an installed p2pscope (a
# temporary prefix) and against the build tree; every binary must pass. $1: extra compiler
# flags (the sanitizer flags of an ASan+UBSan build, whose libraries need its runtime).
set -u
cflags=${1:-}
src=${P2PS_SOURCE_DIR:?}
bin=${P2PS_BINARY_DIR:?}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
ex=("$src/examples/test_bar1_pte.c" "$src/examples/bar1_pte.c")

# passes NAME BINARY: runs a built test, which must report 3 tests passed.
passes() {
	if ! "$2" >"$W/$1.out" 2>&1 || ! grep -q '^\[  PASSED  \] 3 test(s)\.' "$W/$1.out"; then
		fail "$1: $(tail -5 "$W/$1.out")"
	else
		echo "ok   $1"
	fi
}

# The build tree: the uninstalled .pc files (pkg-config prefers NAME-uninstalled.pc).
# shellcheck disable=SC2046,SC2086
cc $cflags -o "$W/in-tree" "${ex[@]}" \
	$(PKG_CONFIG_PATH=$bin/pkgconfig pkg-config --cflags --libs gmmu cmocka) ||
	fail "build against the build tree"
passes build-tree "$W/in-tree"

# An installed copy.
cmake --install "$bin" --prefix "$W/prefix" >"$W/install.log" 2>&1 ||
	fail "install: $(tail -5 "$W/install.log")"
pc=$(dirname "$(find "$W/prefix" -name gmmu.pc | head -1)")
[ -n "$pc" ] && [ -e "$pc/gmmu-dump.pc" ] || fail "installed pkg-config files not found"
export PKG_CONFIG_PATH=$pc
libdir=$(pkg-config --variable=libdir gmmu)
# pkg-config's answer, blanks folded (it ends its lines with a space).
pc() { echo $(pkg-config "$@"); }
[ "$(pc --libs-only-l gmmu)" = "-lgmmu" ] || fail "gmmu.pc: $(pc --libs gmmu)"
[ -z "$(pc --print-requires gmmu)" ] || fail "gmmu.pc requires something"
[ "$(pc --print-requires gmmu-dump)" = "gmmu" ] || fail "gmmu-dump.pc: Requires"
[ "$(pc --static --libs-only-l gmmu-dump)" = "-lgmmu-dump -lgmmu -ljson-c" ] ||
	fail "gmmu-dump.pc --static: $(pc --static --libs-only-l gmmu-dump)"
for h in gmmu.h gmmu_drvmap.h nvidia_chips.h error.h bytes.h parse.h pci_addr.h gmmu_dump.h \
	gmmu_walk.h gmmu_render.h; do
	[ -e "$(pkg-config --variable=includedir gmmu)/p2pscope/$h" ] || fail "header $h not installed"
done
# shellcheck disable=SC2046,SC2086
cc $cflags -o "$W/shared" "${ex[@]}" $(pkg-config --cflags --libs gmmu cmocka) \
	-Wl,-rpath,"$libdir" || fail "build against the installed shared library"
passes installed-shared "$W/shared"
# shellcheck disable=SC2046,SC2086
cc $cflags -o "$W/static" "${ex[@]}" $(pkg-config --cflags gmmu cmocka) "$libdir/libgmmu.a" \
	$(pkg-config --libs cmocka) || fail "build against the installed static library"
passes installed-static "$W/static"
[ -z "$(ldd "$W/static" | grep libgmmu)" ] || fail "the static build loads libgmmu.so"

# CMake: find_package(gmmu) from the prefix, as examples/CMakeLists.txt does.
CFLAGS=$cflags LDFLAGS=$cflags cmake -S "$src/examples" -B "$W/cmake" \
	-DCMAKE_PREFIX_PATH="$W/prefix" >"$W/cmake.log" 2>&1 &&
	cmake --build "$W/cmake" >>"$W/cmake.log" 2>&1 ||
	fail "CMake build of examples/: $(tail -15 "$W/cmake.log")"
passes cmake-package "$W/cmake/test_bar1_pte"

# The dump library through its package too: a program using gmmu-dump links and runs.
cat >"$W/dump.c" <<'C'
#include <p2pscope/gmmu_render.h>
#include <stdio.h>
static int put(void *ctx, const char *s, size_t n) { (void)ctx; return fwrite(s, 1, n, stdout) == n ? 0 : -1; }
int main(void)
{
	char block[4096];
	struct gmmu_out o;
	struct p2ps_error err;
	gmmu_out_init(&o, block, sizeof(block), put, NULL);
	return gmmu_render_formats(&o, GMMU_FORMATS_TEXT, &err) || gmmu_out_flush(&o);
}
C
# shellcheck disable=SC2046,SC2086
cc $cflags -o "$W/dump" "$W/dump.c" $(pkg-config --cflags --libs gmmu-dump) \
	-Wl,-rpath,"$libdir" && "$W/dump" | grep -q '^v3-gb' || fail "a gmmu-dump program"

[ "$fails" -eq 0 ] && echo "example_package: ok"
[ "$fails" -eq 0 ]
