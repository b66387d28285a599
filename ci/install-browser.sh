#!/usr/bin/env bash
# Installs headless Chromium from Debian where missing: package
# websocket's TestBrowser loads a page from httpserver in it, whose script
# talks WebSocket to the package's server, compressed as the browser
# negotiates. Idempotent.
set -euo pipefail

if command -v chromium-headless-shell >/dev/null; then
	echo "chromium-headless-shell already installed"
	exit 0
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
	sudo=(sudo)
fi
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq chromium-headless-shell
chromium-headless-shell --version
