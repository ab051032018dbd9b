// The examples the manuals mark `sh runnable` are commands a reader pastes: run exactly those
// blocks against a freshly started sandbox, so they cannot drift from the service. A file's
// blocks run in order in one shell (a later block may use what an earlier one set), with KEY
// (the sandbox key the server prints), BASE and ADMIN_TOKEN in the environment.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireTools } from '../support/tools.js';
import { ROOT, startServer, tempDir, type ChildServer } from '../support/processes.js';

const ADMIN_TOKEN = 'admin-token-0123456789';

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** The blocks whose info string is exactly `sh runnable`, in order. */
function runnableBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh runnable\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

const FILES = [join(ROOT, 'README.md'), ...markdownFiles(join(ROOT, 'docs'))].map((path) => ({
  file: relative(ROOT, path),
  blocks: runnableBlocks(readFileSync(path, 'utf8')),
}));
const WITH_BLOCKS = FILES.filter((entry) => entry.blocks.length > 0);

describe('runnable blocks of the manuals', () => {
  let server: ChildServer | undefined;
  let apiKey = '';
  const data = tempDir();

  beforeAll(async () => {
    server = await startServer({ DATA_DIR: data.path, ADMIN_TOKEN });
    apiKey = /svc_test_deu_[0-9A-Za-z]+/.exec(server.stdout())![0];
  }, 90_000);
  afterAll(async () => {
    if (server) expect(await server.stop()).toBe(0);
    data.remove();
  });

  it('finds runnable blocks in the README and in several docs files', () => {
    expect(WITH_BLOCKS.map((entry) => entry.file)).toContain('README.md');
    expect(WITH_BLOCKS.length).toBeGreaterThanOrEqual(5);
    // Only the exact info string counts; a near miss would silently never run.
    for (const { file } of FILES) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      const infoStrings = [...text.matchAll(/^```(\S.*)$/gm)].map((match) => match[1]!);
      for (const info of infoStrings.filter((value) => value.includes('runnable'))) expect(info, file).toBe('sh runnable');
    }
  });

  it.for(WITH_BLOCKS)('$file: every runnable block works, in order, against a fresh sandbox', { timeout: 120_000 }, ({ blocks }, context) => {
    requireTools(context, 'bash', 'curl', 'jq');
    const work = tempDir('fiscal-docs-');
    try {
      const script = ['set -euo pipefail', ...blocks].join('\n');
      const run = spawnSync('bash', ['-c', script], {
        cwd: work.path,
        encoding: 'utf8',
        timeout: 100_000,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, KEY: apiKey, BASE: server!.url, ADMIN_TOKEN },
      });
      expect(run.stderr, run.stdout).toBe('');
      expect(run.status, run.stdout).toBe(0);
    } finally {
      work.remove();
    }
  });
});
