// The Docker image's runtime stage without Docker: its CMD and ENV read from the Dockerfile, and its
// /app (package.json, prisma/, node_modules/, dist/ from `npm run build`) laid out in a temporary folder.
import { spawn } from 'node:child_process';
import { copyFileSync, readFileSync, symlinkSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { ROOT, tempDir } from './processes.js';

export interface ImageRuntime {
  /** The CMD, exec form. */
  command: string[];
  /** The ENV settings. */
  env: Record<string, string>;
}

/** CMD and ENV of the Dockerfile's last stage (the image that runs). */
export function imageRuntime(dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8')): ImageRuntime {
  const lines = dockerfile.replace(/\\\n/g, ' ').split('\n');
  const lastStage = lines.slice(lines.findLastIndex((line) => /^FROM\s/i.test(line)));
  const instruction = (name: string) => lastStage.filter((line) => line.toUpperCase().startsWith(`${name} `)).map((line) => line.slice(name.length + 1).trim());

  const commands = instruction('CMD');
  if (commands.length !== 1) throw new Error(`the runtime stage has ${commands.length} CMD lines, expected one`);
  const command: unknown = JSON.parse(commands[0]);
  if (!Array.isArray(command) || !command.every((part) => typeof part === 'string')) throw new Error(`CMD is not in exec form: ${commands[0]}`);

  const env: Record<string, string> = {};
  for (const setting of instruction('ENV').flatMap((line) => line.split(/\s+/))) {
    const equals = setting.indexOf('=');
    if (equals < 1) throw new Error(`ENV setting not in NAME=value form: ${setting}`);
    env[setting.slice(0, equals)] = setting.slice(equals + 1);
  }
  return { command, env };
}

/**
 * The runtime stage's /app in a fresh temporary folder (so parallel test files never share it): dist/
 * compiled by `npm run build`'s script, next to the project's package.json, prisma/ and node_modules/.
 */
export async function buildImageApp(): Promise<{ path: string; remove(): void }> {
  const app = tempDir('fiscal-image-');
  copyFileSync(join(ROOT, 'package.json'), join(app.path, 'package.json'));
  symlinkSync(join(ROOT, 'prisma'), join(app.path, 'prisma'));
  symlinkSync(join(ROOT, 'node_modules'), join(app.path, 'node_modules'));
  const [program, script, ...rest] = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.build.split(' ');
  if (program !== 'node' || rest.length) throw new Error(`npm run build is no longer one node script: ${program} ${script} ${rest.join(' ')}`);
  // The script compiles into the folder it is given (dist/ by default).
  const build = spawn(process.execPath, [join(ROOT, script), join(app.path, 'dist')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  build.stdout.on('data', (chunk) => (output += chunk));
  build.stderr.on('data', (chunk) => (output += chunk));
  const code = await new Promise<number | null>((resolveExit) => build.once('exit', resolveExit));
  if (code !== 0) {
    app.remove();
    throw new Error(`npm run build failed:\n${output}`);
  }
  return app;
}

/** `import ... from '...'`, `export ... from '...'`, `import '...'` and `import('...')` in compiled JavaScript. */
const IMPORT = /^(?:import|export)[^;'"]*?\bfrom\s*['"]([^'"]+)['"]|^import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** The packages the script imports, statically or dynamically, through the compiled files it reaches. */
export function packagesImportedBy(script: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const specifier = match[1] ?? match[2] ?? match[3];
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier));
      else if (!isBuiltin(specifier)) packages.add(specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/'));
    }
  };
  visit(script);
  return packages;
}
