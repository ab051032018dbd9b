// A process of its own that logs through the production log destination, for
// test/lib/logDestination.test.ts: one line (and "logged" on stderr, unbuffered), then, on "exit"
// from stdin, a last line and process.exit.
import pino from 'pino';
import { logDestination } from '../../src/lib/logDestination.js';

const log = pino(await logDestination({ NODE_ENV: 'production' }, { isTTY: false, write: () => undefined }));
log.info('first line');
process.stderr.write('logged\n');
process.stdin.setEncoding('utf8');
process.stdin.on('data', () => {
  log.info('last line');
  process.exit(0);
});
