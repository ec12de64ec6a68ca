#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Derives the offsets and sizes of every row of src/rm/fields.c from the driver headers of
# each supported tag, by compiling offsetof()/sizeof() against them, and writes one facts
# file per tag (tests/rm/fixtures/ctrl-offsets/TAG.txt) that test_rm_fields compares with
# the table. Needs a git mirror of NVIDIA/open-gpu-kernel-modules and a C compiler; the
# test itself needs neither.
#
#   scripts/rm-derive-offsets.sh MIRROR [OUTDIR]
#
# Each output line is "TYPE MEMBER OFFSET SIZE" for the rows whose series range holds the
# tag's series (MEMBER "sizeof": OFFSET 0 and the struct's size; "count(m)": OFFSET 0 and
# array m's length).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mirror=${1:?usage: $0 MIRROR [OUTDIR]}
out=${2:-$top/tests/rm/fixtures/ctrl-offsets}
tags="550.40.07 550.163.01 570.86.15 570.211.01 575.51.02 575.64.05 580.65.06 580.142 590.48.01 595.45.04"
work=$(mktemp -d /tmp/rm-derive.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
# The rows of the table: TYPE MEMBER FIRST LAST.
sed -n 's/^\t{P2PS_RMF_[A-Z0-9_]*, "\([^"]*\)", "\([^"]*\)", \(ALL\|[0-9]*, [0-9]*\),.*/\1 \2 \3/p' \
	"$top/src/rm/fields.c" | sed 's/ ALL$/ 550 595/; s/, / /' >"$work/rows"
for tag in $tags; do
	major=${tag%%.*}
	inc=$work/$tag/src/common/sdk/nvidia/inc
	mkdir -p "$work/$tag"
	git -C "$mirror" archive "$tag" src/common/sdk/nvidia/inc | tar -x -C "$work/$tag"
	{
		echo '#include <stddef.h>'
		echo '#include <stdio.h>'
		echo '#include "nvtypes.h"'
		for h in ctrl/ctrl0000/ctrl0000system.h ctrl/ctrl0000/ctrl0000gpu.h \
			ctrl/ctrl2080/ctrl2080fb.h ctrl/ctrl2080/ctrl2080bus.h ctrl/ctrl2080/ctrl2080nvlink.h \
			ctrl/ctrl2080/ctrl2080mc.h ctrl/ctrl0080/ctrl0080dma.h ctrl/ctrl0041.h class/cl503b.h; do
			echo "#include \"$h\""
		done
		echo 'int main(void) {'
		while read -r type member first last; do
			[ "$first" -le "$major" ] && [ "$major" -le "$last" ] || continue
			case $member in
			sizeof) echo "printf(\"$type sizeof 0 %zu\\n\", sizeof($type));" ;;
			count\(*\))
				m=${member#count(}; m=${m%)}
				echo "printf(\"$type $member 0 %zu\\n\", sizeof((($type *)0)->$m) / sizeof((($type *)0)->$m[0]));" ;;
			*) echo "printf(\"$type $member %zu %zu\\n\", offsetof($type, $member), sizeof((($type *)0)->$member));" ;;
			esac
		done <"$work/rows"
		echo 'return 0; }'
	} >"$work/$tag.c"
	cc -I"$inc" -o "$work/$tag.bin" "$work/$tag.c"
	{
		echo "# Derived by scripts/rm-derive-offsets.sh from NVIDIA/open-gpu-kernel-modules tag $tag,"
		echo "# src/common/sdk/nvidia/inc (ctrl0000system.h, ctrl0000gpu.h, ctrl2080fb.h, ctrl2080bus.h,"
		echo "# ctrl2080nvlink.h, ctrl2080mc.h, ctrl0080dma.h, ctrl0041.h, cl503b.h): offsetof/sizeof."
		echo "# TYPE MEMBER OFFSET SIZE"
		"$work/$tag.bin"
	} >"$out/$tag.txt"
	echo "$tag: $(grep -vc '^#' "$out/$tag.txt") facts"
done
