#!/usr/bin/env bash
# Installs every Debian package hetsim's build, tests and tools need. Idempotent: a no-op
# when everything is present. Runs apt only for what is missing.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config git clang-format
  libsystemc-dev libyaml-cpp-dev libfmt-dev libboost-dev libeigen3-dev
  libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev
  coinor-libcbc-dev libscotch-dev libgecode-dev
  libonnx-dev libprotobuf-dev libtorch-dev libopenblas0-serial libopenmpi-dev openmpi-bin
  python3-matplotlib python3-torch python3-torchvision python3-onnx
  chromium  # the report's screenshot test (tests/tools/report_test.cpp)
  clang-14 libclang-rt-14-dev xxd  # tools/fuzz: libFuzzer builds of tests/fuzz
  linux-perf  # profiling (tools/bench)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
