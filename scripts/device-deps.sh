# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by the device scripts (scripts/pte-probe-device.sh, bench/p2p-bench-device.sh,
# scripts/device/*.sh).
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

# p2ps_lspci_from_debs DIR: lspci (the yardstick of the benches) from DIR/*.deb under
# /tmp/p2ps-sysroot when the machine has none, and in P2PS_PCI_IDS the first pci.ids found
# (the system's, else the unpacked one; "" when there is none).
p2ps_lspci_from_debs() {
	local dir=$1 sr=/tmp/p2ps-sysroot f
	if ! lspci --version >/dev/null 2>&1 && [ -d "$dir" ]; then
		mkdir -p $sr
		for f in "$dir"/*.deb; do dpkg -x "$f" $sr; done
		export PATH=$sr/usr/bin:$PATH
		export LD_LIBRARY_PATH=$sr/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
	fi
	P2PS_PCI_IDS=
	for f in /usr/share/misc/pci.ids /usr/share/hwdata/pci.ids $sr/usr/share/misc/pci.ids; do
		[ -r "$f" ] && { P2PS_PCI_IDS=$f; break; }
	done
	lspci --version
	echo "pci.ids: ${P2PS_PCI_IDS:-none}"
}

# p2ps_device_results NAME: where a device script puts what it makes. $res (/tmp/p2ps-NAME,
# emptied) collects the results; everything printed goes to $out/NAME.log too ($out: OUT,
# default /tmp/p2ps-out); at exit $res is packed into $out/NAME-results.tar.gz. step TITLE
# prints a section heading with the time.
p2ps_device_results() {
	out=${OUT:-/tmp/p2ps-out}
	res=/tmp/p2ps-$1
	rm -rf "$res"
	mkdir -p "$out" "$res"
	exec > >(tee -a "$out/$1.log") 2>&1
	p2ps_results_name=$1
	trap p2ps_device_pack EXIT
}
declare -F step >/dev/null || step() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }
p2ps_device_pack() {
	step "results"
	ls -la "$res"
	tar -czf "$out/$p2ps_results_name-results.tar.gz" -C "$res" .
	ls -la "$out"
}
