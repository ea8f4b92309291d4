// Drives vaultgate with the official TypeScript MCP client (@modelcontextprotocol/sdk, pinned in
// package.json), the way a TypeScript agent does: connect, list the tools (which arms the client's
// output-schema validation), then call tools. Run with the pinned Node:
//
//   node ts_client.mjs '<plan as JSON>'
//
// plan: {"transport": "http", "url": "...", "headers": {...}}
//    or {"transport": "stdio", "command": "...", "args": [...], "env": {...}}
//   plus "calls": [{"name": "...", "arguments": {...}}, ...]
// Prints one JSON object: {"tools": [names], "results": [{"result": CallToolResult} or
// {"thrown": {"name", "code", "message"}}]} — "thrown" is what the client raised instead of
// returning the result (e.g. its output-schema check failing).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const plan = JSON.parse(process.argv[2]);

function transportFor(plan) {
  if (plan.transport === "http") {
    return new StreamableHTTPClientTransport(new URL(plan.url), { requestInit: { headers: plan.headers ?? {} } });
  }
  if (plan.transport === "stdio") {
    return new StdioClientTransport({
      command: plan.command,
      args: plan.args ?? [],
      env: { ...getDefaultEnvironment(), ...(plan.env ?? {}) },
      stderr: "ignore",
    });
  }
  throw new Error(`unknown transport ${plan.transport}`);
}

const client = new Client({ name: "vaultgate-interop-test", version: "1.0.0" });
await client.connect(transportFor(plan));
try {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...page.tools.map((t) => t.name));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  const results = [];
  for (const call of plan.calls ?? []) {
    try {
      results.push({ result: await client.callTool({ name: call.name, arguments: call.arguments ?? {} }) });
    } catch (error) {
      results.push({ thrown: { name: error?.name, code: error?.code, message: String(error?.message ?? error) } });
    }
  }
  process.stdout.write(JSON.stringify({ tools, results }) + "\n");
} finally {
  await client.close();
}
