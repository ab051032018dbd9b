// Command-line tools some tests read the service's output with. CI (CI=true) must run those
// tests, so there a missing tool fails them (.ci/run installs the tools first); elsewhere they
// are skipped, and the skip names what to install.
import { spawnSync } from 'node:child_process';
import type { TestContext } from 'vitest';

const PACKAGE_OF_TOOL: Record<string, string> = {
  pdftotext: 'poppler-utils',
  pdftoppm: 'poppler-utils',
  pdfinfo: 'poppler-utils',
  zbarimg: 'zbar-tools',
  xmlsec1: 'xmlsec1',
  jq: 'jq',
  curl: 'curl',
  unzip: 'unzip',
};

const onPath = (tool: string): boolean => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

const inCi = (): boolean => !['', '0', 'false'].includes(process.env.CI ?? '');

/** Call first in a test that runs these tools: returns when all are installed, else fails (CI) or skips. */
export function requireTools(context: TestContext, ...tools: string[]): void {
  const missing = tools.filter((tool) => !onPath(tool));
  if (missing.length === 0) return;
  const packages = [...new Set(missing.map((tool) => PACKAGE_OF_TOOL[tool] ?? tool))];
  const reason = `${missing.join(', ')} not installed (apt-get install ${packages.join(' ')})`;
  if (inCi()) throw new Error(`${reason}; CI runs this test, so it fails without them`);
  // the skip note shows only in some reporters; stderr shows in all
  console.warn(`skipped: ${reason}`);
  context.skip(reason);
}
