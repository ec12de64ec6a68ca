#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# NCCL against bar-inspect's topology file on a machine with 2 NVIDIA GPUs (run from the
# repository root; python3 with PyTorch built with NCCL must be there):
#
#   scripts/device/ops.sh
#
# Builds bar-inspect, writes the host's topology (--nccl-topo), then runs the same 2-process
# all-reduce twice: with NCCL's own topology detection (NCCL_TOPO_DUMP_FILE and
# NCCL_GRAPH_DUMP_FILE record what NCCL found and built) and with NCCL_TOPO_FILE pointing at
# bar-inspect's file. Both logs (NCCL_DEBUG=INFO, subsystems INIT,GRAPH,TUNING,ENV), the
# dumps, the lines of the two logs that describe the graphs (side by side) and the
# all-reduce figures go to $OUT (default /tmp/p2ps-out): run.log and ops.tar.gz.
# Build dependencies missing on the machine come from ${DEBS:-.cmp/debs}/*.deb, unpacked
# under /tmp/p2ps-sysroot (scripts/device-deps.sh). Read-only towards the hardware.
set -uo pipefail
out=${OUT:-/tmp/p2ps-out}
res=/tmp/p2ps-ops
rm -rf "$res"
mkdir -p "$out" "$res"
exec > >(tee -a "$out/run.log") 2>&1
step() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }

step environment
uname -r
head -1 /proc/driver/nvidia/version
nvidia-smi -L
nvidia-smi topo -m
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), "gpus", torch.cuda.device_count())'

step build
. scripts/device-deps.sh
p2ps_unpack_debs "${DEBS:-.cmp/debs}" json-c libpci
bld=/tmp/p2ps-ops-build
cmake -S . -B $bld -DCMAKE_BUILD_TYPE=Release -DP2PS_TESTS=OFF >"$res/cmake.log" 2>&1 &&
	cmake --build $bld -j "$(nproc)" --target bar-inspect >>"$res/cmake.log" 2>&1 ||
	{ tail -40 "$res/cmake.log"; exit 1; }
bi=$bld/tools/bar-inspect

step "bar-inspect --nccl-topo"
$bi --nccl-topo >"$res/ours.xml" 2>"$res/ours.err"
echo "exit $?"
cat "$res/ours.xml" "$res/ours.err"
$bi --no-nvml --nccl-topo >"$res/ours-no-nvml.xml" 2>&1
$bi --json >"$res/bar-inspect.json" 2>&1
$bi --prometheus >"$res/bar-inspect.prom" 2>&1
$bi >"$res/bar-inspect.txt" 2>&1
echo "bar-inspect text/json/prometheus: $(wc -l <"$res/bar-inspect.txt") $(wc -l <"$res/bar-inspect.json") $(wc -l <"$res/bar-inspect.prom") lines"

cat >"$res/allreduce.py" <<'PY'
# SPDX-License-Identifier: MIT
# 2-process NCCL all-reduce: correctness, then bus bandwidth at a few sizes.
import json, os, sys, time
import torch, torch.distributed as dist, torch.multiprocessing as mp

def work(rank, world, port, tag):
    torch.cuda.set_device(rank)
    kw = dict(init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    try:
        dist.init_process_group("nccl", device_id=torch.device("cuda", rank), **kw)
    except TypeError:
        dist.init_process_group("nccl", **kw)
    x = torch.full((1 << 20,), float(rank + 1), device="cuda")
    dist.all_reduce(x)
    torch.cuda.synchronize()
    ok = bool((x == sum(range(1, world + 1))).all().item())
    res = {"tag": tag, "rank": rank, "correct": ok, "busbw_GBps": {}}
    for mib in (1, 16, 256):
        n = mib * (1 << 20) // 4
        t = torch.ones(n, device="cuda")
        for _ in range(5):
            dist.all_reduce(t)
        torch.cuda.synchronize()
        iters = 20
        t0 = time.perf_counter()
        for _ in range(iters):
            dist.all_reduce(t)
        torch.cuda.synchronize()
        dt = (time.perf_counter() - t0) / iters
        algbw = n * 4 / dt / 1e9
        res["busbw_GBps"][f"{mib}MiB"] = round(algbw * 2 * (world - 1) / world, 2)
    print("RESULT " + json.dumps(res), flush=True)
    dist.destroy_process_group()

if __name__ == "__main__":
    mp.spawn(work, args=(2, int(sys.argv[1]), sys.argv[2]), nprocs=2, join=True)
PY

# run TAG PORT ENV...: one all-reduce with NCCL's log in $res/TAG.log
run() {
	local tag=$1 port=$2
	shift 2
	step "all-reduce $tag: $*"
	env NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH,TUNING,ENV NCCL_NVLS_ENABLE=0 \
		TORCH_SYMM_MEM_DISABLE_MULTICAST=1 "$@" \
		timeout 150 python3 "$res/allreduce.py" "$port" "$tag" >"$res/$tag.log" 2>&1
	echo "exit $?"
	grep -E '^RESULT|Error|WARN' "$res/$tag.log" | head -20
}
run own 29511 NCCL_TOPO_DUMP_FILE="$res/own-topo.xml" NCCL_GRAPH_DUMP_FILE="$res/own-graph.xml"
run ours 29512 NCCL_TOPO_FILE="$res/ours.xml" NCCL_TOPO_DUMP_FILE="$res/ours-topo.xml" \
	NCCL_GRAPH_DUMP_FILE="$res/ours-graph.xml"
# The file written without NVML has no NVLinks: NCCL adds them from NVML itself.
run ours-no-nvml 29513 NCCL_TOPO_FILE="$res/ours-no-nvml.xml" \
	NCCL_TOPO_DUMP_FILE="$res/ours-no-nvml-topo.xml"

step "the graphs NCCL built, own detection vs bar-inspect's file"
# The lines that describe the system, the searched graphs, the channels, rings and trees,
# with the process prefix and addresses removed.
graph_lines() {
	sed -E 's/^[^ ]+ \[[0-9]+\] NCCL INFO //; s/comm 0x[0-9a-f]+/comm X/; s/commId 0x[0-9a-f]+/commId X/' "$1" |
		grep -E '^(=== System|CPU/|\+ |  +\+ |GPU/|NET/|Pattern|Ring|Tree|Channel|Trees|P2P Chunksize|Connected all|threadThresholds|[0-9]+ coll channels|comm X rank|  *[0-9]+ : | *(Protocol|Max NThreads|Broadcast|Reduce|AllGather|ReduceScatter|AllReduce|Algorithm) *\|)' |
		grep -vE 'Loading|Could not' | sort
}
graph_lines "$res/own.log" >"$res/own.graph.txt"
for t in ours ours-no-nvml; do
	graph_lines "$res/$t.log" >"$res/$t.graph.txt"
	if diff -u "$res/own.graph.txt" "$res/$t.graph.txt" >"$res/$t.graph.diff"; then
		echo "$t: SAME GRAPH as NCCL's own detection: $(wc -l <"$res/own.graph.txt") lines identical"
	else
		echo "$t: GRAPHS DIFFER from NCCL's own detection: $(grep -c '^[-+][^-+]' "$res/$t.graph.diff") lines"
		head -60 "$res/$t.graph.diff"
	fi
done
grep -h -E 'Loading topology|NCCL_TOPO_FILE|Pattern|Channel 0./|Trees|Ring 00' "$res/own.log" "$res/ours.log" | head -40
for f in own-topo.xml ours-topo.xml ours-no-nvml-topo.xml own-graph.xml ours-graph.xml; do
	echo "--- $f"
	head -40 "$res/$f" 2>/dev/null
done

step "checks of the files"
python3 tests/host/nccl_topo_check.py "$res/ours.xml" "$res/ours-no-nvml.xml" "$res"/*-topo.xml 2>&1
$bi --paste "$res/own-topo.xml" >"$res/paste-own-topo.txt" 2>&1
echo "bar-inspect --paste NCCL's dump: exit $?"
head -30 "$res/paste-own-topo.txt"

step pack
tar -C /tmp -czf "$out/ops.tar.gz" p2ps-ops
ls -l "$out"
