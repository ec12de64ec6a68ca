#!/bin/sh
# Copies the PCI and IOMMU parts of a live sysfs into DEST, laid out as the
# real tree (DEST/sys/..., DEST/proc/cmdline) with the same symlinks, so a
# tool pointed at DEST as its root sees what it would see on the machine.
#
#   guest-capture.sh DEST
#
# Runs under busybox sh in the test guest. Read-only: it only reads sysfs
# attribute files. Files that mmap a BAR (resourceN, resourceN_wc, rom) are
# kept as empty placeholders: their presence says which BARs the kernel
# exposes, their sizes are in `resource`.
set -u
dest=${1:?usage: guest-capture.sh DEST}
mkdir -p "$dest/sys/bus/pci/devices" "$dest/sys/bus/pci/drivers" "$dest/sys/kernel/iommu_groups" \
	"$dest/sys/class/iommu" "$dest/proc"
cat /proc/cmdline >"$dest/proc/cmdline"

copy_link() { # path-under-sys
	ln -s "$(readlink "/$1")" "$dest/$1"
}

# The attribute files of one sysfs directory, in one `cp` (a fork per file is
# slow under TCG). cp skips the subdirectories and the symlinks to them; files
# it cannot read (write-only remove/rescan, BAR mappings) are dropped. Files
# that map a BAR are then recreated as empty placeholders.
copy_attrs() { # sysfs-dir dest-dir
	cp "$1"/* "$2"/ 2>/dev/null
	for f in "$1"/resource[0-9] "$1"/resource[0-9]_wc "$1"/rom; do
		[ -e "$f" ] && : >"$2/${f##*/}"
	done
	# A failed read can leave an empty file behind; real attributes are never empty.
	find "$2" -maxdepth 1 -type f -size 0 ! -name 'resource[0-9]*' ! -name rom -exec rm -f {} +
}

for link in /sys/bus/pci/devices/*; do
	bdf=${link##*/}
	copy_link "sys/bus/pci/devices/$bdf"
	real=$(realpath "$link")
	mkdir -p "$dest$real"
	copy_attrs "$real" "$dest$real"
	for l in driver iommu_group subsystem; do
		[ -L "$real/$l" ] && ln -s "$(readlink "$real/$l")" "$dest$real/$l"
	done
	# vfio-dev/vfioN: the device's VFIO cdev (kernels with CONFIG_VFIO_DEVICE_CDEV).
	for c in "$real"/vfio-dev/vfio*; do
		[ -d "$c" ] || continue
		mkdir -p "$dest$c"
		cat "$c/dev" >"$dest$c/dev"
	done
	if [ -L "$real/driver" ]; then
		mkdir -p "$dest/sys/bus/pci/drivers/$(basename "$(readlink "$real/driver")")"
	fi
done

for g in /sys/kernel/iommu_groups/*; do
	[ -d "$g" ] || continue
	mkdir -p "$dest$g/devices"
	[ -f "$g/type" ] && cat "$g/type" >"$dest$g/type"
	[ -f "$g/reserved_regions" ] && cat "$g/reserved_regions" >"$dest$g/reserved_regions"
	for d in "$g"/devices/*; do
		[ -L "$d" ] && ln -s "$(readlink "$d")" "$dest$d"
	done
done

for u in /sys/class/iommu/*; do
	[ -L "$u" ] || continue
	copy_link "${u#/}"
	real=$(realpath "$u")
	for sub in "$real" "$real"/*; do
		[ -d "$sub" ] && [ ! -L "$sub" ] || continue
		case ${sub##*/} in power | devices) continue ;; esac
		mkdir -p "$dest$sub"
		copy_attrs "$sub" "$dest$sub"
	done
done

for p in /sys/module/vfio*/parameters; do
	[ -d "$p" ] || continue
	mkdir -p "$dest$p"
	copy_attrs "$p" "$dest$p"
done
exit 0
