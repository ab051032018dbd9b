// signatureOrFailure bounds one call of a receipt's signature creation unit: its signature, or
// null (the register goes on with the failure marker); only a unit that did not answer is aborted.
import { describe, expect, it } from 'vitest';
import { signatureOrFailure, type SignatureUnit } from '../../src/fiscal/rksv/signatureUnit.js';

/** A unit that answers with `answer` and remembers the signal it was given. */
function unitAnswering(answer: (signal: AbortSignal) => Promise<string>) {
  const signals: AbortSignal[] = [];
  const unit: SignatureUnit = {
    sign(_signingInput, signal) {
      signals.push(signal);
      return answer(signal);
    },
  };
  return { unit, signals };
}

describe('signatureOrFailure', () => {
  it('returns the signature of a unit that answers, without aborting it', async () => {
    const { unit, signals } = unitAnswering(async () => 'c2lnbmF0dXJl');
    expect(await signatureOrFailure(unit, 'input', 1000)).toBe('c2lnbmF0dXJl');
    expect(signals[0].aborted).toBe(false);
  });

  it('returns null for a unit that fails, without aborting it', async () => {
    const { unit, signals } = unitAnswering(async () => {
      throw new Error('card removed');
    });
    expect(await signatureOrFailure(unit, 'input', 1000)).toBeNull();
    expect(signals[0].aborted).toBe(false);
  });

  it('returns null once the timeout passes and aborts the unit that did not answer', async () => {
    const { unit, signals } = unitAnswering(
      (signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('stopped')))),
    );
    const started = performance.now();
    expect(await signatureOrFailure(unit, 'input', 50)).toBeNull();
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(signals[0].aborted).toBe(true);
  });
});
