#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `cmake --install` puts the man pages, the bash completion and the JSON Schemas where
# distributions look for them (a scratch prefix here): man1/man3/man8 under
# CMAKE_INSTALL_MANDIR, share/bash-completion/completions/<tool>, share/p2pscope/schemas;
# the installed man pages name the version and the schema folder; every tool's --version
# is the project's version, p2pscope-capture-host's too, which has a usage text.
set -u
. "$P2PS_SOURCE_DIR/tests/support/p2ps_test.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
cmake --install "$P2PS_BINARY_DIR" --prefix "$tmp/usr" >"$tmp/log" 2>&1 ||
	{ cat "$tmp/log"; exit 1; }
version=$(sed -n 's/^project(p2pscope VERSION \([0-9.]*\).*/\1/p' "$P2PS_SOURCE_DIR/CMakeLists.txt")
mandir=$(sed -n 's/^CMAKE_INSTALL_MANDIR:PATH=//p' "$P2PS_BINARY_DIR/CMakeCache.txt")
want=(
	"${mandir:-share/man}/man8/bar-inspect.8" "${mandir:-share/man}/man8/pte-probe.8"
	"${mandir:-share/man}/man1/pte-decode.1" "${mandir:-share/man}/man1/p2p-bench.1"
	"${mandir:-share/man}/man3/gmmu.3"
	share/bash-completion/completions/bar-inspect share/bash-completion/completions/pte-decode
	share/bash-completion/completions/pte-probe
	share/p2pscope/schemas/bar-inspect.schema.json
	share/p2pscope/schemas/bar-inspect-fleet.schema.json
	share/p2pscope/schemas/pte-decode.schema.json share/p2pscope/schemas/pte-probe.schema.json
	share/p2pscope/schemas/p2p-bench.schema.json
	bin/bar-inspect bin/pte-decode bin/pte-probe
)
for f in "${want[@]}"; do
	if [ -s "$tmp/usr/$f" ]; then
		echo "ok: $f"
	else
		echo "FAIL: cmake --install did not install $f"
		fail=1
	fi
done
page=$tmp/usr/${mandir:-share/man}/man8/bar-inspect.8
grep -q "p2pscope $version" "$page" || { echo "FAIL: bar-inspect.8 does not name $version"; fail=1; }
# (the configured prefix's: --prefix at install time does not change the text)
grep -q "share/p2pscope/schemas/bar" "$page" ||
	{ echo "FAIL: bar-inspect.8 does not name the schema folder"; fail=1; }
for t in bar-inspect pte-decode pte-probe; do
	v=$("$tmp/usr/bin/$t" --version)
	[ "$v" = "$t $version" ] || { echo "FAIL: $t --version says '$v', want '$t $version'"; fail=1; }
done
# The capture script: installed under its command name, a usage text of its own (not the
# script's source) and the version, the same from the source tree; bad usage exits 2.
cap=$tmp/usr/bin/p2pscope-capture-host
for c in "$cap" "$P2PS_SOURCE_DIR/scripts/capture-host.sh"; do
	v=$("$c" --version)
	[ "$v" = "p2pscope-capture-host $version" ] ||
		{ echo "FAIL: $c --version says '$v'"; fail=1; }
	"$c" --help >"$tmp/help" 2>&1 || { echo "FAIL: $c --help exits $?"; fail=1; }
	head -n 1 "$tmp/help" | grep -q '^Usage: p2pscope-capture-host \[-o FILE.tar.gz\]' &&
		grep -q -- '--no-tools' "$tmp/help" && ! grep -qE '^#|SPDX|set -u' "$tmp/help" ||
		{ echo "FAIL: $c --help:"; cat "$tmp/help"; fail=1; }
	"$c" --frobnicate >/dev/null 2>"$tmp/err"
	rc=$?
	[ "$rc" -eq 2 ] && grep -q "^p2pscope-capture-host: unknown argument '--frobnicate'" "$tmp/err" ||
		{ echo "FAIL: $c --frobnicate: exit $rc, $(cat "$tmp/err")"; fail=1; }
done
if [ -x "$P2PS_TOOLS_DIR/p2p-bench" ]; then
	v=$("$P2PS_TOOLS_DIR/p2p-bench" --version)
	[ "$v" = "p2p-bench $version" ] || { echo "FAIL: p2p-bench --version says '$v'"; fail=1; }
else
	p2ps_missing "p2p-bench --version" "p2p-bench is not built: no CUDA compiler"
fi
p2ps_test_exit "$fail"
