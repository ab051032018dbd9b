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

/**
 * pino's destination: pretty-printed lines on `output` when prettyLogs says so, else JSON lines
 * to standard output, written asynchronously: lines logged while a write is under way go out
 * together with the next one, so a busy server makes one write for many lines, not one per line.
 * pino writes what is left synchronously when the process exits. pino redacts and serializes
 * each line before it gets here.
 */
export async function logDestination(env: NodeJS.ProcessEnv = process.env, output: LogOutput = process.stdout): Promise<DestinationStream> {
  if (!prettyLogs(env.NODE_ENV, output.isTTY)) return pino.destination({ dest: 1, sync: false });
  // Imported only here, so production never loads it.
  const { prettyFactory } = await import('pino-pretty');
  const prettify = prettyFactory({ translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
  // Straight to the terminal (whose writes are synchronous): a line logged just before process.exit is not lost.
  return { write: (line: string) => void output.write(prettify(line)) };
}
