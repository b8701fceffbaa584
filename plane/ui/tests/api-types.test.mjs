// The app's API types (app/src/generated/openapi.d.ts) are what the plane binary's OpenAPI
// document gives today: a change to the REST API that was not followed by
// `npm run --prefix plane/ui api-types` fails here, not in a browser.
//
//   node --test plane/ui/tests/       (TERMPLANE_BIN: the plane binary, default target/debug/termplane)

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const UI = resolve(dirname(fileURLToPath(import.meta.url)), "..");

test("the committed API types are generated from the plane's current OpenAPI document", async () => {
  const { code, stdout, stderr } = await new Promise((done) => {
    execFile(process.execPath, [resolve(UI, "codegen/api-types.mjs"), "--check"], { cwd: UI }, (err, stdout, stderr) =>
      done({ code: err ? (err.code ?? 1) : 0, stdout, stderr }),
    );
  });
  assert.equal(code, 0, `${stderr}${stdout}`);
});
