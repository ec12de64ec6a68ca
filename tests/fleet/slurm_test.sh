#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Slurm path through the real engine: a one-host cluster of four nodes from Debian's
# packages (slurm-cluster.sh). contrib/slurm/p2ps-fleet-srun.sh runs one task per node;
# each node's task reads its own planted snapshot (bar-inspect --root, picked by
# $SLURMD_NODENAME), node gpu04's task fails. The summary must name the right nodes,
# causes and drift, and gpu04 as missing. Then the batch example (sbatch --wait) does the
# same from inside an allocation. Daemons are stopped and files removed on exit.
set -uo pipefail
. "$(dirname "$0")/fleet-lib.sh"
# shellcheck source=tests/fleet/slurm-cluster.sh
. "$(dirname "$0")/slurm-cluster.sh"
slurm_cluster_need
tmp=$(mktemp -d)
trap 'slurm_cluster_stop; rm -rf "$tmp"' EXIT
slurm_cluster_start "$tmp/cluster" "" gpu01 gpu02 gpu03 gpu04 || exit 1

snaps=$tmp/snaps
plant "$snaps" gpu01=h200pcie gpu02=h200pcie,iommu gpu03=h200pcie,link=8 || exit 1
# gpu04 has no snapshot: its task fails, as a node without bar-inspect would.
task="$(printf '%q' "$bi") --json --root $(printf '%q' "$snaps")/\$SLURMD_NODENAME"

expect_summary() { # DIR
	python3 "$here/check_summary.py" "$1/summary.json" --hosts 3 --documents 3 \
		--host "gpu02=not ready:iommu_translating" --host "gpu01=ready:-" \
		--host "gpu03=ready:-" --group iommu_translating=1 \
		--drift "gpu03:link width=x8" --missing gpu04
}

status=0
start=$(date +%s)
timeout 120 "$top/contrib/slurm/p2ps-fleet-srun.sh" -o "$tmp/out" --control-bar-inspect "$bi" \
	--task-cmd "$task" -- -N 4 -p fleet >"$tmp/srun-script.log" 2>&1
rc=$?
echo "p2ps-fleet-srun.sh (srun -N 4): exit $rc in $(($(date +%s) - start)) s (1: gpu04 missing, as planted)"
[ "$rc" -eq 1 ] || { echo "FAIL: exit $rc, expected 1"; status=1; }
expect_summary "$tmp/out" || status=1
grep -q '^gpu02 .*not ready 1/1 .*iommu_translating' "$tmp/srun-script.log" ||
	{ echo "FAIL: the printed table lacks gpu02's verdict"; status=1; }

# The batch example, from inside an allocation of the four nodes.
mkdir -p "$tmp/submit"
start=$(date +%s)
(cd "$tmp/submit" && P2PS_FLEET_SRUN=$top/contrib/slurm/p2ps-fleet-srun.sh \
	P2PS_FLEET_BAR_INSPECT=$bi P2PS_FLEET_TASK_CMD=$task \
	timeout 120 sbatch --wait --nodes=4 --partition=fleet "$top/contrib/slurm/p2ps-fleet.sbatch") \
	>"$tmp/sbatch.log" 2>&1
rc=$?
echo "sbatch --wait p2ps-fleet.sbatch: exit $rc in $(($(date +%s) - start)) s"
[ "$rc" -eq 1 ] || { echo "FAIL: sbatch exit $rc, expected 1 (gpu04 missing)"; status=1; }
jobdir=$(find "$tmp/submit" -maxdepth 1 -type d -name 'p2ps-fleet-*' | head -n 1)
if [ -n "$jobdir" ]; then
	expect_summary "$jobdir" || status=1
else
	echo "FAIL: the batch job wrote no p2ps-fleet-<job>/ folder"
	status=1
fi
if [ "$status" -ne 0 ]; then
	cat "$tmp/srun-script.log" "$tmp/sbatch.log" "$tmp"/submit/*.log 2>/dev/null | tail -n 60
	tail -n 20 "$tmp/cluster/log/slurmctld.log"
fi
exit $status
