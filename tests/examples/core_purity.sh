#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# libgmmu (the core a driver patch's test links) allocates nothing, does no file or terminal
# I/O and needs no json-c: none of those symbols is among what it imports. libgmmu-dump is
# the library that does (it must import json-c, or the split is not where the docs say).
# $1: libgmmu.so, $2: libgmmu-dump.so.
set -u
core=$1 dump=$2
fails=0
imports() { nm -D --undefined-only "$1" | awk '{print $NF}' | sed 's/@.*//'; }
bad=$(imports "$core" | grep -E '^(malloc|calloc|realloc|free|mmap|munmap|open|open64|fopen|fopen64|read|write|fwrite|fprintf|printf|puts|exit|abort|json_.*)$')
if [ -n "$bad" ]; then
	echo "FAIL: libgmmu imports: $(echo "$bad" | tr '\n' ' ')"
	fails=1
fi
imports "$dump" | grep -q '^json_tokener_parse_ex$' || {
	echo "FAIL: libgmmu-dump does not import json-c (the SPEC parser)"
	fails=1
}
ldd "$core" | grep -q json-c && {
	echo "FAIL: libgmmu links json-c"
	fails=1
}
echo "libgmmu imports: $(imports "$core" | sort -u | tr '\n' ' ')"
[ "$fails" -eq 0 ] && echo "gmmu_core_purity: ok"
[ "$fails" -eq 0 ]
