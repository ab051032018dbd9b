import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';

export const EXPORT_CHUNK_BYTES = 1024 * 1024;

/**
 * A Writable that hands the stream on in fixed-size pieces (awaiting each
 * store, so a slow database slows the producer instead of filling memory),
 * and tracks the total size and SHA-256.
 */
export class ChunkWriter extends Writable {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private sequence = 0;
  private readonly hash = createHash('sha256');
  byteSize = 0;

  constructor(private readonly store: (sequence: number, data: Buffer) => Promise<void>) {
    super();
  }

  get sha256(): string {
    return this.hash.copy().digest('hex');
  }

  private async flushPending(): Promise<void> {
    if (!this.pendingBytes) return;
    const data = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    await this.store(this.sequence++, data);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.hash.update(chunk);
    this.byteSize += chunk.length;
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes < EXPORT_CHUNK_BYTES) return callback();
    this.flushPending().then(() => callback(), callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.flushPending().then(() => callback(), callback);
  }
}
