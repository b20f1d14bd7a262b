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
cargo test --workspace --release --no-fail-fast "$@"
