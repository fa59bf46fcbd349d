// Writes openapi/v1.json from openapi/v1.yaml (the source), or with --check fails when the JSON is out of date.
// The server serves the JSON: parsing the YAML cost about 85 ms of every start.
import { readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'yaml';

const yamlFile = new URL('../openapi/v1.yaml', import.meta.url);
const jsonFile = new URL('../openapi/v1.json', import.meta.url);

const expected = `${JSON.stringify(parse(readFileSync(yamlFile, 'utf8')), null, 2)}\n`;

if (process.argv.includes('--check')) {
  let actual = '';
  try {
    actual = readFileSync(jsonFile, 'utf8');
  } catch {
    // missing: reported below like any other difference
  }
  if (actual !== expected) {
    process.stderr.write(
      'openapi/v1.json is out of date with openapi/v1.yaml; run `npm run openapi:types`.\n',
    );
    process.exit(1);
  }
} else {
  writeFileSync(jsonFile, expected);
}
