// Compiles src/ to JavaScript in dist/ (or the folder given), for `npm start` and the Docker image.
// esbuild strips the types file by file, so the whole tree takes well under a second and every start
// can build first; the server then runs plain JavaScript, without tsx's loader. `npm run typecheck`
// checks the types.
import { readdirSync } from 'node:fs';
import process from 'node:process';
import { build } from 'esbuild';

const outdir = process.argv[2] ?? 'dist';
const entryPoints = readdirSync('src', { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
  .map((file) => `src/${file}`);

await build({ entryPoints, outdir, outbase: 'src', platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning' });
