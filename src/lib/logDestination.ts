import pino, { type DestinationStream } from 'pino';

/** Where log lines are written: standard output, or a stand-in for it in tests. */
export interface LogOutput {
  isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * Whether the log is pretty-printed for a person: only on a terminal, outside production
 * (NODE_ENV unset or development). Otherwise it stays JSON lines, for log collectors.
 */
export function prettyLogs(nodeEnv: string | undefined, isTTY: boolean | undefined): boolean {
  return isTTY === true && (!nodeEnv || nodeEnv === 'development');
}

const LOG_WRITE_BYTES = 4096;
const LOG_FLUSH_MS = 250;

/**
 * pino's destination: pretty-printed lines on `output` when prettyLogs says so, else JSON lines
 * to standard output, written asynchronously and in blocks: lines wait until 4 kB of them are
 * there, or for at most a quarter of a second. A write off the event loop's thread costs a hand-off
 * to libuv's pool and back (two context switches, and a wake-up of the loop), so a busy server
 * pays that for every few dozen lines instead of every line or two. pino writes what is left
 * synchronously when the process exits. pino redacts and serializes each line before it gets here.
 */
export async function logDestination(env: NodeJS.ProcessEnv = process.env, output: LogOutput = process.stdout): Promise<DestinationStream> {
  if (!prettyLogs(env.NODE_ENV, output.isTTY)) return pino.destination({ dest: 1, sync: false, minLength: LOG_WRITE_BYTES, periodicFlush: LOG_FLUSH_MS });
  // Imported only here, so production never loads it.
  const { prettyFactory } = await import('pino-pretty');
  const prettify = prettyFactory({ translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
  // Straight to the terminal (whose writes are synchronous): a line logged just before process.exit is not lost.
  return { write: (line: string) => void output.write(prettify(line)) };
}
