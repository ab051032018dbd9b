import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pack } from 'tar-stream';

/** One file of the archive. */
export interface TarMember {
  name: string;
  content: Buffer;
  /** Set by the caller, never the build time, so the same data gives the same archive. */
  mtime: Date;
}

/**
 * Writes the members, in the order given, as a POSIX ustar archive to `output`
 * and ends it. Each member waits until the archive stream has taken it, so a
 * slow output slows the reading instead of filling memory.
 */
export async function writeTarArchive(members: AsyncIterable<TarMember>, output: Writable): Promise<void> {
  const archive = pack();
  const written = pipeline(archive, output);
  try {
    for await (const member of members) {
      await new Promise<void>((resolve, reject) => {
        archive.entry({ name: member.name, size: member.content.length, mtime: member.mtime, mode: 0o644, uid: 0, gid: 0, type: 'file' }, member.content, (error) =>
          error ? reject(error) : resolve(),
        );
      });
    }
    archive.finalize();
  } catch (error) {
    archive.destroy(error as Error);
  }
  await written;
}
