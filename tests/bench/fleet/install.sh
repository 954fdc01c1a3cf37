#!/bin/sh
# Installs the development fleet of real MCP servers OUTSIDE the repository (not run in CI).
# Usage: sh tests/bench/fleet/install.sh [/work/fleet]
# Needs node/npm and python3 with venv; the servers then start over stdio with no credentials or network.
set -eu
FLEET=${1:-/work/fleet}
mkdir -p "$FLEET/npm"
cd "$FLEET/npm"
[ -f package.json ] || echo '{"name":"ankit-fleet","private":true}' > package.json
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --ignore-scripts \
  @modelcontextprotocol/server-filesystem@2026.8.31 \
  @modelcontextprotocol/server-memory@2026.8.31 \
  @modelcontextprotocol/server-everything@2026.8.31 \
  @modelcontextprotocol/server-sequential-thinking@2026.8.31 \
  @modelcontextprotocol/server-github@2025.4.8 \
  mcp-server-kubernetes@4.1.7 \
  mongodb-mcp-server@3.0.4 \
  @playwright/mcp@0.0.83
cd "$FLEET"
[ -d venv ] || python3 -m venv venv
venv/bin/pip install -q mcp-server-git==2026.10.19 mcp-server-fetch==2026.10.24 mcp-server-time==2026.10.19
# mcp-server-sqlite needs an older mcp library (newer ones dropped Server.list_resources): a venv of its own
[ -d venv-sqlite ] || python3 -m venv venv-sqlite
venv-sqlite/bin/pip install -q mcp-server-sqlite==2025.4.25 mcp==1.9.4 pydantic==2.11.7 pydantic-settings==2.9.1
mkdir -p "$FLEET/data" "$FLEET/repo"
[ -d "$FLEET/repo/.git" ] || git -C "$FLEET/repo" init -q
echo "fleet installed in $FLEET"
