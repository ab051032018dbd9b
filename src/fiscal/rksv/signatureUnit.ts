import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { SecretBox } from '../../lib/secretBox.js';
import { TIMED_OUT, within } from '../../lib/timeLimit.js';
import { hang, type DeviceSimulation } from '../simulatedFaults.js';
import { es256Signature } from './compactJws.js';

/**
 * The signature creation unit (Signaturerstellungseinheit) of an RKSV
 * register: signs a receipt's JWS signing input with ES256 and answers the
 * raw R‖S signature in base64url. A smart card, an HSM or a trust service
 * provider's online seal would implement it as well; when it fails, the
 * register goes on with the failure marker (reference §6.1).
 */
export interface SignatureUnit {
  sign(signingInput: string, signal: AbortSignal): Promise<string>;
}

// Parsing a sealed PEM costs far more than signing; keys never change, so keep the parsed ones.
const privateKeys = new Map<string, KeyObject>();

/** The service's own software signature unit: the register's P-256 key, sealed at rest. */
export class SoftwareSignatureUnit implements SignatureUnit {
  constructor(
    private readonly keyId: string,
    private readonly sealedPrivateKey: string,
    private readonly secrets: SecretBox,
  ) {}

  private key(): KeyObject {
    let key = privateKeys.get(this.keyId);
    if (!key) {
      key = createPrivateKey(this.secrets.open(this.sealedPrivateKey));
      privateKeys.set(this.keyId, key);
    }
    return key;
  }

  sign(signingInput: string): Promise<string> {
    return Promise.resolve(es256Signature(signingInput, this.key()));
  }
}

/**
 * Sandbox only: a signature unit that fails as the register's simulation says
 * (`unreachable` and `reject_after_start` refuse, `timeout` never answers).
 */
export class SimulatedFailingSignatureUnit implements SignatureUnit {
  constructor(private readonly mode: Exclude<DeviceSimulation, 'ok'>) {}

  async sign(_signingInput: string, signal: AbortSignal): Promise<string> {
    if (this.mode === 'timeout') await hang(signal);
    throw new Error(`The signature creation unit failed (sandbox simulation: ${this.mode})`);
  }
}

/**
 * The unit's signature, or null when it fails or does not answer within `timeoutMs`. Only a
 * unit that did not answer is told to stop: an abort builds a DOMException and dispatches an
 * event, 3 % of the server's busy samples in the Austrian flow when every signature paid for it.
 */
export async function signatureOrFailure(unit: SignatureUnit, signingInput: string, timeoutMs: number): Promise<string | null> {
  const controller = new AbortController();
  try {
    const answer = await within(unit.sign(signingInput, controller.signal), timeoutMs);
    if (answer !== TIMED_OUT) return answer;
    controller.abort();
    return null;
  } catch {
    return null;
  }
}
