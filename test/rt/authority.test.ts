// Where COR10 files go: the sandbox's stand-in authority answers as the register's simulation
// says; production has no client for the AdE's service, so nothing is ever taken for transmitted.
import { describe, expect, it } from 'vitest';
import { sandboxAuthority, unconfiguredAuthority } from '../../src/fiscal/rt/transmission/sandboxAuthority.js';

describe('the corrispettivi authority', () => {
  it('in the sandbox answers as the simulation says', () => {
    expect(sandboxAuthority.transmit('<x/>', 'ok')).toEqual({ outcome: 'accepted' });
    expect(sandboxAuthority.transmit('<x/>', 'reject')).toMatchObject({ outcome: 'rejected', errors: [{ code: 'COR10_REJECTED' }] });
    expect(sandboxAuthority.transmit('<x/>', 'unreachable')).toMatchObject({ outcome: 'unreachable' });
  });

  it('in production, without a client for the AdE, never reports a closure transmitted', () => {
    for (const simulation of ['ok', 'reject', 'unreachable']) {
      expect(unconfiguredAuthority.transmit('<x/>', simulation)).toMatchObject({ outcome: 'unreachable', errors: [{ code: 'AUTHORITY_NOT_CONFIGURED' }] });
    }
  });
});
