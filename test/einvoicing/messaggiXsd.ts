// The SdI's official schema of its notification files, MessaggiTypes_v1.1.xsd, read from
// ../shared (a third-party file, never copied into the repository), with the XML-DSig schema it
// imports resolved locally.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateXML } from 'xmllint-wasm';

const XSD_DIR = '../shared/reference/xsd/fatturapa';
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
