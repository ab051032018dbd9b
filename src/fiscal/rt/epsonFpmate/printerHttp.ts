import { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { FiscalDeviceError } from '../../deviceErrors.js';
import type { DeviceExchange } from '../../fiscalDevice.js';

/**
 * Why one POST is two exchanges with the device: until the whole request is
 * written to the connection, the printer cannot have the document and prints
 * nothing, so a failure or timeout (a printer off the network never takes the
 * connection) is phase 1: the operation can stay open and be retried. Once it
 * is written, the printer may be printing and recording it while its answer
 * is late or lost, so a timeout or a broken connection is phase 2: the caller
 * must not take the document for unissued. A document is a few kilobytes, so
 * it is written as soon as the connection stands. Each exchange is bounded by
 * its own signal, and either one's abort cuts the request.
 */
export async function postToPrinter(exchange: DeviceExchange, endpoint: URL, body: string, timeoutMs: number): Promise<string> {
  const url = new URL(endpoint);
  // The printer's own bound on running the document; the service's bound is the exchange's.
  url.searchParams.set('timeout', String(timeoutMs));
  const payload = Buffer.from(body, 'utf8');
  const cut = new AbortController();
  let answer!: Promise<Dispatcher.ResponseData>;
  await exchange(1, (_sql, signal) => {
    // undici writes each chunk of a stream body to the connection as the
    // stream emits it, so the stream's end tells when the whole request is out.
    const chunks = Readable.from([payload], { objectMode: false });
    const written = new Promise<void>((resolve) => chunks.once('end', resolve));
    answer = request(url, {
      method: 'POST',
      headers: { 'content-type': 'text/xml; charset=utf-8', 'content-length': String(payload.length) },
      body: chunks,
      signal: cut.signal,
      // One connection per document: a kept-alive one the printer has closed
      // meanwhile would fail the POST after writing it, a false phase 2.
      reset: true,
    });
    // Read in phase 2, or abandoned when phase 1 fails.
    answer.catch(() => undefined);
    const out = Promise.race([written, answer]).catch((error: unknown) => {
      throw new FiscalDeviceError(1, 'unreachable', `The printer at ${url.host} cannot be reached: ${describe(error)}`);
    });
    return bounded(out, signal, cut, new FiscalDeviceError(1, 'timeout', 'The printer did not take the document in time; nothing was printed'));
  });
  return exchange(2, (_sql, signal) =>
    bounded(readAnswer(answer), signal, cut, new FiscalDeviceError(2, 'timeout', 'The printer did not answer in time; it may have recorded the document')),
  );
}

async function readAnswer(answer: Promise<Dispatcher.ResponseData>): Promise<string> {
  try {
    const response = await answer;
    if (response.statusCode >= 200 && response.statusCode < 300) return await response.body.text();
    await response.body.dump();
    // A redirect or client error comes from the printer's web server before fpmate.cgi ran.
    if (response.statusCode < 500) throw new FiscalDeviceError(1, 'rejected', `The printer's web server refused the request: HTTP ${response.statusCode}`);
    throw new FiscalDeviceError(2, 'rejected', `The printer's web server failed: HTTP ${response.statusCode}; it may have recorded the document`);
  } catch (error) {
    if (error instanceof FiscalDeviceError) throw error;
    throw new FiscalDeviceError(2, 'unreachable', `The connection to the printer broke before it answered (${describe(error)}); it may have recorded the document`);
  }
}

/** `work`, unless `signal` aborts first: then the request is cut and `timeout` thrown. */
function bounded<T>(work: Promise<T>, signal: AbortSignal, cut: AbortController, timeout: FiscalDeviceError): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      cut.abort(timeout);
      reject(timeout);
    };
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

const describe = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
};
