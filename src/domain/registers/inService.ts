import { conflict } from '../errors.js';

/**
 * A register taken out of service (fiscalization_status `decommissioned`, by a
 * KassenSichV decommission or an RKSV closing receipt) takes nothing more: no
 * goods movement is recorded on it, no session opened, no further receipt
 * issued (409 register_invalid_fiscal_state, whatever the regime). Completing an
 * operation recorded before is the contract's 422 (section 7: no active fiscal
 * device). The session it had open may still be counted and closed, so the
 * drawer can be settled.
 */
export function assertRegisterInService(register: { id: string; fiscalizationStatus: string }): void {
  if (register.fiscalizationStatus !== 'decommissioned') return;
  throw conflict('register_invalid_fiscal_state', 'The register is decommissioned (out of service) and takes no further operations', {
    register_id: register.id,
    fiscalization_status: register.fiscalizationStatus,
  });
}
