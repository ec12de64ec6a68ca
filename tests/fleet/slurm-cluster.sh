# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# A one-host Slurm cluster for the Slurm tests (sourced after fleet-lib.sh): munged,
# slurmctld and one slurmd per node name on localhost (Debian's build allows several
# slurmd per host), from Debian's packages, with a config written here, started in the
# background as root with explicit paths (no systemd). Needs the commands checked by
# slurm_cluster_need and root; stopped and removed by slurm_cluster_stop (an EXIT trap).
#
#   slurm_cluster_need
#   slurm_cluster_start DIR "EXTRA slurm.conf LINES" gpu01 gpu02 ...
#   ... SLURM_CONF is exported; sinfo, scontrol, srun, sbatch reach the cluster ...
#   slurm_cluster_stop

slurm_pids=()
slurm_dir=

# slurm_cluster_need: the test is unavailable (SKIPPED, or FAIL under CI=true) without
# the daemons, the client commands or root.
slurm_cluster_need() {
	local t
	for t in munged slurmctld slurmd srun sbatch scontrol sinfo; do
		command -v "$t" >/dev/null ||
			unavailable "$t is not installed (munge, slurmctld, slurmd, slurm-client)"
	done
	[ "$(id -u)" -eq 0 ] || unavailable "a one-host Slurm cluster needs root (slurmd launches tasks)"
}

slurm_cluster_stop() {
	local p
	[ -n "$slurm_dir" ] || return 0
	SLURM_CONF=$slurm_dir/slurm.conf timeout 10 scontrol shutdown >/dev/null 2>&1
	sleep 1
	for p in "${slurm_pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${slurm_pids[@]}"; do
		wait "$p" 2>/dev/null
	done
	rm -rf "$slurm_dir"
	slurm_dir=
}

# slurm_cluster_start DIR EXTRA-CONF NODE...: starts the cluster in DIR (created; removed
# by slurm_cluster_stop) and waits (30 s at most) until every node is idle. Returns 1,
# with the daemons' logs, when it does not come up.
slurm_cluster_start() {
	local dir=$1 extra=$2 n ports port_ctld i=0 idle up=0 host
	shift 2
	slurm_dir=$dir
	mkdir -p "$dir/munge" "$dir/spool" "$dir/log" "$dir/state"
	chmod 700 "$dir/munge"
	head -c 1024 /dev/urandom >"$dir/munge/munge.key"
	chmod 600 "$dir/munge/munge.key"
	# In the foreground (as a child of this shell), so that it is stopped and reaped here.
	munged --foreground --socket="$dir/munge/socket" --key-file="$dir/munge/munge.key" \
		--pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/seed" \
		--log-file="$dir/log/munged.log" --force >"$dir/log/munged.out" 2>&1 &
	slurm_pids+=($!)
	for _ in $(seq 50); do
		[ -S "$dir/munge/socket" ] && break
		sleep 0.1
	done
	[ -S "$dir/munge/socket" ] || { echo "FAIL: munged did not start"; cat "$dir/log/munged.log"; return 1; }

	# Free TCP ports: one for slurmctld, one per slurmd.
	read -r -a ports < <(python3 -c '
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))' $(($# + 1)))
	port_ctld=${ports[0]}
	host=$(hostname -s)
	{
		cat <<CONF
ClusterName=p2psfleet
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port_ctld
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/linear
MpiDefault=none
ReturnToService=2
CONF
		[ -z "$extra" ] || printf '%s\n' "$extra"
		for n in "$@"; do
			i=$((i + 1))
			echo "NodeName=$n NodeHostname=$host NodeAddr=127.0.0.1 Port=${ports[$i]} CPUs=1 RealMemory=100 State=UNKNOWN"
		done
		echo "PartitionName=fleet Nodes=$(
			IFS=,
			echo "$*"
		) Default=YES MaxTime=10 State=UP"
	} >"$dir/slurm.conf"
	export SLURM_CONF=$dir/slurm.conf
	slurmctld -D -f "$SLURM_CONF" >"$dir/log/slurmctld.out" 2>&1 &
	slurm_pids+=($!)
	for n in "$@"; do
		mkdir -p "$dir/spool/$n"
		slurmd -D -N "$n" -f "$SLURM_CONF" >"$dir/log/slurmd-$n.out" 2>&1 &
		slurm_pids+=($!)
	done
	for _ in $(seq 60); do
		idle=$(sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l)
		[ "$idle" -eq $# ] && { up=1; break; }
		sleep 0.5
	done
	if [ "$up" -ne 1 ]; then
		echo "FAIL: the one-host cluster did not come up:"
		sinfo -N 2>&1
		tail -n 20 "$dir"/log/*
		return 1
	fi
	echo "slurm: $# nodes idle"
}
