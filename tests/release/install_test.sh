#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `cmake --install` puts the man pages, the bash completion and the JSON Schemas where
# distributions look for them (a scratch prefix here): man1/man3/man8 under
# CMAKE_INSTALL_MANDIR, share/bash-completion/completions/<tool>, share/p2pscope/schemas,
# share/p2pscope/contrib;
# the installed man pages name the version and the schema folder; every tool's --version
# is the project's version, then the build (commit, architecture, build type, linkage);
# p2pscope-capture-host's is the version, and it has a usage text.
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
	share/p2pscope/contrib/ansible/p2ps-fleet.yml share/p2pscope/contrib/prometheus/p2pscope-alerts.yml
	share/p2pscope/contrib/slurm/p2ps-fleet.sbatch
	share/p2pscope/contrib/kubernetes/p2pscope-daemonset.yaml
)
for f in "${want[@]}"; do
	if [ -s "$tmp/usr/$f" ]; then
		echo "ok: $f"
	else
		echo "FAIL: cmake --install did not install $f"
		fail=1
	fi
done
# contrib/ as it is, its scripts executable.
for f in prometheus/p2pscope-textfile.sh kubernetes/p2pscope-node.sh slurm/p2ps-fleet-srun.sh; do
	[ -x "$tmp/usr/share/p2pscope/contrib/$f" ] || { echo "FAIL: contrib/$f is not installed executable"; fail=1; }
done
page=$tmp/usr/${mandir:-share/man}/man8/bar-inspect.8
grep -q "p2pscope $version" "$page" || { echo "FAIL: bar-inspect.8 does not name $version"; fail=1; }
# (the configured prefix's: --prefix at install time does not change the text)
grep -q "share/p2pscope/schemas/bar" "$page" ||
	{ echo "FAIL: bar-inspect.8 does not name the schema folder"; fail=1; }
# --version: the release, then the build: a commit of this checkout's history (the build
# reads HEAD when it runs; a build older than the last commit names an earlier one), or
# "unknown" outside git; the architecture, the build type and the linkage this build was
# configured with.
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$P2PS_BINARY_DIR/CMakeCache.txt")
linkage='dynamic'
grep -q '^P2PS_STATIC:BOOL=ON$' "$P2PS_BINARY_DIR/CMakeCache.txt" && linkage='static \(.*; glibc shared\)'
in_git=0
[ "$(git -C "$P2PS_SOURCE_DIR" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$P2PS_SOURCE_DIR" && pwd -P)" ] && in_git=1
check_version() { # TOOL BINARY
	local v first build commit
	v=$("$2" --version) || { echo "FAIL: $1 --version exited with an error"; fail=1; return; }
	first=$(head -n1 <<<"$v")
	build=$(sed -n 2p <<<"$v")
	[ "$first" = "$1 $version" ] || { echo "FAIL: $1 --version says '$first', want '$1 $version'"; fail=1; }
	if [[ ! $build =~ ^"build: commit "([0-9a-f]{12}|unknown)(-dirty)?", $(uname -m), ${build_type:-none}, "$linkage$ ]]; then
		echo "FAIL: $1 --version's build line is '$build' (want commit, $(uname -m), ${build_type:-none}, $linkage)"
		fail=1
		return
	fi
	commit=${BASH_REMATCH[1]}
	if [ $in_git = 1 ] && ! git -C "$P2PS_SOURCE_DIR" merge-base --is-ancestor "$commit" HEAD 2>/dev/null; then
		echo "FAIL: $1 --version names commit $commit, not in this checkout's history"
		fail=1
	elif [ $in_git = 0 ] && [ "$commit" != unknown ]; then
		echo "FAIL: $1 --version names commit $commit outside a git checkout"
		fail=1
	else
		echo "ok: $1 --version: $build"
	fi
	[ "$(wc -l <<<"$v")" -eq 2 ] || { echo "FAIL: $1 --version printed more than two lines"; fail=1; }
}
for t in bar-inspect pte-decode pte-probe; do
	check_version "$t" "$tmp/usr/bin/$t"
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
	check_version p2p-bench "$P2PS_TOOLS_DIR/p2p-bench"
else
	p2ps_missing "p2p-bench --version" "p2p-bench is not built: no CUDA compiler"
fi
p2ps_test_exit "$fail"
