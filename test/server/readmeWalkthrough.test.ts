// The README's first steps are commands a newcomer pastes: run exactly those blocks against a
// freshly started sandbox, so the walkthrough cannot drift from the service.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireTools } from '../support/tools.js';
import { ROOT, startServer, tempDir } from '../support/processes.js';

const SECTION_START = '## First steps';

/** The shell blocks of the README's first-steps section, in order. */
function walkthroughBlocks(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(SECTION_START);
  const end = readme.indexOf('\n## ', start + SECTION_START.length);
  const section = readme.slice(start, end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

describe('README walkthrough', () => {
  it('every command of the first steps works, in order, against a fresh sandbox', { timeout: 180_000 }, async (context) => {
    requireTools(context, 'bash', 'curl', 'jq', 'unzip');
    const data = tempDir();
    const work = tempDir('fiscal-readme-');
    const server = await startServer({ DATA_DIR: data.path });
    try {
      const apiKey = /svc_test_deu_[0-9A-Za-z]+/.exec(server.stdout())![0];
      const blocks = walkthroughBlocks();
      expect(blocks.length).toBeGreaterThanOrEqual(8);
      // The first block sets KEY and BASE; point them at this server and its printed key.
      const first = blocks[0]!
        .replace(/^export KEY=.*$/m, `export KEY=${apiKey}`)
        .replace(/^BASE=.*$/m, `BASE=${server.url}`);
      expect(first).toContain(apiKey);
      expect(first).toContain(server.url);
      const script = ['set -euo pipefail', first, ...blocks.slice(1)].join('\n');

      const run = spawnSync('bash', ['-c', script], { cwd: work.path, encoding: 'utf8', timeout: 150_000 });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(run.stdout).toContain('"fiscalization_status": "fiscalized"');
      expect(run.stdout).toContain('"status": "completed"');
      expect(run.stdout).toMatch(/"qr_data": "V0;/);
      expect(run.stdout).toContain('"closing_cashcount_diff": "0.00"');
      expect(run.stdout).toContain('"expected_closing_amount": "106.00"');
      expect(run.stdout).toMatch(/index\.xml[\s\S]*transactions_tse\.csv/);
      expect(readFileSync(join(work.path, 'receipt.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
    } finally {
      expect(await server.stop()).toBe(0);
      data.remove();
      work.remove();
    }
  });
});
