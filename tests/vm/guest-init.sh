#!/bin/busybox sh
# SPDX-License-Identifier: MIT
# /init of the integration-test guest (tests/vm/run-guest.sh builds the
# initramfs around it). It loads VFIO, binds the test endpoints to vfio-pci,
# runs bar-inspect through sysfs and through VFIO and powers off.
#
# Results go to the second serial port (/dev/ttyS1, data.log on the host) as
# blocks, so that kernel messages on the console can never split them:
#     @@P2PS-BEGIN <name>
#     ...output...
#     @@P2PS-END <name> rc=<exit status>
# The console (ttyS0) only gets progress lines for the person reading the log.
/bin/busybox --install -s /bin
mount -t devtmpfs devtmpfs /dev
exec 0</dev/console 1>/dev/console 2>&1
mount -t proc proc /proc
mount -t sysfs sysfs /sys
export PATH=/bin
hostname p2ps-vm
. /etc/p2ps-vm.conf
echo "=== p2ps guest '$P2PS_BOOT' up after $(cut -d' ' -f1 /proc/uptime) s: Linux $(uname -r)"

data=/dev/ttyS1
# raw: no "\n" -> "\r\n" translation, no echo of what the host never sends.
stty -F "$data" raw -echo 115200 || echo "=== stty on $data failed"

block() { # name command [args...]
	name=$1
	shift
	"$@" >/tmp/block.out 2>/tmp/block.err
	rc=$?
	{
		echo "@@P2PS-BEGIN $name"
		cat /tmp/block.out
		echo "@@P2PS-END $name rc=$rc"
		if [ -s /tmp/block.err ]; then
			echo "@@P2PS-BEGIN $name.stderr"
			cat /tmp/block.err
			echo "@@P2PS-END $name.stderr rc=0"
		fi
	} >"$data"
	echo "=== $name: exit $rc, $(wc -c </tmp/block.out) bytes, guest uptime $(cut -d" " -f1 /proc/uptime) s"
}

for m in $(cat /etc/modules); do
	params=
	[ "$m" = vfio.ko ] && [ "$P2PS_MODE" = noiommu ] && params=enable_unsafe_noiommu_mode=1
	insmod "/lib/modules/$m" $params || echo "=== insmod $m failed"
done

# Every endpoint below a root port (bus != 00) goes to vfio-pci; ports and
# bridges (class 0x06xxxx) stay with pcieport. A group is viable only when
# every endpoint in it is bound to vfio-pci (or has no driver).
bind_all() {
	for d in /sys/bus/pci/devices/*; do
		bdf=${d##*/}
		case $bdf in 0000:00:*) continue ;; esac
		case $(cat "$d/class") in 0x06*) continue ;; esac
		echo vfio-pci >"$d/driver_override"
		[ -e "$d/driver" ] && echo "$bdf" >"$d/driver/unbind"
		echo "$bdf" >/sys/bus/pci/drivers_probe
		drv=none
		[ -e "$d/driver" ] && drv=$(basename "$(readlink "$d/driver")")
		echo "bound $bdf $(cat "$d/vendor"):$(cat "$d/device") $drv"
	done
}
block bind bind_all

devices() {
	for d in /sys/bus/pci/devices/*; do
		grp=-
		[ -e "$d/iommu_group" ] && grp=$(basename "$(readlink "$d/iommu_group")")
		drv=-
		[ -e "$d/driver" ] && drv=$(basename "$(readlink "$d/driver")")
		echo "${d##*/} $(cat "$d/class") $(cat "$d/vendor"):$(cat "$d/device") group=$grp driver=$drv"
	done
	ls -l /dev/vfio /dev/vfio/devices /dev/iommu 2>&1 || true
	for p in /sys/module/vfio/parameters/*; do
		[ -f "$p" ] && echo "${p#/sys/module/}=$(cat "$p")"
	done
	true
}
block devices devices
block dmesg sh -c "dmesg | grep -iE 'DMAR|iommu|vfio|ACS|BAR [0-9]+.*(assigned|fail|no space)'"

# The guest's sysfs, as a tar (base64) that the host unpacks into snapshot/.
snapshot() {
	# The project's own capture script: the format `bar-inspect --root` reads.
	sh /bin/capture-host.sh -o /tmp/snap.tar.gz >&2 || return 1
	base64 /tmp/snap.tar.gz
}
block snapshot snapshot

# bar-inspect: the same host model through sysfs+libpci and through VFIO.
# Peer pairs: 03:00.0's 4 GiB BAR2 (64-bit prefetchable) mapped into the IOMMU
# context of its neighbour under the switch (PIX) and of the ivshmem endpoint
# on the other root port (PHB): the smallest of the large BARs, because type1
# walks the BAR page by page under TCG. NVMe's VS register (BAR0 + 0x8) is
# read once.
IVS1=0000:03:00.0 IVS2=0000:04:00.0 NVME=0000:05:00.0 IVS3=0000:06:00.0
if [ -x /bin/bar-inspect ]; then
	block bi-version bar-inspect --version
	# --peers: QEMU has no NVIDIA device, so the three ivshmem endpoints stand
	# in for GPUs in the topology matrix and the pair verdicts.
	peers=$IVS1,$IVS2,$IVS3
	block bi-sysfs bar-inspect --all --json --peers "$peers"
	block bi-sysfs-text bar-inspect --all --peers "$peers"
	case $P2PS_MODE in
	cdev) flows="legacy cdev" ;;
	*) flows="legacy" ;;
	esac
	for flow in $flows; do
		sfx=
		[ "$flow" = legacy ] || sfx=-$flow
		block "bi-vfio$sfx" bar-inspect --all --json --peers "$peers" --vfio all --vfio-flow "$flow"
		block "bi-vfio-text$sfx" bar-inspect --all --peers "$peers" --vfio all --vfio-flow "$flow"
		block "bi-map-peer-pix$sfx" bar-inspect --json --vfio-flow "$flow" --map-peer "$IVS2,$IVS1,2"
		block "bi-map-peer-phb$sfx" bar-inspect --json --vfio-flow "$flow" --map-peer "$IVS3,$IVS1,2"
		block "bi-map-peer-text$sfx" bar-inspect --vfio-flow "$flow" --map-peer "$IVS2,$IVS1,2"
		block "bi-read-reg$sfx" bar-inspect --json --vfio "$NVME" --vfio-flow "$flow" --read-reg 0:0x8
	done
fi

echo "@@P2PS-DONE uptime=$(cut -d' ' -f1 /proc/uptime)" >"$data"
echo "=== p2ps guest done after $(cut -d' ' -f1 /proc/uptime) s"
sync
poweroff -f
