// The official FatturaPA 1.2.3 schema, read from ../shared (a third-party file, never copied
// into the repository), with the XML-DSig schema it imports resolved locally.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateXML } from 'xmllint-wasm';

const XSD_DIR = '../shared/reference/xsd/fatturapa';
const read = (name: string) => ({ fileName: name, contents: readFileSync(join(XSD_DIR, name), 'utf8') });

/** The schema's error messages for the documents, each naming its file (`fattura-<i>.xml`); empty when all are valid. */
export async function fatturaPaSchemaErrors(...xmls: string[]): Promise<string[]> {
  const result = await validateXML({
    xml: xmls.map((contents, i) => ({ fileName: `fattura-${i}.xml`, contents })),
    schema: [read('Schema_VFPA12_V1.2.3.xsd')],
    preload: [read('xmldsig-core-schema.xsd')],
  });
  return result.valid ? [] : result.errors.map((error) => error.rawMessage);
}
