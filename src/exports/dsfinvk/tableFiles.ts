import { createWriteStream, type WriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { formatHeader, formatRow, type CellValue, type RowValues } from './csv.js';
import { TABLES, type DsfinvkTable, type TableFile } from './tables.js';

/** Rows are buffered per table and written in chunks of at least this many characters. */
const FLUSH_AT = 64 * 1024;

class CsvFileWriter {
  private buffer: string;
  private failure: Error | undefined;
  private readonly stream: WriteStream;
  rows = 0;

  constructor(
    readonly table: DsfinvkTable,
    readonly path: string,
  ) {
    this.stream = createWriteStream(path);
    // Kept so that a write error surfaces at the next write instead of as an unhandled 'error' event.
    this.stream.on('error', (error) => {
      this.failure ??= error;
    });
    this.buffer = formatHeader(table);
  }

  write(values: Readonly<Record<string, CellValue>>): void {
    this.buffer += formatRow(this.table, values);
    this.rows += 1;
  }

  get full(): boolean {
    return this.buffer.length >= FLUSH_AT;
  }

  async flush(): Promise<void> {
    if (this.failure) throw this.failure;
    const chunk = this.buffer;
    this.buffer = '';
    if (chunk && !this.stream.write(chunk)) await once(this.stream, 'drain');
  }

  async close(): Promise<void> {
    await this.flush();
    this.stream.end();
    await finished(this.stream);
  }

  /** Resolves once the file is closed: a stream still opening would otherwise create its file after the directory is removed. */
  async destroy(): Promise<void> {
    if (this.stream.closed) return;
    const closed = once(this.stream, 'close').catch(() => undefined);
    this.stream.destroy();
    await closed;
  }
}

/**
 * One temporary CSV file per table, written in a single pass and then handed
 * to the ZIP, so memory holds at most one batch per table whatever the number
 * of operations. The directory is removed by dispose(), also after a failure.
 */
export class TableFiles {
  private constructor(
    private readonly directory: string,
    private readonly files: Map<TableFile, CsvFileWriter>,
  ) {}

  static async create(): Promise<TableFiles> {
    const directory = await mkdtemp(join(tmpdir(), 'dsfinvk-'));
    const files = new Map(TABLES.map((table) => [table.file, new CsvFileWriter(table, join(directory, table.file))] as const));
    return new TableFiles(directory, files);
  }

  /** Buffers one row; call flush() between batches (per Vorgang, per closing) so that buffers stay small. */
  write<F extends TableFile>(file: F, values: RowValues<F>): void {
    this.files.get(file)!.write(values);
  }

  /** Hands every buffer over FLUSH_AT to its file, waiting for the disk when it lags behind. */
  async flush(): Promise<void> {
    for (const file of this.files.values()) if (file.full) await file.flush();
  }

  /** Flushes and closes every file; returns them in index.xml order with their data row counts. */
  async close(): Promise<{ table: DsfinvkTable; path: string; rows: number }[]> {
    const all = [...this.files.values()];
    await Promise.all(all.map((file) => file.close()));
    return all.map((file) => ({ table: file.table, path: file.path, rows: file.rows }));
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.files.values()].map((file) => file.destroy()));
    await rm(this.directory, { recursive: true, force: true, maxRetries: 3 });
  }
}
