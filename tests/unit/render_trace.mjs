// Renders ui/trace.tsx's resin_trace with the props read from stdin; the HTML goes to stdout.
// Usage: node render_trace.mjs SCRATCH_DIR < props.json (SCRATCH_DIR inside the repository, so
// that the bundled file's imports of react resolve to its node_modules).
import { build } from "esbuild";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";

const root = fileURLToPath(new URL("../../", import.meta.url));
const out = join(process.argv[2], "trace.mjs");
await build({
  entryPoints: [join(root, "ui", "trace.tsx")],
  outfile: out,
  bundle: true,
  format: "esm",
  platform: "node",
  jsx: "automatic",
  external: ["react"],
  logLevel: "error",
});
const components = (await import(pathToFileURL(out).href)).default;
const props = JSON.parse(readFileSync(0, "utf-8"));
process.stdout.write(renderToStaticMarkup(createElement(components.resin_trace, props)));
