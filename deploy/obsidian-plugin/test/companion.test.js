// Tests of the built main.js under Node against the stand-in app in standin.js.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { loadedCompanion, loadCompanion, makeApp, manifest, notices } = require("./standin.js");

const P = "/vaultgate/v1";

test("onload registers every versioned route on the Local REST API", async () => {
  const { rest } = await loadedCompanion();
  assert.deepEqual([...rest.routes.keys()].sort(), [
    `${P}/makemd/query/`,
    `${P}/makemd/spaces/`,
    `${P}/probe/`,
    `${P}/quickadd/choices/`,
    `${P}/quickadd/execute/`,
    `${P}/templater/create/`,
    `${P}/templater/templates/`,
  ]);
});

test("unloading the companion unregisters its routes", async () => {
  const { rest, plugin } = await loadedCompanion();
  plugin.unload();
  assert.equal(rest.unregistered, true);
  assert.equal(rest.routes.size, 0);
});

test("without the Local REST API no route is added and a notice says why once the layout is ready", async () => {
  const { app } = makeApp({ restApi: false });
  const Companion = loadCompanion();
  const plugin = new Companion(app, manifest);
  await plugin.onload();
  const before = notices.length;
  for (const cb of app.workspace.readyCallbacks) cb();
  assert.equal(notices.length, before + 1);
  assert.match(notices.at(-1), /Local REST API/);
});

test("probe reports the companion and each watched plugin with its version", async () => {
  const { rest } = await loadedCompanion({ makemd: false });
  const res = await rest.call("get", `${P}/probe/`);
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.body.companion, { id: "vaultgate-companion", version: "0.1.0", apiVersion: 1 });
  assert.deepEqual(res.body.plugins["templater-obsidian"], { installed: true, version: "2.9.1" });
  assert.deepEqual(res.body.plugins.quickadd, { installed: true, version: "1.11.0" });
  assert.deepEqual(res.body.plugins["make-md"], { installed: false, version: null });
  assert.ok(res.body.routes.includes(`post ${P}/templater/create/`));
});

test("templates lists the markdown files under Templater's templates folder", async () => {
  const { rest } = await loadedCompanion();
  const res = await rest.call("get", `${P}/templater/templates/`);
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.body, {
    folder: "Templates",
    templates: [
      { path: "Templates/Daily.md", name: "Daily" },
      { path: "Templates/Meeting/Agenda.md", name: "Meeting/Agenda" },
    ],
  });
});

test("create makes a note from a template through Templater's own function", async () => {
  const { rest, calls } = await loadedCompanion();
  const res = await rest.call("post", `${P}/templater/create/`, {
    template: "Templates/Daily.md",
    folder: "Notes",
    filename: "2026-11-28",
  });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.body, { path: "Notes/2026-11-28.md", template: "Templates/Daily.md" });
  assert.deepEqual(calls.templater, [{ template: "Templates/Daily.md", folder: "Notes", filename: "2026-11-28", open: false }]);
});

test("create without a folder leaves the location to Templater and does not open the note", async () => {
  const { rest, calls } = await loadedCompanion();
  const res = await rest.call("post", `${P}/templater/create/`, { template: "Templates/Meeting/Agenda.md" });
  assert.equal(res.statusCode, 200);
  assert.equal(res.body.path, "Untitled.md");
  assert.deepEqual(calls.templater, [{ template: "Templates/Meeting/Agenda.md", folder: undefined, filename: undefined, open: false }]);
});

test("create with the root as folder (\"\" or \"/\") makes the note in the root, not Obsidian's default location", async () => {
  const { rest, calls } = await loadedCompanion({ newNoteFolder: "Notes" });
  for (const folder of ["", "/"]) {
    const res = await rest.call("post", `${P}/templater/create/`, { template: "Templates/Daily.md", folder, filename: "Root" });
    assert.equal(res.statusCode, 200);
    assert.equal(res.body.path, "Root.md");
  }
  assert.deepEqual(calls.templater.map((call) => call.folder), ["/", "/"]);
  const absent = await rest.call("post", `${P}/templater/create/`, { template: "Templates/Daily.md", filename: "Default" });
  assert.equal(absent.body.path, "Notes/Default.md"); // no folder at all: Templater's default location, as before
});

test("create with an unknown template is template_not_found and Templater is not called", async () => {
  const { rest, calls } = await loadedCompanion();
  const res = await rest.call("post", `${P}/templater/create/`, { template: "Templates/Nope.md" });
  assert.equal(res.statusCode, 404);
  assert.equal(res.body.error, "template_not_found");
  assert.equal(typeof res.body.errorCode, "number");
  assert.equal(calls.templater.length, 0);
});

test("create without a template is bad_request", async () => {
  const { rest } = await loadedCompanion();
  const res = await rest.call("post", `${P}/templater/create/`, { folder: 3 });
  assert.equal(res.statusCode, 400);
  assert.equal(res.body.error, "bad_request");
});

test("a template that throws inside Templater answers plugin_failed with its message", async () => {
  const { rest } = await loadedCompanion();
  const res = await rest.call("post", `${P}/templater/create/`, { template: "Templates/Daily.md", filename: "explode" });
  assert.equal(res.statusCode, 500);
  assert.equal(res.body.error, "plugin_failed");
  assert.match(res.body.message, /line 3/);
});

test("Templater routes answer plugin_missing naming the plugin when Templater is absent", async () => {
  const { rest } = await loadedCompanion({ templater: false });
  for (const [method, route] of [["get", "templates"], ["post", "create"]]) {
    const res = await rest.call(method, `${P}/templater/${route}/`, { template: "Templates/Daily.md" });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(
      { error: res.body.error, plugin: res.body.plugin, hasMessage: typeof res.body.message === "string" },
      { error: "plugin_missing", plugin: "templater-obsidian", hasMessage: true },
    );
  }
});

test("Templater without create_new_note_from_template is plugin_incompatible", async () => {
  const { app, rest } = await loadedCompanion();
  delete app.plugins.plugins["templater-obsidian"].templater;
  const res = await rest.call("post", `${P}/templater/create/`, { template: "Templates/Daily.md" });
  assert.equal(res.statusCode, 501);
  assert.equal(res.body.error, "plugin_incompatible");
});

test("QuickAdd choices are listed flat with their Multi parent", async () => {
  const { rest } = await loadedCompanion();
  const res = await rest.call("get", `${P}/quickadd/choices/`);
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.body.choices, [
    { id: "c1", name: "Log idea", type: "Capture", parent: null },
    { id: "m1", name: "Work", type: "Multi", parent: null },
    { id: "t1", name: "New project", type: "Template", parent: "Work" },
  ]);
});

test("execute runs a choice through QuickAdd's API with its variables", async () => {
  const { rest, calls } = await loadedCompanion();
  const res = await rest.call("post", `${P}/quickadd/execute/`, { choice: "New project", variables: { title: "Beta" } });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.body, { choice: "New project", executed: true });
  assert.deepEqual(calls.quickadd, [{ name: "New project", variables: { title: "Beta" } }]);
});

test("execute of an unknown choice or a Multi is choice_not_found and nothing runs", async () => {
  const { rest, calls } = await loadedCompanion();
  for (const choice of ["Nope", "Work"]) {
    const res = await rest.call("post", `${P}/quickadd/execute/`, { choice });
    assert.equal(res.statusCode, 404);
    assert.equal(res.body.error, "choice_not_found");
  }
  assert.equal(calls.quickadd.length, 0);
});

test("execute with non-string variables is bad_request", async () => {
  const { rest } = await loadedCompanion();
  const res = await rest.call("post", `${P}/quickadd/execute/`, { choice: "Log idea", variables: { n: 1 } });
  assert.equal(res.statusCode, 400);
  assert.equal(res.body.error, "bad_request");
});

test("QuickAdd routes answer plugin_missing when QuickAdd is absent", async () => {
  const { rest } = await loadedCompanion({ quickadd: false });
  const res = await rest.call("get", `${P}/quickadd/choices/`);
  assert.equal(res.statusCode, 404);
  assert.equal(res.body.error, "plugin_missing");
  assert.equal(res.body.plugin, "quickadd");
});

test("make.md spaces are listed from its spaces index, sorted by path", async () => {
  const { rest } = await loadedCompanion();
  const res = await rest.call("get", `${P}/makemd/spaces/`);
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.body.spaces.map((s) => s.path), ["#work", "Notes", "Projects"]);
});

test("make.md query filters spaces by text and type with a limit", async () => {
  const { rest } = await loadedCompanion();
  const res = await rest.call("post", `${P}/makemd/query/`, { text: "o", type: "folder", limit: 1 });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.body, { spaces: [{ path: "Notes", name: "Notes", type: "folder" }], truncated: true });
});

test("make.md without a spaces index is plugin_incompatible; without make.md plugin_missing", async () => {
  const { app, rest } = await loadedCompanion();
  delete app.plugins.plugins["make-md"].superstate;
  let res = await rest.call("post", `${P}/makemd/query/`, {});
  assert.equal(res.statusCode, 501);
  assert.equal(res.body.error, "plugin_incompatible");
  delete app.plugins.plugins["make-md"];
  res = await rest.call("get", `${P}/makemd/spaces/`);
  assert.equal(res.statusCode, 404);
  assert.equal(res.body.plugin, "make-md");
});

test("a body that arrives as text or bytes is parsed as JSON; text that is not JSON is bad_request", async () => {
  const { rest, calls } = await loadedCompanion();
  const text = JSON.stringify({ choice: "Log idea" });
  assert.equal((await rest.call("post", `${P}/quickadd/execute/`, text)).statusCode, 200);
  assert.equal((await rest.call("post", `${P}/quickadd/execute/`, Buffer.from(text))).statusCode, 200);
  const res = await rest.call("post", `${P}/quickadd/execute/`, "choice=Log idea");
  assert.equal(res.statusCode, 400);
  assert.equal(res.body.error, "bad_request");
  assert.equal(calls.quickadd.length, 2);
});
