import type { Writable } from 'node:stream';

/** The TSE an export is of, and the range it covers. */
export interface TseTarRequest {
  tseId: string;
  /** The export job's id: a source that asks a vendor for the export names it by this, so a repeated build reaches the same one. */
  key: string;
  /** Transactions started from `from` (inclusive) to `to` (exclusive). */
  from: Date;
  to: Date;
}

/**
 * Where a TSE's TAR export comes from, by the TSE's driver: the software TSE
 * builds it from its stored logs, a cloud TSE fetches its vendor's export.
 * `writeTar` writes the whole archive to `output` and ends it.
 */
export interface TseTarSource {
  writeTar(request: TseTarRequest, output: Writable): Promise<void>;
}
