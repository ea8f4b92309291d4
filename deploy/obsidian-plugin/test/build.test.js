// The committed main.js is what users copy into their vault: it must be a fresh build of src/.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { execFileSync } = require("node:child_process");

const root = path.join(__dirname, "..");

test("the committed main.js equals a fresh esbuild build of src/main.ts", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vaultgate-companion-"));
  try {
    const out = path.join(dir, "main.js");
    execFileSync(process.execPath, ["esbuild.config.mjs", out], { cwd: root, stdio: "inherit" });
    const fresh = fs.readFileSync(out, "utf8");
    const committed = fs.readFileSync(path.join(root, "main.js"), "utf8");
    assert.ok(fresh === committed, "main.js is stale: run `npm run build` in deploy/obsidian-plugin");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("manifest, versions and package agree on the version", () => {
  const read = (name) => JSON.parse(fs.readFileSync(path.join(root, name), "utf8"));
  const manifest = read("manifest.json");
  const versions = read("versions.json");
  assert.equal(manifest.id, "vaultgate-companion");
  assert.equal(read("package.json").version, manifest.version);
  assert.equal(versions[manifest.version], manifest.minAppVersion);
});
