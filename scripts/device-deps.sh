# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by the device scripts (scripts/pte-probe-device.sh, bench/p2p-bench-device.sh).
#
# p2ps_unpack_debs DIR PKG...: when pkg-config does not know every PKG (the GPU machines
# have no json-c, libpci or cmocka), unpacks DIR/*.deb under /tmp/p2ps-sysroot — never into
# / — and points PATH, LD_LIBRARY_PATH and PKG_CONFIG_PATH at it.
p2ps_unpack_debs() {
	local dir=$1 sr=/tmp/p2ps-sysroot lib f pc
	shift
	{ pkg-config --exists "$@"; } 2>/dev/null && return 0
	mkdir -p $sr
	for f in "$dir"/*.deb; do dpkg -x "$f" $sr; done
	lib=$sr/usr/lib/x86_64-linux-gnu
	for pc in "$lib"/pkgconfig/*.pc "$sr"/usr/share/pkgconfig/*.pc; do
		[ -e "$pc" ] && sed -i "s#=/usr#=$sr/usr#" "$pc"
	done
	export PATH=$sr/usr/bin:$PATH LD_LIBRARY_PATH=$lib:${LD_LIBRARY_PATH:-}
	export PKG_CONFIG_PATH=$lib/pkgconfig:$sr/usr/share/pkgconfig
	command -v pkg-config >/dev/null || ln -sf pkgconf $sr/usr/bin/pkg-config
	echo "using unpacked packages in $sr"
}
