#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The OCI image of bar-inspect, as an oci-archive file (podman load, skopeo copy), made
# with umoci from an empty image: no Dockerfile, no daemon, no base image to pull.
# scripts/release.sh --image calls it with its static binary; docs/kubernetes.md uses it.
#
#   scripts/oci-image.sh --arch x86_64|aarch64 --bar-inspect FILE --out FILE.tar
#                        [--licenses DIR] [--version V] [--epoch SECONDS] [--work DIR]
#
# What the image holds (nothing else):
#   /usr/bin/bar-inspect          FILE: the binary of P2PS_STATIC (libpci, json-c, zlib
#                                 linked in), the entrypoint
#   /usr/bin/p2pscope-node        contrib/kubernetes/p2pscope-node.sh, the DaemonSet's loop
#   /usr/lib/p2pscope/p2pscope-textfile.sh   contrib/prometheus/, which it calls
#   /lib/<triplet>/ (and the loader's path): the dynamic loader, libc.so.6 and the stub
#                                 libraries libm, libdl, libpthread, librt from Debian's
#                                 libc6 package: the binary's only shared library, and what
#                                 NVML (libnvidia-ml.so.1, given to the container by the
#                                 NVIDIA Container Toolkit) needs to be opened with dlopen
#   /bin/busybox and sh, mv, rm, mktemp, chmod, sleep, cat, ls: Debian's busybox-static,
#                                 for the loop script
#   /usr/share/doc/...            the licences: p2pscope's, the libraries' (--licenses),
#                                 libc6's and busybox's copyright files
# The packages are fetched with apt-get download for the image's architecture (the
# :arm64 ones need `dpkg --add-architecture arm64`). File times are the epoch's; the
# config's creation time too, so the same inputs give the same image.
# Exit status: 0 done, 1 failure, 2 bad usage or a missing tool.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
arch="" bi="" out="" licenses="" version="" epoch=${SOURCE_DATE_EPOCH:-0} work=""

die() {
	echo "oci-image.sh: $*" >&2
	exit 2
}
fail() {
	echo "oci-image.sh: FAIL: $*" >&2
	exit 1
}
while [ $# -gt 0 ]; do
	[ $# -ge 2 ] || [ "$1" = -h ] || [ "$1" = --help ] || die "$1 needs a value"
	case $1 in
	--arch) arch=$2 ;;
	--bar-inspect) bi=$2 ;;
	--out) out=$2 ;;
	--licenses) licenses=$2 ;;
	--version) version=$2 ;;
	--epoch) epoch=$2 ;;
	--work) work=$2 ;;
	-h | --help) sed -n '3,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (try --help)" ;;
	esac
	shift 2
done
case $arch in
x86_64) dpkg_arch=amd64 oci_arch=amd64 ;;
aarch64) dpkg_arch=arm64 oci_arch=arm64 ;;
*) die "--arch x86_64 or aarch64" ;;
esac
[ -x "$bi" ] || die "--bar-inspect: no executable '$bi'"
[ -n "$out" ] || die "--out FILE.tar is missing"
[ -n "$version" ] || version=$(sed -n 's/^project(p2pscope VERSION \([0-9.]*\).*/\1/p' "$top/CMakeLists.txt")
for cmd in umoci apt-get dpkg-deb; do
	command -v "$cmd" >/dev/null || die "$cmd is missing (scripts/deps.d/release.txt)"
done
work=${work:-$(mktemp -d)}
rm -rf "$work/layout" "$work/bundle" "$work/debs-root"
mkdir -p "$work/debs" "$work/debs-root"
triplet=$arch-linux-gnu

# Debian's libc6 and busybox-static of the image's architecture, unpacked.
(cd "$work/debs" && for p in libc6 busybox-static; do
	ls "${p}_"*"_$dpkg_arch.deb" >/dev/null 2>&1 ||
		apt-get download -qq -o APT::Sandbox::User=root "$p:$dpkg_arch" >/dev/null ||
		fail "apt-get download $p:$dpkg_arch"
done)
for deb in "$work/debs"/*_"$dpkg_arch".deb; do
	dpkg-deb -x "$deb" "$work/debs-root" || fail "dpkg-deb -x $deb"
done
deb=$work/debs-root

# An empty image, unpacked into a bundle whose rootfs/ is filled here.
image=$work/layout:p2pscope
rootless=()
[ "$(id -u)" -eq 0 ] || rootless=(--rootless)
umoci init --layout "$work/layout"
umoci new --image "$image"
umoci unpack "${rootless[@]}" --image "$image" "$work/bundle" >/dev/null
r=$work/bundle/rootfs
mkdir -p "$r/usr/bin" "$r/bin" "$r/lib/$triplet" "$r/usr/lib/p2pscope" \
	"$r/usr/share/doc/p2pscope" "$r/usr/share/doc/libc6" "$r/usr/share/doc/busybox-static" \
	"$r/etc/kubernetes/node-feature-discovery/features.d" "$r/var/lib/prometheus/node-exporter" "$r/tmp"
chmod 1777 "$r/tmp"
install -m 0755 "$bi" "$r/usr/bin/bar-inspect"
install -m 0755 "$top/contrib/kubernetes/p2pscope-node.sh" "$r/usr/bin/p2pscope-node"
install -m 0755 "$top/contrib/prometheus/p2pscope-textfile.sh" "$r/usr/lib/p2pscope/"
# The C library: the loader at the path the binary names (PT_INTERP), the libraries in
# the multiarch folder the loader searches.
interp=$(readelf -l "$bi" | sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p')
[ -n "$interp" ] || fail "$bi names no program interpreter"
for lib in "$(basename "$interp")" libc.so.6 libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1; do
	src=$(find "$deb" -path "*/$triplet/$lib" | head -n1)
	[ -n "$src" ] || fail "libc6:$dpkg_arch has no $triplet/$lib"
	cp -L "$src" "$r/lib/$triplet/$lib"
done
if [ "$interp" != "/lib/$triplet/$(basename "$interp")" ]; then
	mkdir -p "$r$(dirname "$interp")"
	ln -s "/lib/$triplet/$(basename "$interp")" "$r$interp"
fi
cp "$deb/usr/share/doc/libc6/copyright" "$r/usr/share/doc/libc6/"
cp "$deb/usr/share/doc/busybox-static/copyright" "$r/usr/share/doc/busybox-static/"
install -m 0755 "$deb/bin/busybox" "$r/bin/busybox"
for applet in sh mv rm mktemp chmod sleep cat ls; do
	ln -s busybox "$r/bin/$applet"
done
cp "$top/LICENSE" "$r/usr/share/doc/p2pscope/"
[ -z "$licenses" ] || cp -r "$licenses" "$r/usr/share/doc/p2pscope/LICENSES"
find "$r" -exec touch -h -d "@$epoch" {} +

created=$(date -u -d "@$epoch" +%Y-%m-%dT%H:%M:%SZ)
umoci repack --image "$image" --history.created "$created" \
	--history.created_by "scripts/oci-image.sh" "$work/bundle" >/dev/null
config=(--architecture "$oci_arch" --os linux --created "$created"
	--history.created "$created" --history.created_by "scripts/oci-image.sh"
	--config.entrypoint /usr/bin/bar-inspect --config.env PATH=/usr/bin:/bin
	--config.workingdir /
	--config.label "org.opencontainers.image.title=p2pscope"
	--config.label "org.opencontainers.image.version=$version"
	--config.label "org.opencontainers.image.description=bar-inspect: GPU peer-to-peer readiness of a node"
	--config.label "org.opencontainers.image.licenses=MIT AND GPL-2.0-or-later AND LGPL-2.1-or-later")
umoci config --image "$image" "${config[@]}" >/dev/null
umoci gc --layout "$work/layout"
# The layout as one archive (an oci-archive: the layout's files in a tar).
mkdir -p "$(dirname "$out")"
tar -C "$work/layout" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" \
	--format=gnu -cf "$out" . || fail "writing $out"
echo "oci-image.sh: $out ($oci_arch, $(du -k "$out" | cut -f1) KiB)"
