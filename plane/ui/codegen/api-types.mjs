// Writes app/src/generated/openapi.d.ts, the app's types of the REST API, from the plane's OpenAPI
// document (which the plane generates from its route table). Run it after changing the API:
//
//   cargo build -p termplane && npm run --prefix plane/ui api-types
//
// The document comes from `termplane openapi` run with the plane binary: TERMPLANE_BIN, or
// target/debug/termplane of this repository. `--document FILE` reads a saved document instead.
// `--check` writes nothing: it fails, saying how to regenerate, when the committed file is not
// what the document gives (the browser suite runs it so).

import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import openapiTS, { astToString, NEVER, STRING, tsRecord } from "openapi-typescript";

const HERE = dirname(fileURLToPath(import.meta.url));
const UI = resolve(HERE, "..");
const ROOT = resolve(UI, "../..");
export const OUTPUT = resolve(UI, "app/src/generated/openapi.d.ts");
export const REGENERATE = "cargo build -p termplane && npm run --prefix plane/ui api-types";

const HEADER = `// The REST API's types, generated from the plane's OpenAPI document by openapi-typescript.
// Do not edit: regenerate with \`${REGENERATE}\`.
// The app names its types through types.ts and calls the API through api.ts.

`;

/** The document as the plane binary prints it (`termplane openapi`). */
async function documentFromBinary() {
  const bin = resolve(ROOT, process.env.TERMPLANE_BIN ?? "target/debug/termplane");
  // No APP_BASE_URL: the document names the default address, and the types do not depend on it.
  const env = { ...process.env };
  delete env.APP_BASE_URL;
  try {
    const { stdout } = await promisify(execFile)(bin, ["openapi"], { env, maxBuffer: 64 << 20 });
    return stdout;
  } catch (e) {
    throw new Error(`cannot get the OpenAPI document from ${bin} (build it with \`cargo build -p termplane\`, or set TERMPLANE_BIN): ${e.message}`);
  }
}

/** The text of schema.d.ts for the document `text` (JSON). */
export async function generate(text) {
  const ast = await openapiTS(JSON.parse(text), {
    silent: true,
    // A field with a default may be left out of a request: it is optional, not required.
    defaultNonNullable: false,
    // `{"type": "object"}` is any object (a WebAuthn credential's parts, say) ...
    emptyObjectsUnknown: true,
    // ... but one that allows no property at all is the empty object.
    transform(schema) {
      const closed = schema.type === "object" && schema.additionalProperties === false;
      if (closed && !schema.properties && !schema.patternProperties) return tsRecord(STRING, NEVER);
      return undefined;
    },
  });
  return HEADER + astToString(ast);
}

async function main(args) {
  const check = args.includes("--check");
  const at = args.indexOf("--document");
  const doc = at >= 0 ? await readFile(resolve(args[at + 1] ?? ""), "utf8") : await documentFromBinary();
  const fresh = await generate(doc);
  const name = relative(process.cwd(), OUTPUT);
  if (!check) {
    await writeFile(OUTPUT, fresh);
    console.log(`wrote ${name}`);
    return 0;
  }
  const committed = await readFile(OUTPUT, "utf8").catch(() => "");
  if (committed === fresh) return 0;
  const a = committed.split("\n");
  const b = fresh.split("\n");
  let line = 0;
  while (line < a.length && line < b.length && a[line] === b[line]) line += 1;
  const show = (l) => (l === undefined ? "(the end)" : JSON.stringify(l));
  console.error(
    `${name} is not what the plane's OpenAPI document gives; first difference at line ${line + 1}:\n` +
      `  committed: ${show(a[line])}\n  generated: ${show(b[line])}\n` +
      `Regenerate it with \`${REGENERATE}\` and commit it.`,
  );
  return 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      console.error(e.message ?? e);
      process.exit(2);
    },
  );
}
