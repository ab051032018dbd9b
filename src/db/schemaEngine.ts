import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as engineBindings from '@prisma/schema-engine-wasm/schema_engine_bg';
import type { SchemaEngine } from '@prisma/schema-engine-wasm';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';

// lib ES2023 has no WebAssembly typings; only these two calls are needed.
interface WasmApi {
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(module: object, imports: Record<string, unknown>): Promise<{ exports: Record<string, unknown> }>;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

let loaded = false;

// The package entry imports the .wasm file as an ES module, which needs an
// experimental Node flag; instantiate it by hand instead.
async function loadEngineWasm(): Promise<void> {
  if (loaded) return;
  const require = createRequire(import.meta.url);
  const bindingsPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
  const wasmPath = bindingsPath.replace(/schema_engine_bg\.js$/, 'schema_engine_bg.wasm');
  const module = await wasm.compile(readFileSync(wasmPath));
  const instance = await wasm.instantiate(module, { './schema_engine_bg.js': engineBindings });
  engineBindings.__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start?: () => void }).__wbindgen_start?.();
  loaded = true;
}

/** Prisma's schema engine (WebAssembly build) over a driver adapter: no binary download. */
export async function openSchemaEngine(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  schema: string,
): Promise<SchemaEngine> {
  await loadEngineWasm();
  return engineBindings.SchemaEngine.new(
    { datamodels: [['schema.prisma', schema]] },
    () => undefined,
    bindMigrationAwareSqlAdapterFactory(adapterFactory),
  );
}
