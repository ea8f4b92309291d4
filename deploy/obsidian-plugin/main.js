"use strict";
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __commonJS = (cb, mod) => function __require() {
  return mod || (0, cb[__getOwnPropNames(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports;
};
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));
var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);

// node_modules/obsidian-local-rest-api/publicApi.js
var require_publicApi = __commonJS({
  "node_modules/obsidian-local-rest-api/publicApi.js"(exports2) {
    "use strict";
    Object.defineProperty(exports2, "__esModule", { value: true });
    exports2.ApiVersionUnsupportedError = exports2.LOCAL_REST_API_PLUGIN_ID = void 0;
    exports2.getAPI = getAPI2;
    exports2.LOCAL_REST_API_PLUGIN_ID = "obsidian-local-rest-api";
    var ApiVersionUnsupportedError = class extends Error {
      constructor(requestedVersion, availableVersion) {
        super(`Obsidian Local REST API does not support API version ${requestedVersion}. The installed plugin supports API version ${availableVersion}.`);
        this.requestedVersion = requestedVersion;
        this.availableVersion = availableVersion;
        this.name = "ApiVersionUnsupportedError";
      }
    };
    exports2.ApiVersionUnsupportedError = ApiVersionUnsupportedError;
    function getAPI2(app, manifest, version) {
      const plugin = app.plugins?.plugins?.[exports2.LOCAL_REST_API_PLUGIN_ID];
      if (!plugin)
        return void 0;
      const api = plugin.getPublicApi(manifest);
      if (version !== void 0) {
        const availableVersion = api.apiVersion ?? 1;
        if (availableVersion < version) {
          throw new ApiVersionUnsupportedError(version, availableVersion);
        }
      }
      return api;
    }
  }
});

// src/main.ts
var main_exports = {};
__export(main_exports, {
  default: () => VaultgateCompanion
});
module.exports = __toCommonJS(main_exports);
var import_obsidian = require("obsidian");
var import_obsidian_local_rest_api = __toESM(require_publicApi());

// src/routes.ts
var ROUTE_PREFIX = "/vaultgate/v1";
var TEMPLATER_ID = "templater-obsidian";
var QUICKADD_ID = "quickadd";
var MAKEMD_ID = "make-md";
var WATCHED_PLUGINS = [TEMPLATER_ID, QUICKADD_ID, MAKEMD_ID];
var RouteError = class extends Error {
  constructor(status, errorCode, error, message, plugin) {
    super(message);
    this.status = status;
    this.errorCode = errorCode;
    this.error = error;
    this.plugin = plugin;
  }
};
function missing(plugin) {
  return new RouteError(404, 40460, "plugin_missing", `${plugin} is not installed or not enabled`, plugin);
}
function incompatible(plugin, what) {
  return new RouteError(501, 50160, "plugin_incompatible", `${plugin} does not expose ${what}`, plugin);
}
function badRequest(message) {
  return new RouteError(400, 40060, "bad_request", message);
}
function enabledPlugin(app, id) {
  const plugin = app?.plugins?.plugins?.[id];
  if (!plugin) throw missing(id);
  return plugin;
}
function pluginVersion(app, id) {
  const plugin = app?.plugins?.plugins?.[id];
  if (!plugin) return null;
  return plugin.manifest?.version ?? app?.plugins?.manifests?.[id]?.version ?? "unknown";
}
function bodyObject(req) {
  let body = req.body;
  if (body instanceof Uint8Array) body = new TextDecoder().decode(body);
  if (typeof body === "string" && body.trim() !== "") {
    try {
      body = JSON.parse(body);
    } catch {
      throw badRequest("the body is not JSON");
    }
  }
  if (body === void 0 || body === null || body === "") return {};
  if (typeof body !== "object" || Array.isArray(body)) throw badRequest("the body must be a JSON object");
  return body;
}
function optionalString(body, key) {
  const value = body[key];
  if (value === void 0 || value === null) return void 0;
  if (typeof value !== "string") throw badRequest(`${key} must be a string`);
  return value;
}
function requiredString(body, key) {
  const value = optionalString(body, key);
  if (value === void 0 || value === "") throw badRequest(`${key} is required`);
  return value;
}
function normaliseFolder(folder) {
  return folder.replace(/^\/+|\/+$/g, "");
}
function probe(app, companionVersion) {
  const plugins = {};
  for (const id of WATCHED_PLUGINS) {
    const version = pluginVersion(app, id);
    plugins[id] = { installed: version !== null, version };
  }
  return {
    companion: { id: "vaultgate-companion", version: companionVersion, apiVersion: 1 },
    plugins,
    routes: ROUTES.map((route) => `${route.method} ${ROUTE_PREFIX}${route.path}`)
  };
}
function templatesFolder(plugin) {
  const folder = plugin.settings?.templates_folder;
  if (typeof folder !== "string") throw incompatible(TEMPLATER_ID, "settings.templates_folder");
  return normaliseFolder(folder);
}
function listTemplates(app) {
  const plugin = enabledPlugin(app, TEMPLATER_ID);
  const folder = templatesFolder(plugin);
  const files = app.vault?.getMarkdownFiles?.() ?? [];
  const prefix = folder === "" ? "" : `${folder}/`;
  const templates = files.map((file) => String(file.path)).filter((path) => path.startsWith(prefix)).sort().map((path) => ({ path, name: path.slice(prefix.length).replace(/\.md$/, "") }));
  return { folder, templates };
}
async function createFromTemplate(app, body) {
  const plugin = enabledPlugin(app, TEMPLATER_ID);
  const create = plugin.templater?.create_new_note_from_template;
  if (typeof create !== "function") throw incompatible(TEMPLATER_ID, "templater.create_new_note_from_template");
  const templatePath = requiredString(body, "template");
  const folder = optionalString(body, "folder");
  const filename = optionalString(body, "filename");
  const open = body.open === true;
  const template = app.vault?.getAbstractFileByPath?.(templatePath);
  if (!template || template.children !== void 0) {
    throw new RouteError(404, 40461, "template_not_found", `no template file at ${templatePath}`);
  }
  const where = folder !== void 0 && normaliseFolder(folder) === "" ? "/" : folder;
  const created = await create.call(plugin.templater, template, where, filename, open);
  if (!created || typeof created.path !== "string") {
    throw new RouteError(500, 50061, "plugin_failed", "Templater did not create a note (see Obsidian's console)", TEMPLATER_ID);
  }
  return { path: created.path, template: templatePath };
}
function flattenChoices(choices, parent, out) {
  for (const choice of choices) {
    if (!choice || typeof choice.name !== "string") continue;
    out.push({ id: String(choice.id ?? ""), name: choice.name, type: String(choice.type ?? ""), parent });
    if (Array.isArray(choice.choices)) flattenChoices(choice.choices, choice.name, out);
  }
}
function quickAddChoices(plugin) {
  const choices = plugin.settings?.choices;
  if (!Array.isArray(choices)) throw incompatible(QUICKADD_ID, "settings.choices");
  const out = [];
  flattenChoices(choices, null, out);
  return out;
}
function listChoices(app) {
  const plugin = enabledPlugin(app, QUICKADD_ID);
  return { choices: quickAddChoices(plugin) };
}
async function executeChoice(app, body) {
  const plugin = enabledPlugin(app, QUICKADD_ID);
  const run = plugin.api?.executeChoice;
  if (typeof run !== "function") throw incompatible(QUICKADD_ID, "api.executeChoice");
  const name = requiredString(body, "choice");
  const variables = body.variables ?? {};
  if (typeof variables !== "object" || variables === null || Array.isArray(variables)) {
    throw badRequest("variables must be an object of strings");
  }
  for (const [key, value] of Object.entries(variables)) {
    if (typeof value !== "string") throw badRequest(`variables.${key} must be a string`);
  }
  const known = quickAddChoices(plugin).filter((choice) => choice.type !== "Multi");
  if (!known.some((choice) => choice.name === name)) {
    throw new RouteError(404, 40462, "choice_not_found", `no QuickAdd choice named ${name}`);
  }
  await run.call(plugin.api, name, variables);
  return { choice: name, executed: true };
}
function spacesIndex(app) {
  const plugin = enabledPlugin(app, MAKEMD_ID);
  const index = plugin.superstate?.spacesIndex;
  if (!(index instanceof Map)) throw incompatible(MAKEMD_ID, "superstate.spacesIndex (its in-memory spaces index)");
  return index;
}
function describeSpace(path, space) {
  return {
    path,
    name: String(space?.name ?? path.split("/").pop() ?? path),
    type: String(space?.type ?? "folder")
  };
}
function listSpaces(app) {
  const index = spacesIndex(app);
  const spaces = [...index.entries()].map(([path, space]) => describeSpace(path, space));
  spaces.sort((a, b) => a.path.localeCompare(b.path));
  return { spaces };
}
function querySpaces(app, body) {
  const index = spacesIndex(app);
  const text = (optionalString(body, "text") ?? "").toLowerCase();
  const type = optionalString(body, "type");
  const limit = body.limit === void 0 ? 100 : body.limit;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > 1e3) {
    throw badRequest("limit must be an integer from 1 to 1000");
  }
  const matches = [...index.entries()].map(([path, space]) => describeSpace(path, space)).filter((space) => text === "" || space.name.toLowerCase().includes(text) || space.path.toLowerCase().includes(text)).filter((space) => type === void 0 || space.type === type).sort((a, b) => a.path.localeCompare(b.path));
  return { spaces: matches.slice(0, limit), truncated: matches.length > limit };
}
var ROUTES = [
  { method: "get", path: "/probe/", handler: (app, _req, version) => probe(app, version) },
  { method: "get", path: "/templater/templates/", handler: (app) => listTemplates(app) },
  { method: "post", path: "/templater/create/", handler: (app, req) => createFromTemplate(app, bodyObject(req)) },
  { method: "get", path: "/quickadd/choices/", handler: (app) => listChoices(app) },
  { method: "post", path: "/quickadd/execute/", handler: (app, req) => executeChoice(app, bodyObject(req)) },
  { method: "get", path: "/makemd/spaces/", handler: (app) => listSpaces(app) },
  { method: "post", path: "/makemd/query/", handler: (app, req) => querySpaces(app, bodyObject(req)) }
];
async function respond(res, work) {
  try {
    const body = await work();
    res.status(200).json(body);
  } catch (err) {
    if (err instanceof RouteError) {
      const payload = { message: err.message, errorCode: err.errorCode, error: err.error };
      if (err.plugin !== void 0) payload.plugin = err.plugin;
      res.status(err.status).json(payload);
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    res.status(500).json({ message: `plugin call failed: ${message}`, errorCode: 50062, error: "plugin_failed" });
  }
}
function registerRoutes(api, app, version) {
  for (const route of ROUTES) {
    api.addRoute(`${ROUTE_PREFIX}${route.path}`)[route.method](
      (req, res) => respond(res, () => route.handler(app, req, version))
    );
  }
}

// src/main.ts
var VaultgateCompanion = class extends import_obsidian.Plugin {
  async onload() {
    this.register(() => this.api?.unregister());
    if (!this.tryRegister()) {
      this.app.workspace.onLayoutReady(() => {
        if (!this.tryRegister()) {
          new import_obsidian.Notice("vaultgate companion: the Local REST API plugin is not enabled; no routes added.");
        }
      });
    }
  }
  tryRegister() {
    if (this.api) return true;
    const api = (0, import_obsidian_local_rest_api.getAPI)(this.app, this.manifest);
    if (!api) return false;
    registerRoutes(api, this.app, this.manifest.version);
    this.api = api;
    return true;
  }
};
