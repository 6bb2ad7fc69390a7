// Regenerates src/api/schema.ts from openapi.json (the document `python -m finrpa.api --openapi` writes).
// Fields with defaults stay optional in request bodies; the recursive AuditValue (any JSON value) becomes
// `unknown`, because TypeScript cannot write a union that indexes itself.
import { writeFileSync } from "node:fs";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";

const UNKNOWN = ts.factory.createKeywordTypeNode(ts.SyntaxKind.UnknownKeyword);
const RECURSIVE = new Set(["#/components/schemas/AuditValue"]);

const ast = await openapiTS(new URL("../openapi.json", import.meta.url), {
  defaultNonNullable: false,
  transform(_schema, metadata) {
    return RECURSIVE.has(metadata.path ?? "") ? UNKNOWN : undefined;
  },
});
const banner = "/**\n * Generated from web/openapi.json by `npm run gen:api` (scripts/gen-api.mjs). Do not edit.\n */\n\n";
const target = new URL("../src/api/schema.ts", import.meta.url);
writeFileSync(target, banner + astToString(ast));
console.log(`wrote ${target.pathname}`);
