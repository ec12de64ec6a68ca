#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Slurm path through the real engine: a one-host cluster from Debian's packages
# (munged, slurmctld and four slurmd on localhost, Debian's build allows several slurmd
# per host), with a config this test writes, started in the background as root with
# explicit paths (no systemd). contrib/slurm/p2ps-fleet-srun.sh runs one task per node;
# each node's task reads its own planted snapshot (bar-inspect --root, picked by
# $SLURMD_NODENAME), node gpu04's task fails. The summary must name the right nodes,
# causes and drift, and gpu04 as missing. Then the batch example (sbatch --wait) does the
# same from inside an allocation. Daemons are stopped and files removed on exit.
set -uo pipefail
. "$(dirname "$0")/fleet-lib.sh"
for t in munged slurmctld slurmd srun sbatch scontrol sinfo; do
	command -v "$t" >/dev/null || unavailable "$t is not installed (munge, slurmctld, slurmd, slurm-client)"
done
[ "$(id -u)" -eq 0 ] || unavailable "a one-host Slurm cluster needs root (slurmd launches tasks)"

tmp=$(mktemp -d)
pids=()
cleanup() {
	SLURM_CONF=$tmp/slurm.conf timeout 10 scontrol shutdown >/dev/null 2>&1
	sleep 1
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

# Four free TCP ports for slurmctld and the slurmd (one each).
read -r p_ctld p1 p2 p3 p4 < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(5)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))')

mkdir -p "$tmp/munge" "$tmp/spool" "$tmp/log" "$tmp/state"
chmod 700 "$tmp/munge"
head -c 1024 /dev/urandom >"$tmp/munge/munge.key"
chmod 600 "$tmp/munge/munge.key"
# In the foreground (as a child of this script), so that it is stopped and reaped here.
munged --foreground --socket="$tmp/munge/socket" --key-file="$tmp/munge/munge.key" \
	--pid-file="$tmp/munge/munged.pid" --seed-file="$tmp/munge/seed" \
	--log-file="$tmp/log/munged.log" --force >"$tmp/log/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do
	[ -S "$tmp/munge/socket" ] && break
	sleep 0.1
done
[ -S "$tmp/munge/socket" ] || { echo "FAIL: munged did not start"; cat "$tmp/log/munged.log"; exit 1; }

host=$(hostname -s)
cat >"$tmp/slurm.conf" <<CONF
ClusterName=p2psfleet
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$p_ctld
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool/%n
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd-%n.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/linear
MpiDefault=none
ReturnToService=2
NodeName=gpu01 NodeHostname=$host NodeAddr=127.0.0.1 Port=$p1 CPUs=1 RealMemory=100 State=UNKNOWN
NodeName=gpu02 NodeHostname=$host NodeAddr=127.0.0.1 Port=$p2 CPUs=1 RealMemory=100 State=UNKNOWN
NodeName=gpu03 NodeHostname=$host NodeAddr=127.0.0.1 Port=$p3 CPUs=1 RealMemory=100 State=UNKNOWN
NodeName=gpu04 NodeHostname=$host NodeAddr=127.0.0.1 Port=$p4 CPUs=1 RealMemory=100 State=UNKNOWN
PartitionName=fleet Nodes=gpu[01-04] Default=YES MaxTime=10 State=UP
CONF
export SLURM_CONF=$tmp/slurm.conf
slurmctld -D -f "$SLURM_CONF" >"$tmp/log/slurmctld.out" 2>&1 &
pids+=($!)
for n in gpu01 gpu02 gpu03 gpu04; do
	mkdir -p "$tmp/spool/$n"
	slurmd -D -N "$n" -f "$SLURM_CONF" >"$tmp/log/slurmd-$n.out" 2>&1 &
	pids+=($!)
done

# Wait (30 s at most) until all four nodes are idle.
up=0
for _ in $(seq 60); do
	idle=$(sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l)
	[ "$idle" -eq 4 ] && { up=1; break; }
	sleep 0.5
done
if [ "$up" -ne 1 ]; then
	echo "FAIL: the one-host cluster did not come up:"
	sinfo -N 2>&1
	tail -n 20 "$tmp"/log/*
	exit 1
fi
echo "slurm: 4 nodes idle"

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
	tail -n 20 "$tmp/log/slurmctld.log"
fi
exit $status
