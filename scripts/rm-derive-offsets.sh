#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Derives, from the driver headers of NVIDIA/open-gpu-kernel-modules tags, the offsets and
# sizes of every RM struct member p2pscope uses, by compiling offsetof()/sizeof() against
# each tag's headers, and writes one facts file per tag (tests/rm/fixtures/ctrl-offsets/TAG.txt).
# The tests compare them with the tables: test_rm_fields with the control fields of
# src/rm/fields.c (by the RM era of the tag's row), test_nvidia_drivers with each row's RM
# layout (src/gmmu/nvidia_drivers.c) and the fixed struct sizes of src/rm/rm_internal.h.
# Needs a git mirror of NVIDIA/open-gpu-kernel-modules and a C compiler; the tests need
# neither.
#
#   scripts/rm-derive-offsets.sh MIRROR [OUTDIR [TAG...]]
#
# Without TAGs: every tag the driver table's rows name (their `.tags`). Each output line is
# "TYPE MEMBER OFFSET SIZE" (MEMBER "sizeof": OFFSET 0 and the struct's size; "count(m)":
# OFFSET 0 and array m's length). A member the tag's headers lack is left out (a struct
# that gained a member in a later series), so each file says what its tag has.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
mirror=${1:?usage: $0 MIRROR [OUTDIR [TAG...]]}
out=${2:-$top/tests/rm/fixtures/ctrl-offsets}
shift $(($# > 1 ? 2 : 1))
tags=("$@")
if [ ${#tags[@]} -eq 0 ]; then
	mapfile -t tags < <(sed -n 's/.*\.tags = {\([^}]*\)}.*/\1/p' "$top/src/gmmu/nvidia_drivers.c" |
		grep -o '"[0-9.]*"' | tr -d '"' | sort -uV)
fi
[ ${#tags[@]} -gt 0 ] || { echo "rm-derive-offsets: no tags" >&2; exit 2; }
work=$(mktemp -d /tmp/rm-derive.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

# The facts: every TYPE MEMBER of fields.c's rows, then the structs whose layout a driver row
# holds (NVOS46, the VA space and NV50_P2P allocation) or src/rm/rm_internal.h fixes.
{
	sed -n 's/^\t{P2PS_RMF_[A-Z0-9_]*, "\([^"]*\)", "\([^"]*\)",.*/\1 \2/p' "$top/src/rm/fields.c"
	cat <<'EOF'
NVOS46_PARAMETERS sizeof
NVOS46_PARAMETERS dmaOffset
NVOS46_PARAMETERS status
NV_VASPACE_ALLOCATION_PARAMETERS sizeof
NV503B_ALLOC_PARAMETERS sizeof
NVOS00_PARAMETERS sizeof
NVOS21_PARAMETERS sizeof
NVOS54_PARAMETERS sizeof
NVOS47_PARAMETERS sizeof
NVOS34_PARAMETERS sizeof
nv_ioctl_nvos33_parameters_with_fd sizeof
nv_ioctl_card_info_t sizeof
NV0080_ALLOC_PARAMETERS sizeof
NV2080_ALLOC_PARAMETERS sizeof
NV_MEMORY_VIRTUAL_ALLOCATION_PARAMS sizeof
NV_MEMORY_ALLOCATION_PARAMS sizeof
NV_PHYSICAL_MEMORY_ALLOCATION_PARAMS sizeof
EOF
} | awk '!seen[$0]++' >"$work/facts"

headers="ctrl/ctrl0000/ctrl0000system.h ctrl/ctrl0000/ctrl0000gpu.h ctrl/ctrl2080/ctrl2080fb.h
ctrl/ctrl2080/ctrl2080bus.h ctrl/ctrl2080/ctrl2080nvlink.h ctrl/ctrl2080/ctrl2080mc.h
ctrl/ctrl0080/ctrl0080dma.h ctrl/ctrl0041.h class/cl503b.h class/cl0080.h class/cl2080.h
class/cl0070.h class/cl00c2.h nvos.h nv-ioctl.h nv-unix-nvos-params-wrappers.h"

# printf_line TYPE MEMBER: the statement that prints one fact.
printf_line() {
	local type=$1 member=$2 m
	case $member in
	sizeof) echo "printf(\"$type sizeof 0 %zu\\n\", sizeof($type));" ;;
	count\(*\))
		m=${member#count(}
		m=${m%)}
		echo "printf(\"$type $member 0 %zu\\n\", sizeof((($type *)0)->$m) / sizeof((($type *)0)->$m[0]));"
		;;
	*) echo "printf(\"$type $member %zu %zu\\n\", offsetof($type, $member), sizeof((($type *)0)->$member));" ;;
	esac
}

# program FILE LINES...: a C program printing the given statements.
program() {
	local f=$1 h
	shift
	{
		echo '#include <stddef.h>'
		echo '#include <stdio.h>'
		echo '#include "nvtypes.h"'
		for h in $headers; do
			echo "#include \"$h\""
		done
		echo 'int main(void) {'
		printf '%s\n' "$@"
		echo 'return 0; }'
	} >"$f"
}

for tag in "${tags[@]}"; do
	t=$work/$tag
	mkdir -p "$t"
	git -C "$mirror" archive "$tag" src/common/sdk/nvidia/inc src/nvidia/arch/nvalloc/unix/include \
		kernel-open/common/inc | tar -x -C "$t"
	inc=(-I"$t/src/common/sdk/nvidia/inc" -I"$t/src/nvidia/arch/nvalloc/unix/include"
		-I"$t/kernel-open/common/inc")
	# One program for every fact; where it does not compile (a member this tag lacks), a
	# program per fact decides which ones the tag has.
	mapfile -t lines < <(while read -r ty mb; do printf_line "$ty" "$mb"; done <"$work/facts")
	program "$t/all.c" "${lines[@]}"
	keep=()
	if cc "${inc[@]}" -o "$t/all" "$t/all.c" 2>/dev/null; then
		keep=("${lines[@]}")
	else
		for l in "${lines[@]}"; do
			program "$t/one.c" "$l"
			cc -fsyntax-only "${inc[@]}" "$t/one.c" 2>/dev/null && keep+=("$l")
		done
		program "$t/all.c" "${keep[@]}"
		cc "${inc[@]}" -o "$t/all" "$t/all.c"
	fi
	{
		echo "# Derived by scripts/rm-derive-offsets.sh from NVIDIA/open-gpu-kernel-modules tag $tag:"
		echo "# offsetof/sizeof against src/common/sdk/nvidia/inc (ctrl0000system.h, ctrl0000gpu.h,"
		echo "# ctrl2080fb.h, ctrl2080bus.h, ctrl2080nvlink.h, ctrl2080mc.h, ctrl0080dma.h, ctrl0041.h,"
		echo "# cl503b.h, cl0080.h, cl2080.h, cl0070.h, cl00c2.h, nvos.h) and the ioctl wrappers"
		echo "# (nv-ioctl.h, nv-unix-nvos-params-wrappers.h)."
		echo "# TYPE MEMBER OFFSET SIZE"
		"$t/all"
	} >"$out/$tag.txt"
	echo "$tag: $(grep -vc '^#' "$out/$tag.txt") facts, $((${#lines[@]} - ${#keep[@]})) not in its headers"
	rm -rf "$t"
done
