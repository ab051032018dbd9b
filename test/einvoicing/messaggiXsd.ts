// The SdI's official schema of its notification files, MessaggiTypes_v1.1.xsd, read from the
// shared reference folder beside the checkout (a third-party file, never copied into the
// repository), with the XML-DSig schema it imports resolved locally.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { validateXML } from 'xmllint-wasm';

const SCHEMA_PATH = join('shared', 'reference', 'xsd', 'fatturapa');

/** shared/reference/xsd/fatturapa in the nearest folder above the checkout that has it: ../shared beside a clone, ../../shared beside a worktree under wt/. */
function schemaDirectory(): string {
  for (let dir = resolve('..'); ; dir = dirname(dir)) {
    if (existsSync(join(dir, SCHEMA_PATH, 'MessaggiTypes_v1.1.xsd'))) return join(dir, SCHEMA_PATH);
    if (dirname(dir) === dir) throw new Error(`no ${SCHEMA_PATH} above ${process.cwd()}`);
  }
}

const XSD_DIR = schemaDirectory();
const read = (name: string) => ({ fileName: name, contents: readFileSync(join(XSD_DIR, name), 'utf8') });

/** The schema's error messages for the notification files, each naming its file (`messaggio-<i>.xml`); empty when all are valid. */
export async function messaggiSchemaErrors(...xmls: string[]): Promise<string[]> {
  const result = await validateXML({
    xml: xmls.map((contents, i) => ({ fileName: `messaggio-${i}.xml`, contents })),
    schema: [read('MessaggiTypes_v1.1.xsd')],
    preload: [read('xmldsig-core-schema.xsd')],
  });
  return result.valid ? [] : result.errors.map((error) => error.rawMessage);
}
