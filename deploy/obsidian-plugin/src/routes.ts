/**
 * The companion's /vaultgate/v1 routes. Everything here talks to Obsidian only through the
 * `app` object handed in, so the module runs under Node against a stand-in app in the tests.
 *
 * Errors follow the Local REST API's shape, `{message, errorCode}`, plus `error` (the stable
 * vaultgate code: plugin_missing, plugin_incompatible, bad_request, plugin_failed) and, where it
 * applies, `plugin` (the community plugin's id).
 */

export const ROUTE_PREFIX = "/vaultgate/v1";
export const TEMPLATER_ID = "templater-obsidian";
export const QUICKADD_ID = "quickadd";
export const MAKEMD_ID = "make-md";
export const WATCHED_PLUGINS = [TEMPLATER_ID, QUICKADD_ID, MAKEMD_ID];

/* eslint-disable @typescript-eslint/no-explicit-any */
export type AnyApp = any;

export interface Res {
  status(code: number): Res;
  json(body: unknown): unknown;
}

export interface Req {
  body?: unknown;
  query?: Record<string, unknown>;
}

export interface RouteApi {
  addRoute(path: string): any;
}

export class RouteError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: number,
    readonly error: string,
    message: string,
    readonly plugin?: string,
  ) {
    super(message);
  }
}

function missing(plugin: string): RouteError {
  return new RouteError(404, 40460, "plugin_missing", `${plugin} is not installed or not enabled`, plugin);
}

function incompatible(plugin: string, what: string): RouteError {
  return new RouteError(501, 50160, "plugin_incompatible", `${plugin} does not expose ${what}`, plugin);
}

function badRequest(message: string): RouteError {
  return new RouteError(400, 40060, "bad_request", message);
}

function enabledPlugin(app: AnyApp, id: string): any {
  const plugin = app?.plugins?.plugins?.[id];
  if (!plugin) throw missing(id);
  return plugin;
}

function pluginVersion(app: AnyApp, id: string): string | null {
  const plugin = app?.plugins?.plugins?.[id];
  if (!plugin) return null;
  return plugin.manifest?.version ?? app?.plugins?.manifests?.[id]?.version ?? "unknown";
}

function bodyObject(req: Req): Record<string, unknown> {
  // The host's body parsers decide what arrives: parsed JSON, or a string / bytes when the
  // client sent another content type. Accept all three; anything else is a bad request.
  let body = req.body;
  if (body instanceof Uint8Array) body = new TextDecoder().decode(body);
  if (typeof body === "string" && body.trim() !== "") {
    try {
      body = JSON.parse(body);
    } catch {
      throw badRequest("the body is not JSON");
    }
  }
  if (body === undefined || body === null || body === "") return {};
  if (typeof body !== "object" || Array.isArray(body)) throw badRequest("the body must be a JSON object");
  return body as Record<string, unknown>;
}

function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw badRequest(`${key} must be a string`);
  return value;
}

function requiredString(body: Record<string, unknown>, key: string): string {
  const value = optionalString(body, key);
  if (value === undefined || value === "") throw badRequest(`${key} is required`);
  return value;
}

function normaliseFolder(folder: string): string {
  return folder.replace(/^\/+|\/+$/g, "");
}

// ---- probe ----

export function probe(app: AnyApp, companionVersion: string): unknown {
  const plugins: Record<string, { installed: boolean; version: string | null }> = {};
  for (const id of WATCHED_PLUGINS) {
    const version = pluginVersion(app, id);
    plugins[id] = { installed: version !== null, version };
  }
  return {
    companion: { id: "vaultgate-companion", version: companionVersion, apiVersion: 1 },
    plugins,
    routes: ROUTES.map((route) => `${route.method} ${ROUTE_PREFIX}${route.path}`),
  };
}

// ---- Templater ----

function templatesFolder(plugin: any): string {
  const folder = plugin.settings?.templates_folder;
  if (typeof folder !== "string") throw incompatible(TEMPLATER_ID, "settings.templates_folder");
  return normaliseFolder(folder);
}

export function listTemplates(app: AnyApp): unknown {
  const plugin = enabledPlugin(app, TEMPLATER_ID);
  const folder = templatesFolder(plugin);
  const files: any[] = app.vault?.getMarkdownFiles?.() ?? [];
  const prefix = folder === "" ? "" : `${folder}/`;
  const templates = files
    .map((file) => String(file.path))
    .filter((path) => path.startsWith(prefix))
    .sort()
    .map((path) => ({ path, name: path.slice(prefix.length).replace(/\.md$/, "") }));
  return { folder, templates };
}

export async function createFromTemplate(app: AnyApp, body: Record<string, unknown>): Promise<unknown> {
  const plugin = enabledPlugin(app, TEMPLATER_ID);
  const create = plugin.templater?.create_new_note_from_template;
  if (typeof create !== "function") throw incompatible(TEMPLATER_ID, "templater.create_new_note_from_template");
  const templatePath = requiredString(body, "template");
  const folder = optionalString(body, "folder");
  const filename = optionalString(body, "filename");
  const open = body.open === true;
  const template = app.vault?.getAbstractFileByPath?.(templatePath);
  if (!template || template.children !== undefined) {
    throw new RouteError(404, 40461, "template_not_found", `no template file at ${templatePath}`);
  }
  // Templater: create_new_note_from_template(template, folder?, filename?, open_new_note = true);
  // an absent folder means Templater's own default location for new notes. A folder given as ""
  // (or "/") is the vault's root, sent as "/": Templater reads a falsy folder as none given
  // (`if (!folder)`) and would put the note where Obsidian's "Default location for new notes" says.
  const where = folder !== undefined && normaliseFolder(folder) === "" ? "/" : folder;
  const created = await create.call(plugin.templater, template, where, filename, open);
  if (!created || typeof created.path !== "string") {
    throw new RouteError(500, 50061, "plugin_failed", "Templater did not create a note (see Obsidian's console)", TEMPLATER_ID);
  }
  return { path: created.path, template: templatePath };
}

// ---- QuickAdd ----

interface Choice {
  id: string;
  name: string;
  type: string;
  parent: string | null;
}

function flattenChoices(choices: any[], parent: string | null, out: Choice[]): void {
  for (const choice of choices) {
    if (!choice || typeof choice.name !== "string") continue;
    out.push({ id: String(choice.id ?? ""), name: choice.name, type: String(choice.type ?? ""), parent });
    if (Array.isArray(choice.choices)) flattenChoices(choice.choices, choice.name, out);
  }
}

function quickAddChoices(plugin: any): Choice[] {
  const choices = plugin.settings?.choices;
  if (!Array.isArray(choices)) throw incompatible(QUICKADD_ID, "settings.choices");
  const out: Choice[] = [];
  flattenChoices(choices, null, out);
  return out;
}

export function listChoices(app: AnyApp): unknown {
  const plugin = enabledPlugin(app, QUICKADD_ID);
  return { choices: quickAddChoices(plugin) };
}

export async function executeChoice(app: AnyApp, body: Record<string, unknown>): Promise<unknown> {
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

// ---- make.md ----

function spacesIndex(app: AnyApp): Map<string, any> {
  const plugin = enabledPlugin(app, MAKEMD_ID);
  const index = plugin.superstate?.spacesIndex;
  if (!(index instanceof Map)) throw incompatible(MAKEMD_ID, "superstate.spacesIndex (its in-memory spaces index)");
  return index;
}

function describeSpace(path: string, space: any): { path: string; name: string; type: string } {
  return {
    path,
    name: String(space?.name ?? path.split("/").pop() ?? path),
    type: String(space?.type ?? "folder"),
  };
}

export function listSpaces(app: AnyApp): unknown {
  const index = spacesIndex(app);
  const spaces = [...index.entries()].map(([path, space]) => describeSpace(path, space));
  spaces.sort((a, b) => a.path.localeCompare(b.path));
  return { spaces };
}

export function querySpaces(app: AnyApp, body: Record<string, unknown>): unknown {
  const index = spacesIndex(app);
  const text = (optionalString(body, "text") ?? "").toLowerCase();
  const type = optionalString(body, "type");
  const limit = body.limit === undefined ? 100 : body.limit;
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw badRequest("limit must be an integer from 1 to 1000");
  }
  const matches = [...index.entries()]
    .map(([path, space]) => describeSpace(path, space))
    .filter((space) => text === "" || space.name.toLowerCase().includes(text) || space.path.toLowerCase().includes(text))
    .filter((space) => type === undefined || space.type === type)
    .sort((a, b) => a.path.localeCompare(b.path));
  return { spaces: matches.slice(0, limit), truncated: matches.length > limit };
}

// ---- registration ----

type Handler = (app: AnyApp, req: Req, version: string) => unknown;

interface RouteSpec {
  method: "get" | "post";
  path: string;
  handler: Handler;
}

export const ROUTES: RouteSpec[] = [
  { method: "get", path: "/probe/", handler: (app, _req, version) => probe(app, version) },
  { method: "get", path: "/templater/templates/", handler: (app) => listTemplates(app) },
  { method: "post", path: "/templater/create/", handler: (app, req) => createFromTemplate(app, bodyObject(req)) },
  { method: "get", path: "/quickadd/choices/", handler: (app) => listChoices(app) },
  { method: "post", path: "/quickadd/execute/", handler: (app, req) => executeChoice(app, bodyObject(req)) },
  { method: "get", path: "/makemd/spaces/", handler: (app) => listSpaces(app) },
  { method: "post", path: "/makemd/query/", handler: (app, req) => querySpaces(app, bodyObject(req)) },
];

export async function respond(res: Res, work: () => unknown): Promise<void> {
  try {
    const body = await work();
    res.status(200).json(body);
  } catch (err) {
    if (err instanceof RouteError) {
      const payload: Record<string, unknown> = { message: err.message, errorCode: err.errorCode, error: err.error };
      if (err.plugin !== undefined) payload.plugin = err.plugin;
      res.status(err.status).json(payload);
      return;
    }
    const message = err instanceof Error ? err.message : String(err);
    res.status(500).json({ message: `plugin call failed: ${message}`, errorCode: 50062, error: "plugin_failed" });
  }
}

export function registerRoutes(api: RouteApi, app: AnyApp, version: string): void {
  for (const route of ROUTES) {
    api.addRoute(`${ROUTE_PREFIX}${route.path}`)[route.method]((req: Req, res: Res) =>
      respond(res, () => route.handler(app, req, version)),
    );
  }
}
