#!/bin/sh
# SPDX-License-Identifier: MIT
# contrib/kubernetes/p2pscope-node.sh (the DaemonSet's loop) outside a container, once
# (P2PS_INTERVAL=0) on a committed snapshot:
#   - it writes features.d/p2pscope (the labels of bar-inspect --nfd after an expiry-time
#     directive P2PS_EXPIRY seconds on) and p2pscope.prom (bar-inspect --prometheus), and
#     leaves no temporary file;
#   - when bar-inspect fails, the old files stay as they were, no temporary file is left,
#     and it exits 1;
#   - an empty folder variable turns that output off; bad numbers are refused (exit 2);
#   - looping (P2PS_INTERVAL=30), TERM ends it at once with status 0.
#   test_node_script.sh BAR_INSPECT SOURCE_DIR
. "$2/tests/support/p2ps_test.sh"
bi=$1 src=$2 fails=0
node=$src/contrib/kubernetes/p2pscope-node.sh
snap=$src/tests/fixtures/h200x2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
f=$tmp/features.d t=$tmp/textfile
mkdir -p "$f" "$t"
bad() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
run() { # ENV... : the script once
	env BAR_INSPECT="$bi" P2PS_INTERVAL=0 P2PS_FEATURES_DIR="$f" P2PS_TEXTFILE_DIR="$t" "$@" sh "$node"
}

run P2PS_ARGS="--root $snap" P2PS_EXPIRY=1200 || bad "exit $? on a snapshot"
"$bi" --root "$snap" --nfd | grep -v '^#' >"$tmp/want.labels"
"$bi" --root "$snap" --prometheus >"$tmp/want.prom"
grep -v '^#' "$f/p2pscope" | cmp -s - "$tmp/want.labels" || bad "features.d/p2pscope is not bar-inspect --nfd"
cmp -s "$t/p2pscope.prom" "$tmp/want.prom" || bad "p2pscope.prom is not bar-inspect --prometheus"
exp=$(sed -n 's/^# +expiry-time=//p' "$f/p2pscope")
now=$(date -u +%s)
at=$(date -u -d "$(echo "$exp" | sed 's/T/ /; s/Z$//')" +%s 2>/dev/null || echo 0)
if [ $((at - now)) -lt 1190 ] || [ $((at - now)) -gt 1200 ]; then
	bad "expiry-time '$exp' is not 1200 s from now"
fi
[ -z "$(find "$f" "$t" -mindepth 1 -name '.*')" ] || bad "a temporary file was left"

# bar-inspect failing: the files stay, exit 1, nothing left behind.
cp "$f/p2pscope" "$tmp/old.labels"
cp "$t/p2pscope.prom" "$tmp/old.prom"
run P2PS_ARGS="--root $tmp/no-such-snapshot" 2>"$tmp/err" && bad "exit 0 when bar-inspect fails"
grep -q 'left to expire' "$tmp/err" || bad "no message when bar-inspect --nfd fails: $(cat "$tmp/err")"
cmp -s "$f/p2pscope" "$tmp/old.labels" || bad "the old labels were not kept"
cmp -s "$t/p2pscope.prom" "$tmp/old.prom" || bad "the old metrics were not kept"
[ -z "$(find "$f" "$t" -mindepth 1 -name '.*')" ] || bad "a temporary file was left after a failure"

# Outputs off, bad settings.
rm -f "$f/p2pscope" "$t/p2pscope.prom"
run P2PS_ARGS="--root $snap" P2PS_TEXTFILE_DIR= || bad "exit $? without metrics"
if [ ! -s "$f/p2pscope" ] || [ -e "$t/p2pscope.prom" ]; then
	bad "P2PS_TEXTFILE_DIR= still wrote metrics"
fi
run P2PS_INTERVAL=5m 2>/dev/null
[ $? -eq 2 ] || bad "P2PS_INTERVAL=5m was not refused with exit 2"
run P2PS_EXPIRY=0 2>/dev/null
[ $? -eq 2 ] || bad "P2PS_EXPIRY=0 was not refused with exit 2"

# The loop ends at once on TERM.
env BAR_INSPECT="$bi" P2PS_INTERVAL=30 P2PS_FEATURES_DIR="$f" P2PS_TEXTFILE_DIR="$t" P2PS_ARGS="--root $snap" \
	sh "$node" &
pid=$!
i=0
while [ ! -s "$t/p2pscope.prom" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -TERM "$pid"
i=0
while kill -0 "$pid" 2>/dev/null && [ $i -lt 30 ]; do
	sleep 0.1
	i=$((i + 1))
done
if kill -0 "$pid" 2>/dev/null; then
	bad "still running 3 s after TERM"
	kill -KILL "$pid"
fi
wait "$pid"
rc=$?
[ $rc -eq 0 ] || bad "exit $rc after TERM"
[ $fails -eq 0 ] && echo "ok: p2pscope-node.sh"
p2ps_test_exit "$fails"
