#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Ansible path through the real engine: ansible-playbook (Debian's ansible-core) runs
# contrib/ansible/p2ps-fleet.yml against an inventory of hosts on this machine
# (ansible_connection=local), each pointed at its own snapshot with planted differences
# through host variables; one host goes through capture mode (capture-host.sh on the
# "target", the tarball analysed on the control node) and one fails. The summary must
# name the right hosts and causes, the snapshots must be unchanged (read-only), and no
# temporary folder may be left on the "targets".
set -uo pipefail
. "$(dirname "$0")/fleet-lib.sh"
command -v ansible-playbook >/dev/null || unavailable "ansible-playbook (ansible-core) is not installed"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
snaps=$tmp/snaps
plant "$snaps" gpu-a1=h200pcie gpu-a2=h200pcie gpu-a3=h200pcie,link=8 \
	gpu-iommu=h200pcie,iommu gpu-bar1=h200pcie,bar1=32 sw-acs=qemu,acs gpu-h100=h100 || exit 1
before=$(tree_sum "$snaps")

cat >"$tmp/inventory.ini" <<INV
[gpu]
gpu-a1 p2ps_root=$snaps/gpu-a1
gpu-a2 p2ps_root=$snaps/gpu-a2
gpu-a3 p2ps_root=$snaps/gpu-a3
gpu-iommu p2ps_root=$snaps/gpu-iommu
gpu-bar1 p2ps_root=$snaps/gpu-bar1
sw-acs p2ps_root=$snaps/sw-acs p2ps_bar_inspect_args="--peers 03:00.0,04:00.0,06:00.0"
gpu-h100 p2ps_mode=capture p2ps_capture_sysroot=$snaps/gpu-h100
gpu-down p2ps_root=$tmp/no-such-snapshot

[gpu:vars]
ansible_connection=local
ansible_python_interpreter=/usr/bin/python3
p2ps_bar_inspect=$bi
p2ps_become=false
INV

mkdir -p "$tmp/home" "$tmp/target-tmp"
start=$(date +%s)
HOME=$tmp/home TMPDIR=$tmp/target-tmp ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 \
	ANSIBLE_LOCAL_TEMP=$tmp/ansible-local ANSIBLE_REMOTE_TMP=$tmp/ansible-remote \
	ANSIBLE_HOST_KEY_CHECKING=0 ANSIBLE_FORKS=8 \
	ansible-playbook -i "$tmp/inventory.ini" "$top/contrib/ansible/p2ps-fleet.yml" \
	-e p2ps_hosts=gpu -e "p2ps_control_bar_inspect=$bi" -e "p2ps_out=$tmp/out" \
	>"$tmp/ansible.log" 2>&1
rc=$?
echo "ansible-playbook: exit $rc in $(($(date +%s) - start)) s (2: gpu-down failed, as planted)"
status=0
# gpu-down's bar-inspect fails (no such snapshot): ansible-playbook reports a failed host.
[ "$rc" -eq 2 ] || { echo "FAIL: ansible-playbook exit $rc, expected 2"; status=1; }
grep -q 'fatal: \[gpu-down\]' "$tmp/ansible.log" || { echo "FAIL: gpu-down did not fail"; status=1; }
for f in summary.txt summary.json summary.csv expected-hosts.txt reports/gpu-h100.tar.gz; do
	[ -s "$tmp/out/$f" ] || { echo "FAIL: no $f on the control node"; status=1; }
done
python3 "$here/check_summary.py" "$tmp/out/summary.json" --hosts 7 --documents 7 \
	--host "gpu-iommu=not ready:iommu_translating" \
	--host "gpu-bar1=not ready:bar1_smaller_than_vram" \
	--host "sw-acs=not ready:acs_redirect,iommu_translating" \
	--host "gpu-a1=ready:-" --host "gpu-a2=ready:-" --host "gpu-a3=ready:-" \
	--host "gpu-h100=no pair" \
	--group iommu_translating=2 --group acs_redirect=1 --group bar1_smaller_than_vram=1 \
	--drift "gpu-a3:link width=x8" --drift "gpu-bar1:BAR1=32G" \
	--missing gpu-down || status=1
# The summary the play printed is the text table, with the planted causes grouped.
grep -q '2 hosts  IOMMU translates peer DMA \[iommu_translating: intel\]' "$tmp/ansible.log" ||
	{ echo "FAIL: the play did not print the grouped causes"; status=1; }
# One CSV row per host plus the header and the missing host.
rows=$(python3 -c 'import csv,sys; print(len(list(csv.reader(open(sys.argv[1])))))' "$tmp/out/summary.csv")
[ "$rows" -eq 9 ] || { echo "FAIL: summary.csv has $rows rows, expected 9"; status=1; }
[ "$(tree_sum "$snaps")" = "$before" ] || { echo "FAIL: a snapshot changed on a target"; status=1; }
left=$(find "$tmp/target-tmp" -mindepth 1 -name '*.p2ps' | wc -l)
[ "$left" -eq 0 ] || { echo "FAIL: $left temporary folders left on the targets"; status=1; }
if [ "$status" -ne 0 ]; then
	cp "$tmp/ansible.log" /tmp/fleet-ansible.log
	tail -n 60 "$tmp/ansible.log"
	cat "$tmp/out/summary.txt" 2>/dev/null
fi
exit $status
