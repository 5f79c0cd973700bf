// Where the generated API types say `unknown` (tests/web/test_client_types.py): the
// path of names down to each `unknown` keyword of the .d.ts given, as JSON. Run with
// the `typescript` package of tools/js: node unknowns.mjs TYPESCRIPT_JS FILE.D.TS
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const [typescript, file] = process.argv.slice(2);
const ts = createRequire(import.meta.url)(typescript);
const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest,
  true);
const found = [];

function visit(node, path) {
  let here = path;
  if ((ts.isPropertySignature(node) || ts.isInterfaceDeclaration(node)
    || ts.isTypeAliasDeclaration(node)) && node.name) {
    here = [...path, node.name.getText(source).replace(/^["']|["']$/g, "")];
  } else if (ts.isIndexSignatureDeclaration(node)) {
    here = [...path, `[${node.parameters[0].name.getText(source)}]`];
  }
  if (node.kind === ts.SyntaxKind.UnknownKeyword) found.push(here.join("."));
  ts.forEachChild(node, (child) => visit(child, here));
}

visit(source, []);
process.stdout.write(JSON.stringify(found));
