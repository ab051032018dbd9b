import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { backoffDelayMs } from '../../../domain/backoff.js';
import { budgetOf } from '../../callBudget.js';
import type { FiskalyClient } from './client.js';
import { derivedUuid } from './derivedUuid.js';

/** What `PUT` and `GET /tss/{tss_id}/export/{export_id}` answer that the export needs. */
interface FiskalyExport {
  state?: string;
  exception?: string;
}

/** States after which an export never completes. */
const ENDED_STATES = new Set(['CANCELLED', 'EXPIRED', 'DELETED', 'ERROR']);

/** fiskaly builds an export in seconds to an hour (its docs): polled quickly at first, then every 5 s. */
const FIRST_POLL_MS = 250;
const MAX_POLL_MS = 5_000;
export const TSS_EXPORT_TIMEOUT_MS = 60 * 60 * 1000;

/** fiskaly ended the export without a file (its state and, when it gave one, its reason). */
export class TssExportEnded extends Error {
  constructor(
    readonly state: string,
    readonly exception: string | null,
  ) {
    super(`fiskaly ended the TSS export in state ${state}${exception ? `: ${exception}` : ''}`);
    this.name = 'TssExportEnded';
  }
}

export interface TssExportRequest {
  /** Names the export at fiskaly: the same key reaches the same export when a build is repeated. */
  key: string;
  /** Logs from `from` (inclusive) to `to` (exclusive); fiskaly's bounds are whole seconds, both inclusive. */
  from: Date;
  to: Date;
}

/**
 * The TSS's own TR-03153 export (fiskaly SIGN DE v2): triggered with `PUT
 * /tss/{tss_id}/export/{export_id}` and the time range as query parameters,
 * polled until COMPLETED, and its TAR (`GET .../file`) piped to `output` as
 * fiskaly sends it, so every log keeps the TSS's signature and the archive its
 * certificates and info.csv. The whole TSS is exported, not one client: its
 * signature counters run across its clients, and only all of them are gapless.
 */
export async function writeTssExport(client: FiskalyClient, request: TssExportRequest, output: Writable, timeoutMs = TSS_EXPORT_TIMEOUT_MS): Promise<void> {
  const budget = budgetOf(AbortSignal.timeout(timeoutMs), timeoutMs);
  const exportId = derivedUuid([client.tssId, 'export', request.key]);
  const path = `/tss/${encodeURIComponent(client.tssId)}/export/${exportId}`;
  const range = new URLSearchParams({
    start_date: String(Math.floor(request.from.getTime() / 1000)),
    end_date: String(Math.ceil(request.to.getTime() / 1000) - 1),
  });
  let exported = await client.call<FiskalyExport>('PUT', `${path}?${range}`, undefined, budget);
  for (let polls = 1; exported.state !== 'COMPLETED'; polls += 1) {
    if (exported.state && ENDED_STATES.has(exported.state)) throw new TssExportEnded(exported.state, exported.exception ?? null);
    await sleep(backoffDelayMs(polls, FIRST_POLL_MS, MAX_POLL_MS), undefined, { signal: budget.signal });
    exported = await client.call<FiskalyExport>('GET', path, undefined, budget);
  }
  await pipeline(await client.download(`${path}/file`, budget), output);
}
