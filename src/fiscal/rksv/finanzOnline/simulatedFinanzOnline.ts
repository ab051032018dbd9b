import { createPublicKey, verify } from 'node:crypto';
import { hang } from '../../simulatedFaults.js';
import { FAILED_SIGNATURE } from '../compactJws.js';
import { signedPartsOfQrCode } from '../receiptCode.js';
import type { FinanzOnlineAnswer, FinanzOnlineAuthority, FinanzOnlineLogin, FinanzOnlineRequest, ReceiptCheck } from './authority.js';

/** How the sandbox's FinanzOnline answers a register (PUT /registers/{id}/simulation `authority`). */
export const FINANZ_ONLINE_SIMULATIONS = ['ok', 'reject', 'unreachable', 'timeout', 'credential_error'] as const;
export type FinanzOnlineSimulation = (typeof FINANZ_ONLINE_SIMULATIONS)[number];

/** The PIN the sandbox refuses at login, like the other sandbox portals' rejected password. */
export const REJECTED_SANDBOX_PIN = 'wrong-password';

const accepted = (message = 'Aufruf ok (sandbox)', check: ReceiptCheck | null = null): FinanzOnlineAnswer => ({ outcome: 'accepted', code: '0', message, check });

/**
 * The BMF's business code for a refused registration of the unit (sandbox
 * simulation `reject`): the certificate is unknown to its trust service, or
 * the closed system's Ordnungsbegriff is not the registering company's.
 */
function refusedRegistration(request: Extract<FinanzOnlineRequest, { type: 'register_unit' }>): FinanzOnlineAnswer {
  return request.unit.kind === 'certificate'
    ? { outcome: 'rejected', code: '4', message: 'Mit der angegebenen Seriennummer wurde beim VDA kein Zertifikat gefunden (sandbox simulation)' }
    : { outcome: 'rejected', code: '28', message: 'Der angegebene Ordnungsbegriff ist dem registrierenden Unternehmen nicht zugeordnet (sandbox simulation)' };
}

/**
 * The Belegprüfung as the BMF runs it on a start receipt: the code has
 * thirteen fields, carries a signature (not the failure marker), and the
 * signature verifies with the registered unit's key.
 */
export function checkStartReceipt(qrCode: string, publicKey: string): ReceiptCheck {
  const fields = qrCode.split('_');
  const wellFormed = fields.length === 14 && fields[0] === '';
  let signed = false;
  let verifies = false;
  if (wellFormed) {
    const parts = signedPartsOfQrCode(qrCode);
    signed = parts.signature !== FAILED_SIGNATURE;
    const key = createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' });
    verifies = signed && verify('sha256', Buffer.from(parts.signingInput, 'ascii'), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(parts.signature, 'base64url'));
  }
  const results: ReceiptCheck['results'] = [
    { id: 'FORMAT', name: 'Maschinenlesbarer Code', state: wellFormed ? 'PASS' : 'FAIL', message: wellFormed ? null : 'The code does not have 13 fields' },
    { id: 'SIGNED', name: 'Signatur vorhanden', state: !wellFormed ? 'NOT_EXECUTED' : signed ? 'PASS' : 'FAIL', message: signed || !wellFormed ? null : 'The receipt carries the failure marker' },
    {
      id: 'SIGNATURE',
      name: 'Signaturprüfung',
      state: !signed ? 'NOT_EXECUTED' : verifies ? 'PASS' : 'FAIL',
      message: !signed || verifies ? null : 'The signature does not verify with the registered key',
    },
  ];
  return { passed: results.every((result) => result.state === 'PASS'), results };
}

/**
 * The sandbox's FinanzOnline (reference rksv.md §8: registration, Startbeleg
 * check, outage reports): it answers as the register's simulation says, with
 * the codes and texts the BMF uses, and really checks the start receipt's
 * signature. A stored credential whose PIN is REJECTED_SANDBOX_PIN is refused
 * at login; without a credential the sandbox logs in as its own test
 * participant, so a sandbox register registers without one.
 */
export const simulatedFinanzOnline: FinanzOnlineAuthority = {
  async submit(login: FinanzOnlineLogin | null, request: FinanzOnlineRequest, { simulation, signal }): Promise<FinanzOnlineAnswer> {
    switch (simulation as FinanzOnlineSimulation) {
      case 'unreachable':
        return { outcome: 'unavailable', code: 'UNREACHABLE', message: 'FinanzOnline cannot be reached (sandbox simulation)' };
      case 'timeout':
        await hang(signal);
        return { outcome: 'unavailable', code: 'TIMEOUT', message: 'FinanzOnline did not answer in time (sandbox simulation)' };
      case 'credential_error':
        return { outcome: 'login_refused', code: '-4', message: 'Die Zugangsdaten sind ungültig (sandbox simulation)' };
      default:
    }
    if (login?.pin === REJECTED_SANDBOX_PIN) return { outcome: 'login_refused', code: '-4', message: 'Die Zugangsdaten sind ungültig (sandbox)' };
    if (request.type === 'register_unit' && simulation === 'reject') return refusedRegistration(request);
    if (request.type === 'check_receipt') {
      const check = checkStartReceipt(request.qrCode, request.publicKey);
      return accepted(check.passed ? 'Der Beleg ist gültig (sandbox)' : 'Der Beleg ist nicht gültig (sandbox)', check);
    }
    return accepted();
  },
};
