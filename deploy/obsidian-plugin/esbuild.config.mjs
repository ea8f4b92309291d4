// Builds src/main.ts into main.js (CommonJS, the form Obsidian loads). "obsidian" is provided
// by the app at run time and stays external; the Local REST API's getAPI helper is bundled.
// An optional argument names another output file (the tests build to a temporary one).
import esbuild from "esbuild";

await esbuild.build({
  entryPoints: ["src/main.ts"],
  bundle: true,
  external: ["obsidian", "electron"],
  format: "cjs",
  platform: "node",
  target: "es2020",
  logLevel: "warning",
  legalComments: "none",
  outfile: process.argv[2] ?? "main.js",
});
