#!/usr/bin/env bash
# Runs every test: provides the real peers (cached), then the whole workspace's tests.
# Tests that need a peer read its path from the HEADROOM_* variables set here; in CI a missing
# peer fails the test, it never skips silently.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash scripts/peers.sh)"
export HEADROOM_REQUIRE_PEERS=1
# HEADROOM_TEST_TIMES=1 prints each test's wall time (where the suite's time goes). A live test's
# time there counts its wait for the live-server lock (testpeers::serial); target/serial-times.txt
# gets each live test's wait and hold, whose holds add up to the live tests' share of the run.
if [ "${HEADROOM_TEST_TIMES:-0}" = 1 ]; then
  host=$(rustc -vV | sed -n 's/^host: //p' | tr 'a-z-' 'A-Z_')
  export "CARGO_TARGET_${host}_RUNNER=$PWD/scripts/timed-test-runner"
  export HEADROOM_SERIAL_TIMES="$PWD/target/serial-times.txt"
  mkdir -p target && : >"$HEADROOM_SERIAL_TIMES"
fi
# Arguments (a crate, a filter): cargo's own run, as given. No --workspace: with it a `-p CRATE`
# would not narrow the run; without -p the root (a virtual manifest) still tests every crate.
if [ "$#" -gt 0 ]; then
  exec cargo test --release --no-fail-fast "$@"
fi

# Two live lanes. Live tests run one at a time within a test process (testpeers::serial), and
# they set the suite's length. The vLLM and SGLang tests of the headroom `it` binary run in a
# second process of that binary, beside the rest: their fixed windows and engine start-ups then
# overlap the llama-server and Prometheus tests' instead of following them. Each lane still runs
# its live tests one at a time; llama-server runs on one thread, the Python engines on their
# own, and every live test's effect was sized on a machine loaded far beyond one more engine.
# One build; its artifact messages name the binary the workspace's run runs (built with the
# workspace's features: `-p headroom` would build another). Diagnostics stay human, on stderr.
it=$(cargo test --workspace --release --no-run --message-format=json-render-diagnostics |
  grep '"reason":"compiler-artifact"' | grep '/crates/headroom#' | grep '"test":true' |
  grep '"name":"it"' | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' || true)
[ -x "$it" ] || { echo "test.sh: the headroom it binary was not found" >&2; exit 1; }
mapfile -t python_lane < <("$it" --list --format terse 2>/dev/null |
  sed -n -E 's/^((prom_vllm|route_vllm|sglang|vllm)::[^ ]*): test$/\1/p')
if [ "${#python_lane[@]}" -eq 0 ]; then
  # Without names the lane's process would run every test a second time.
  echo "test.sh: no vLLM or SGLang test listed by $it" >&2
  exit 1
fi
runner=()
if [ "${HEADROOM_TEST_TIMES:-0}" = 1 ]; then runner=("$PWD/scripts/timed-test-runner"); fi
lane_log=target/python-lane.log
echo "test.sh: ${#python_lane[@]} vLLM and SGLang tests run beside the rest (their output: $lane_log, printed at the end)" >&2
(cd crates/headroom && "${runner[@]}" "$it" --exact "${python_lane[@]}") >"$lane_log" 2>&1 &
lane=$!
skip=()
for t in "${python_lane[@]}"; do skip+=(--skip "$t"); done
rc=0
cargo test --workspace --release --no-fail-fast -- --exact "${skip[@]}" || rc=$?
lane_rc=0
wait "$lane" || lane_rc=$?
echo "test.sh: the vLLM and SGLang lane (headroom it, ${#python_lane[@]} tests):"
cat "$lane_log"
if [ "$lane_rc" -ne 0 ]; then
  echo "test.sh: the vLLM and SGLang lane failed (exit $lane_rc)" >&2
  rc=1
fi
exit "$rc"
