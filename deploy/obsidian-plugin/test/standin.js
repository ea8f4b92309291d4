// A stand-in Obsidian for the companion's tests: a fake "obsidian" module (Plugin, Notice), a
// fake app whose app.plugins.plugins holds Templater, QuickAdd and make.md stubs shaped like the
// objects those plugins put there, and a fake Local REST API that records the routes the
// companion adds and lets a test call their handlers with fake req/res objects.
"use strict";
const Module = require("node:module");
const path = require("node:path");

const notices = [];
class Plugin {
  constructor(app, manifest) {
    this.app = app;
    this.manifest = manifest;
    this._cleanups = [];
  }
  register(fn) {
    this._cleanups.push(fn);
  }
  unload() {
    for (const fn of this._cleanups.splice(0)) fn();
  }
}
class Notice {
  constructor(message) {
    notices.push(message);
  }
}
const fakeObsidian = { Plugin, Notice };

const originalLoad = Module._load;
Module._load = function load(request, parent, isMain) {
  if (request === "obsidian") return fakeObsidian;
  return originalLoad.call(this, request, parent, isMain);
};

function loadCompanion() {
  const file = path.join(__dirname, "..", "main.js");
  delete require.cache[require.resolve(file)];
  const mod = require(file);
  return mod.default;
}

class FakeRestApi {
  constructor() {
    this.routes = new Map();
    this.unregistered = false;
  }
  addRoute(routePath) {
    const entry = {};
    this.routes.set(routePath, entry);
    const route = {
      get: (handler) => ((entry.get = handler), route),
      post: (handler) => ((entry.post = handler), route),
    };
    return route;
  }
  unregister() {
    this.unregistered = true;
    this.routes.clear();
  }
  async call(method, routePath, body) {
    const entry = this.routes.get(routePath);
    if (!entry || !entry[method]) throw new Error(`no ${method} route at ${routePath}`);
    const res = {
      statusCode: 0,
      body: undefined,
      status(code) {
        this.statusCode = code;
        return this;
      },
      json(value) {
        this.body = JSON.parse(JSON.stringify(value));
        return this;
      },
    };
    await entry[method]({ body, query: {} }, res);
    return res;
  }
}

function file(p) {
  return { path: p, name: p.split("/").pop() };
}

// Obsidian's normalizePath: slashes collapsed, none at either end.
function normalizePath(p) {
  return p.replace(/\/+/g, "/").replace(/^\/+|\/+$/g, "");
}

// newNoteFolder: where Obsidian's "Default location for new notes" puts a note ("" = the root),
// which Templater's create_new_note_from_template uses when its folder is falsy (`if (!folder)`).
function makeApp({ templater = true, quickadd = true, makemd = true, restApi = true, newNoteFolder = "" } = {}) {
  const files = [
    "Templates/Daily.md",
    "Templates/Meeting/Agenda.md",
    "Notes/One.md",
    "Projects/Alpha.md",
  ].map(file);
  const calls = { templater: [], quickadd: [] };
  const plugins = {};
  const rest = new FakeRestApi();
  if (restApi) {
    plugins["obsidian-local-rest-api"] = {
      manifest: { version: "3.2.0" },
      getPublicApi: () => rest,
    };
  }
  if (templater) {
    plugins["templater-obsidian"] = {
      manifest: { version: "2.9.1" },
      settings: { templates_folder: "Templates/" },
      templater: {
        async create_new_note_from_template(template, folder, filename, open) {
          calls.templater.push({ template: template.path, folder, filename, open });
          if (filename === "explode") throw new Error("template syntax error at line 3");
          const where = folder ? folder : newNoteFolder;
          return file(`${normalizePath(`${where}/${filename || "Untitled"}`)}.md`);
        },
      },
    };
  }
  if (quickadd) {
    plugins.quickadd = {
      manifest: { version: "1.11.0" },
      settings: {
        choices: [
          { id: "c1", name: "Log idea", type: "Capture" },
          { id: "m1", name: "Work", type: "Multi", choices: [{ id: "t1", name: "New project", type: "Template" }] },
        ],
      },
      api: {
        async executeChoice(name, variables) {
          calls.quickadd.push({ name, variables });
        },
      },
    };
  }
  if (makemd) {
    plugins["make-md"] = {
      manifest: { version: "1.1.0" },
      superstate: {
        spacesIndex: new Map([
          ["Projects", { name: "Projects", type: "folder" }],
          ["#work", { name: "work", type: "tag" }],
          ["Notes", { name: "Notes", type: "folder" }],
        ]),
      },
    };
  }
  const app = {
    plugins: { plugins },
    vault: {
      getMarkdownFiles: () => files,
      getAbstractFileByPath: (p) => files.find((f) => f.path === p) ?? null,
    },
    workspace: {
      readyCallbacks: [],
      onLayoutReady(cb) {
        this.readyCallbacks.push(cb);
      },
    },
  };
  return { app, rest, calls };
}

const manifest = { id: "vaultgate-companion", version: "0.1.0" };

async function loadedCompanion(options) {
  const { app, rest, calls } = makeApp(options);
  const Companion = loadCompanion();
  const plugin = new Companion(app, manifest);
  await plugin.onload();
  return { app, rest, calls, plugin };
}

module.exports = { loadCompanion, makeApp, loadedCompanion, manifest, notices, FakeRestApi };
