// A process of its own that takes DATA_DIR's lock (argv[2]) for test/db/dataDirLock.test.ts.
// It prints "held", then reads one word on stdin: "release" releases the lock and exits,
// "exit" exits without releasing (the exit hook must release it). SIGKILL leaves it behind.
import { lockDataDir } from '../../src/db/dataDirLock.js';

const lock = lockDataDir(process.argv[2]);
console.log('held');
process.stdin.setEncoding('utf8');
process.stdin.on('data', (word: string) => {
  if (word.trim() === 'release') lock.release();
  process.exit(0);
});
