// The design card's fixed top level.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../support/processes.js';

describe('top level', () => {
  it.each(['package.json', 'tsconfig.json', 'docker-compose.yml', '.env.example', 'README.md'])('has the file %s', (file) => {
    expect(existsSync(join(ROOT, file))).toBe(true);
    expect(statSync(join(ROOT, file)).isFile()).toBe(true);
    expect(readFileSync(join(ROOT, file), 'utf8').length).toBeGreaterThan(0);
  });

  it.each(['prisma', 'src', 'test', 'openapi'])('has the directory %s/', (dir) => {
    expect(statSync(join(ROOT, dir)).isDirectory()).toBe(true);
  });

  it('has the schema, migrations and the committed OpenAPI document', () => {
    expect(existsSync(join(ROOT, 'prisma/schema.prisma'))).toBe(true);
    expect(existsSync(join(ROOT, 'prisma/migrations/migration_lock.toml'))).toBe(true);
    expect(JSON.parse(readFileSync(join(ROOT, 'openapi/openapi.json'), 'utf8')).info.version).toBe('1.1.0');
  });

  it('package.json has the scripts the README documents', () => {
    const scripts = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts;
    for (const script of ['start', 'test', 'db:migrate', 'admin', 'openapi', 'openapi:check']) expect(scripts).toHaveProperty([script]);
  });

  it('.env.example lists every setting the README names', () => {
    const example = readFileSync(join(ROOT, '.env.example'), 'utf8');
    for (const name of ['PORT', 'HOST', 'SERVICE_ENV', 'DATABASE_URL', 'DATA_DIR', 'ADMIN_TOKEN', 'REDIS_URL', 'RATE_LIMIT_PER_SECOND', 'TRUST_PROXY', 'SECRETS_KEY', 'PUBLIC_BASE_URL']) {
      expect(example).toMatch(new RegExp(`^#? ?${name}=`, 'm'));
    }
  });
});
