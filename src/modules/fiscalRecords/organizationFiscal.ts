import type { KassenSichVFiscalRecord } from '../../fiscal/kassensichv/fiscalInformation.js';
import type { RksvFiscalRecord } from '../../fiscal/rksv/fiscalInformation.js';
import type { RtFiscalRecord } from '../../fiscal/rt/fiscalInformation.js';
import { CLOSED_SYSTEM_SUITE } from '../../fiscal/rksv/receiptCode.js';
import type { FiscalRecord, Regime } from '../../fiscal/fiscalDevice.js';
import type { OrganizationFiscalView } from '../styleO/schemas.js';

/** What a signed record shows as Style O's `fiscal` block (contract 2.8), one presenter per regime. */
type OrganizationFiscalOf<R extends FiscalRecord> = (record: R, startSignature: string | null) => OrganizationFiscalView;

/** Both KassenSichV events in full. */
const kassenSichVBlock: OrganizationFiscalOf<KassenSichVFiscalRecord> = (record, startSignature) => ({
  regime: record.regime,
  document_type: record.document_type,
  transmission_status: 'succeeded',
  fiscal_unit_id: record.tss_serial_number,
  document_number: record.document_number,
  transmitted_at: record.end_event.signed_at,
  verification: { url: null, qr_data: record.verification.qr_data },
  tse_serial: record.tss_serial_number,
  client_id: record.pos_client_serial_number,
  signature_algorithm: record.signature_algorithm,
  time_format: record.time_format,
  start_event: {
    signed_at: record.start_event.signed_at,
    transaction_counter: record.end_event.transaction_counter,
    signature_counter: record.start_signature_counter,
    signature: startSignature ?? record.start_signature ?? '',
    // The StartTransaction log is signed with empty processType and processData.
    process_type: '',
    process_data: '',
  },
  end_event: {
    signed_at: record.end_event.signed_at,
    transaction_counter: record.end_event.transaction_counter,
    signature_counter: record.end_event.signature_counter,
    signature: record.end_event.signature,
    public_key: record.end_event.public_key,
    process_type: record.end_event.process_type,
    process_data: record.end_event.process_data,
  },
  error: null,
});

/** The RKSV receipt as Style M publishes it, in the Style O envelope. */
const rksvBlock: OrganizationFiscalOf<RksvFiscalRecord> = (record) => ({
  ...record,
  transmission_status: 'succeeded',
  fiscal_unit_id: record.signature_device_id,
  transmitted_at: record.signed_at,
  verification: { url: null, qr_data: record.verification.qr_data },
  tse_serial: record.signature_device_id,
  client_id: record.cash_register_id,
  signature_algorithm: 'ES256',
  error: null,
});

/** A signing attempt that failed, as the fiscal block reports it until the record is signed. */
export interface FailedSigning {
  /** The register's document number the record is to be signed under, where its regime numbers that way. */
  documentNumber: string | null;
  /** The register's device: its serial, client id, signature algorithm and suite (src/modules/registers/presenter.ts deviceDescriptionOf). */
  device: { serial: string | null; clientId: string | null; signatureAlgorithm: string | null; suite: string | null };
  error: NonNullable<OrganizationFiscalView['error']>;
}

/** The register's TSE and client; no events yet. */
const kassenSichVFailure = (failed: FailedSigning): OrganizationFiscalView => ({
  regime: 'KassenSichV',
  document_type: 'Beleg',
  transmission_status: 'failed',
  fiscal_unit_id: failed.device.serial,
  document_number: failed.documentNumber,
  transmitted_at: null,
  verification: null,
  tse_serial: failed.device.serial,
  client_id: failed.device.clientId,
  signature_algorithm: failed.device.signatureAlgorithm,
  time_format: 'unixTime',
  start_event: null,
  end_event: null,
  error: failed.error,
});

/** The register's Kassen-ID and signature device; no receipt yet, so no Belegnummer either. */
const rksvFailure = (failed: FailedSigning): OrganizationFiscalView => ({
  regime: 'RKSV',
  // Registers that sign with a trust service's certificate name its ZDA (R1-AT1); failures recorded before the suite was kept were the closed system's.
  suite: failed.device.suite ?? CLOSED_SYSTEM_SUITE,
  document_type: 'standard',
  document_number: null,
  cash_register_id: failed.device.clientId,
  signature_device_id: failed.device.serial,
  signed_at: null,
  amounts: null,
  turnover_counter_encrypted: null,
  chain_value: null,
  jws: null,
  signature_device_failed: null,
  public_key: null,
  transmission_status: 'failed',
  fiscal_unit_id: failed.device.serial,
  transmitted_at: null,
  verification: null,
  tse_serial: failed.device.serial,
  client_id: failed.device.clientId,
  signature_algorithm: 'ES256',
  error: failed.error,
});

/** The documento commerciale as Style M publishes it, in the Style O envelope. */
const rtBlock: OrganizationFiscalOf<RtFiscalRecord> = (record) => ({
  ...record,
  transmission_status: 'succeeded',
  fiscal_unit_id: record.device_serial,
  transmitted_at: record.issued_at,
  verification: { url: record.verification.url, qr_data: null },
  error: null,
});

/** The register's RT; no document was issued, so no number either. */
const rtFailure = (failed: FailedSigning): OrganizationFiscalView => ({
  regime: 'RT',
  document_type: 'return',
  document_number: null,
  fiscal_day: null,
  document_progressive: null,
  device_serial: failed.device.serial,
  issued_at: null,
  lottery_code: null,
  referenced_document: null,
  transmission_status: 'failed',
  fiscal_unit_id: failed.device.serial,
  transmitted_at: null,
  verification: null,
  error: failed.error,
});

interface RegimePresentation<R extends FiscalRecord> {
  block: OrganizationFiscalOf<R>;
  /** The block while the device has failed to sign. */
  failure(failed: FailedSigning): OrganizationFiscalView;
  /** When signing began: the TSE's start event, the moment an RKSV receipt was signed. */
  startedAt(record: R): string;
}

const PRESENTATION_OF_REGIME: { [R in FiscalRecord['regime']]: RegimePresentation<Extract<FiscalRecord, { regime: R }>> } = {
  KassenSichV: { block: kassenSichVBlock, failure: kassenSichVFailure, startedAt: (record) => record.start_event.signed_at },
  RKSV: { block: rksvBlock, failure: rksvFailure, startedAt: (record) => record.signed_at },
  RT: { block: rtBlock, failure: rtFailure, startedAt: (record) => record.issued_at },
};

const presentationOf = (record: FiscalRecord) => PRESENTATION_OF_REGIME[record.regime] as RegimePresentation<FiscalRecord>;

/** The `fiscal` block of a signed record; `startSignature` only where the record lacks its start log's. */
export function organizationFiscalOf(record: FiscalRecord, startSignature: string | null = null): OrganizationFiscalView {
  return presentationOf(record).block(record, startSignature);
}

/** The `fiscal` block of a record the register's device failed to sign; only a built regime's device signs. */
export function organizationFiscalOfFailure(regime: Regime, failed: FailedSigning): OrganizationFiscalView {
  const presentation: Partial<Record<Regime, { failure(failed: FailedSigning): OrganizationFiscalView }>> = PRESENTATION_OF_REGIME;
  const present = presentation[regime];
  if (!present) throw new Error(`No fiscal regime ${regime} is built`);
  return present.failure(failed);
}

/** When signing of the record began. */
export const signingStartedAt = (record: FiscalRecord): string => presentationOf(record).startedAt(record);
