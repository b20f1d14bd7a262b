#!/usr/bin/env bash
# Runs every test: provides the real peers (cached), then the whole workspace's tests.
# Tests that need a peer read its path from the HEADROOM_* variables set here; in CI a missing
# peer fails the test, it never skips silently.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash scripts/peers.sh)"
export HEADROOM_REQUIRE_PEERS=1
cargo test --workspace --release --no-fail-fast "$@"
