#!/bin/sh
# SPDX-License-Identifier: MIT
# p2p-bench check's command line: usage errors are one line and exit 2; without a GPU the
# live check says so and exits 3 (unknown: nothing to check), never 0; the committed runs of a
# 2 x H200 host judged again against its snapshot give their verdicts, exit statuses and
# outputs; a saved run changed into a failure is judged broken. $1: the p2p-bench binary.
bench=$1
fx=$P2PS_SOURCE_DIR/tests/fixtures/p2p-check/h200x2
snap=$fx/snapshot
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

bad() { echo "FAIL: $*"; fail=1; }

# expect_usage_error ARGS...: exit 2, nothing on stdout, exactly one stderr line.
expect_usage_error() {
	"$bench" check "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || bad "check $*: exit $rc, want 2"
	[ ! -s "$tmp/out" ] || bad "check $*: printed to stdout"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || bad "check $*: stderr not one line: $(cat "$tmp/err")"
	grep -q '^p2p-bench: ' "$tmp/err" || bad "check $*: message not prefixed: $(cat "$tmp/err")"
}

expect_usage_error --size 17
expect_usage_error --size 1G
expect_usage_error --deadline 5
expect_usage_error --alias 100K
expect_usage_error --alias 1M,2M,4M,8M,16M
expect_usage_error --devices 1,1
expect_usage_error --json --quiet
expect_usage_error --root "$snap"
expect_usage_error --nccl /nonexistent/libnccl.so.2
expect_usage_error --replay /nonexistent.json
expect_usage_error --replay "$fx/p2p-bench-small.json"
expect_usage_error --replay "$fx/check-2gpu.json" --root /nonexistent
expect_usage_error stray

"$bench" check --help >"$tmp/out" 2>&1 || bad "check --help failed"
grep -q '^usage: p2p-bench check' "$tmp/out" || bad "check --help prints no usage"
grep -q '^Exit status: 0 works, 1 broken' "$tmp/out" || bad "check --help has no exit statuses"

# Without a GPU: unknown (3), one line with --quiet, never a pass.
if [ -e /dev/nvidiactl ]; then
	echo "note: this host has an NVIDIA device node, the no-GPU check does not apply"
else
	"$bench" check --quiet >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 3 ] || bad "check without a GPU: exit $rc, want 3"
	[ "$(wc -l <"$tmp/out")" -eq 1 ] || bad "check --quiet: not one line: $(cat "$tmp/out")"
	grep -q '^p2p-bench check: unknown: nothing to check' "$tmp/out" || bad "no-GPU line: $(cat "$tmp/out")"
	"$bench" check --json --no-nccl --no-host >"$tmp/out" || [ $? -eq 3 ] || bad "check --json without a GPU"
	grep -q '"exit_status":3' "$tmp/out" || bad "no-GPU JSON: $(head -c 300 "$tmp/out")"
fi

# replay NAME WANT_EXIT PATTERN [ARGS...]: the committed run NAME judged against the snapshot.
replay() {
	name=$1 want=$2 pattern=$3
	shift 3
	"$bench" check --replay "$fx/$name.json" --root "$snap" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq "$want" ] || bad "replay $name $*: exit $rc, want $want: $(head -3 "$tmp/out") $(cat "$tmp/err")"
	grep -q -- "$pattern" "$tmp/out" || bad "replay $name $*: no /$pattern/ in: $(head -5 "$tmp/out")"
}

replay check-2gpu 0 '^p2p-bench check: works: 2 GPUs, 2 ordered pairs x 8 paths verified; NCCL 2.28.3 verified$'
replay check-2gpu 0 '^    ok: peer_access ce sm_store sm_load ipc_ce ipc_sm fd_ce fd_sm$'
replay check-2gpu 0 'driver reports read OK write OK (nvidia-smi topo -p2p (snapshot)); driver model: nvlink'
replay check-2gpu 0 '^    NCCL: via P2P/direct pointer$'
replay check-2gpu-torch-nccl 0 'NCCL 2.28.9 verified'
replay check-2gpu-p2p-disabled 0 '^    NCCL: via SHM/direct/direct$'
replay check-2gpu-p2p-disabled 0 'NCCL SHM (path NVL beyond P2P level LOC (NCCL_P2P_DISABLE))'
replay check-2gpu-uvm 0 '2 ordered pairs x 9 paths verified'
replay check-2gpu-under-load 0 'works: 2 GPUs'
replay check-2gpu-noipc-nonccl 0 '2 ordered pairs x 4 paths verified$'
replay check-1gpu 3 '^p2p-bench check: unknown: one GPU (0000:00:06.0), no pair to check'
replay check-1gpu 3 'not checked (not visible to CUDA here): 0000:00:07.0'
replay check-1gpu-allowed 0 '(one GPU allowed)'
replay check-1gpu 0 '(one GPU allowed)' --allow-single
replay check-2gpu 0 '^p2p-bench check: works: .* (1.12 s)$' --quiet
replay check-2gpu 0 '^p2pscope_check_path_ok{gpu_a="0000:00:06.0",gpu_b="0000:00:07.0",path="fd_sm"} 1$' --prometheus
replay check-2gpu 0 '^p2pscope_check_nccl_p2p{gpu_a="0000:00:07.0",gpu_b="0000:00:06.0"} 1$' --prometheus
replay check-2gpu 0 '^p2pscope_check_status 0$' --prometheus
replay check-2gpu 0 '"verdict":"works"' --json
# The 4 x H200 host: every ordered pair, and subsets that name the GPUs they left out.
fx4=$P2PS_SOURCE_DIR/tests/fixtures/p2p-check/h200x4
"$bench" check --replay "$fx4/check-4gpu.json" --root "$fx4/snapshot" >"$tmp/out" || bad "4 GPUs: exit $?"
grep -q '^p2p-bench check: works: 4 GPUs, 12 ordered pairs x 8 paths verified; NCCL 2.28.3 verified$' "$tmp/out" ||
	bad "4 GPUs: $(head -1 "$tmp/out")"
[ "$(grep -c '^    NCCL: via P2P/direct pointer$' "$tmp/out")" -eq 12 ] || bad "4 GPUs: NCCL's transport not on 12 pairs"
"$bench" check --replay "$fx4/check-subset-1-3.json" --root "$fx4/snapshot" >"$tmp/out" || bad "subset: exit $?"
grep -q 'not checked (not visible to CUDA here): 0000:00:06.0, 0000:00:08.0' "$tmp/out" || bad "subset: $(head -3 "$tmp/out")"
grep -q '^GPU 0 -> GPU 1  0000:00:07.0 -> 0000:00:09.0  NV18  works$' "$tmp/out" || bad "subset: pair"

# Without the snapshot there is no prediction, and the run's observations still decide.
"$bench" check --replay "$fx/check-2gpu.json" --quiet >"$tmp/out" || bad "replay without --root: exit $?"
"$bench" check --replay "$fx/check-2gpu.json" >"$tmp/out"
grep -q 'no host model: replayed without --root' "$tmp/out" || bad "replay without --root: $(head -3 "$tmp/out")"

# The same run with its peer stores turned into zeros, with a load that hung, and with
# NCCL's transport turned into SHM without NCCL_P2P_DISABLE: each broken, named.
mutate() {
	python3 - "$fx/check-2gpu.json" "$tmp/m.json" "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
what = sys.argv[3]
p = d["pairs"][0]
if what == "zeros":
    p["paths"]["sm_store"].update(form="zeros", detail="131072 of 131072 cells zero")
elif what == "hung":
    p["paths"]["sm_load"].update(form="hung", detail="sm_load 0 -> 1 did not return within 2000 ms")
elif what == "shm":
    p["nccl_transport"] = "SHM/direct/direct"
json.dump(d, open(sys.argv[2], "w"))
EOF
}
if command -v python3 >/dev/null; then
	mutate zeros
	"$bench" check --replay "$tmp/m.json" --root "$snap" >"$tmp/out"
	[ $? -eq 1 ] || bad "zeros: want exit 1"
	grep -q '^p2p-bench check: broken: GPU 0 -> GPU 1: sm_store: zeros, 131072 of 131072 cells zero$' "$tmp/out" ||
		bad "zeros: $(head -1 "$tmp/out")"
	mutate hung
	"$bench" check --replay "$tmp/m.json" --root "$snap" >"$tmp/out"
	[ $? -eq 1 ] || bad "hung: want exit 1"
	grep -q 'cause: a peer access never completed' "$tmp/out" || bad "hung: no cause: $(cat "$tmp/out")"
	mutate shm
	"$bench" check --replay "$tmp/m.json" --root "$snap" >"$tmp/out"
	[ $? -eq 1 ] || bad "shm: want exit 1"
	grep -q 'NCCL chose SHM/direct/direct where it should use P2P' "$tmp/out" || bad "shm: $(head -3 "$tmp/out")"
	grep -q 'fix: unset NCCL_P2P_DISABLE' "$tmp/out" || bad "shm: no fix"
else
	bad "python3 missing (it makes the changed runs)"
fi

[ $fail -eq 0 ] && echo "p2p-bench check cli: ok"
exit $fail
