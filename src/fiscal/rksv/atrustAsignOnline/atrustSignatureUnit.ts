import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { DeviceOptions, FiscalDependencies } from '../../fiscalDevice.js';
import type { SignatureUnit } from '../signatureUnit.js';
import { budgetOf } from '../../callBudget.js';
import { AtrustApiError, AtrustClient } from './client.js';
import { openConnection } from './connection.js';

/**
 * An a.sign RK online account as the register's signature creation unit:
 * A-Trust's HSM holds the key of the merchant's certificate and signs each
 * receipt. The unit hands A-Trust the receipt payload (`Sign/JWS`), checks
 * that the JWS it gets back is the very signing input it was given and that
 * its signature verifies with the certificate's key, and answers the
 * signature segment. Anything else (unreachable, 5xx, 401, a wrong answer)
 * is a failure, which the cash box turns into the failure marker.
 */
export class AtrustSignatureUnit implements SignatureUnit {
  constructor(
    private readonly client: AtrustClient,
    private readonly publicKey: KeyObject,
    /** The bound on one signature, retries included (DEVICE_TIMEOUT_MS). */
    private readonly timeoutMs: number,
  ) {}

  async sign(signingInput: string, signal: AbortSignal): Promise<string> {
    const payloadSegment = signingInput.slice(signingInput.indexOf('.') + 1);
    const payload = Buffer.from(payloadSegment, 'base64url').toString('utf8');
    const jws = await this.client.signJws(payload, budgetOf(signal, this.timeoutMs));
    const lastDot = jws.lastIndexOf('.');
    const signed = jws.slice(0, lastDot);
    const signature = jws.slice(lastDot + 1);
    if (lastDot < 0 || signed !== signingInput) {
      throw new AtrustApiError('malformed', 'A-Trust POST Sign/JWS answered a JWS of another header or payload than the receipt');
    }
    const bytes = Buffer.from(signature, 'base64url');
    const valid =
      bytes.length === 64 && verify('sha256', Buffer.from(signingInput, 'ascii'), { key: this.publicKey, dsaEncoding: 'ieee-p1363' }, bytes);
    if (!valid) throw new AtrustApiError('malformed', 'A-Trust POST Sign/JWS answered a signature that does not verify with the certificate');
    return signature;
  }
}

// Opening a sealed connection and parsing the key cost more than the signature's own work; both never change for a row.
const units = new Map<string, AtrustSignatureUnit>();

/** The unit of a stored connection and certificate key (base64 SubjectPublicKeyInfo). */
export function openAtrustSignatureUnit(sealedConnection: string, publicKey: string, deps: FiscalDependencies & DeviceOptions): AtrustSignatureUnit {
  let unit = units.get(sealedConnection);
  if (!unit) {
    const key = createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' });
    unit = new AtrustSignatureUnit(new AtrustClient(openConnection(deps.secrets, sealedConnection)), key, deps.deviceTimeoutMs);
    units.set(sealedConnection, unit);
  }
  return unit;
}
