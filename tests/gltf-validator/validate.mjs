// Validates glTF files with the Khronos glTF-Validator (npm `gltf-validator`)
// and prints one line per file with its error, warning, info and hint
// counts, then every error and warning. Exits 1 when any file has an error.
//
//   node validate.mjs FILE.glb...
import { readFile } from "node:fs/promises";
import validator from "gltf-validator";

let failed = 0;
for (const file of process.argv.slice(2)) {
  const bytes = new Uint8Array(await readFile(file));
  const report = await validator.validateBytes(bytes, { uri: file, maxIssues: 100 });
  const i = report.issues;
  console.log(
    `${file}: ${i.numErrors} errors, ${i.numWarnings} warnings, ${i.numInfos} infos, ${i.numHints} hints`
  );
  for (const m of i.messages) {
    if (m.severity <= 1) {
      console.log(`  ${m.severity === 0 ? "error" : "warning"} ${m.code} at ${m.pointer ?? "-"}: ${m.message}`);
    }
  }
  if (i.numErrors > 0) failed++;
}
console.log(`glTF-Validator ${validator.version()}: ${failed} file(s) with errors`);
process.exit(failed ? 1 : 0);
