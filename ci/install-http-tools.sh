#!/usr/bin/env bash
# Installs curl and wrk from Debian where missing: package httpserver's
# tests run them as clients (TestCurl, TestWrk) and `eventloop bench
# --http` loads its servers with wrk. Idempotent.
set -euo pipefail

missing=()
for tool in curl wrk; do
	command -v "$tool" >/dev/null || missing+=("$tool")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "curl and wrk already installed"
	exit 0
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
	sudo=(sudo)
fi
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}"
