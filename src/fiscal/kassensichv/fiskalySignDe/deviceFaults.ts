import { FiscalDeviceError, type FiscalDeviceFailureReason } from '../../deviceErrors.js';
import { FiskalyApiError, type FiskalyFailureKind } from './client.js';

const REASON_OF: Readonly<Record<FiskalyFailureKind, FiscalDeviceFailureReason>> = {
  unauthorized: 'unauthorized',
  rate_limited: 'rate_limited',
  unavailable: 'unreachable',
  unreachable: 'unreachable',
  timeout: 'timeout',
  rejected: 'rejected',
};

/**
 * A failed fiskaly call as the signing flow reports a device failure: its phase,
 * the reason, and fiskaly's own error code and HTTP status in the details.
 * A FiscalDeviceError (the exchange's timeout) stays as it is.
 */
export function deviceErrorOf(error: unknown, phase: 1 | 2): unknown {
  if (!(error instanceof FiskalyApiError)) return error;
  return new FiscalDeviceError(phase, REASON_OF[error.kind], error.message, { vendor_code: error.code, vendor_status: error.status });
}
