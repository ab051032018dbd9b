import type { FinanzOnlineMessage } from './authority.js';

/** What the register shows of its FinanzOnline registration, as `fiscalization.rksv.registration`. */
export interface FinanzOnlineRegistration {
  /**
   * pending: not answered yet; registered: the unit and the cash register are
   * registered; rejected: FinanzOnline refused them (reason); failed: the last
   * attempt got no answer or the login was refused (reason), and it is tried again.
   */
  status: 'pending' | 'registered' | 'rejected' | 'failed';
  /** test (the sandbox, art_uebermittlung T) or production (P). */
  transmission: 'test' | 'production';
  reason: FinanzOnlineMessage | null;
  signature_unit: StepStatus;
  cash_register: StepStatus;
  start_receipt_check: { status: 'pending' | 'passed' | 'failed'; checked_at: string | null; reason: FinanzOnlineMessage | null };
  attempts: number;
  registered_at: string | null;
  updated_at: string;
  /** Outage, recovery and decommission reports, oldest first. */
  reports: FinanzOnlineReport[];
}

export type StepStatus = 'pending' | 'registered' | 'rejected';

export interface FinanzOnlineReport {
  /** The submission that sends it. */
  id: string;
  type: 'outage' | 'recovery' | 'decommission';
  status: 'pending' | 'reported' | 'rejected' | 'failed';
  /** outage: when it began; recovery: when it ended; decommission: when the closing receipt was signed. */
  occurred_at: string;
  reason: FinanzOnlineMessage | null;
  reported_at: string | null;
}

/** The state at fiscalization: everything still to be sent. */
export const initialRegistration = (transmission: FinanzOnlineRegistration['transmission'], now: Date): FinanzOnlineRegistration => ({
  status: 'pending',
  transmission,
  reason: null,
  signature_unit: 'pending',
  cash_register: 'pending',
  start_receipt_check: { status: 'pending', checked_at: null, reason: null },
  attempts: 0,
  registered_at: null,
  updated_at: now.toISOString(),
  reports: [],
});
