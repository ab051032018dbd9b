import type { SqlClient } from '../db/sql.js';
import type { SecretBox } from '../lib/secretBox.js';
import type { RateGross } from '../domain/vatBreakdown.js';
import type { KassenSichVFiscalRecord, PublishedKassenSichVRecord } from './kassensichv/fiscalInformation.js';
import type { PublishedRksvRecord, RksvFiscalRecord } from './rksv/fiscalInformation.js';
import type { PublishedRtRecord, RtFiscalRecord } from './rt/fiscalInformation.js';

/**
 * The regime-neutral fiscal port (DESIGN "One fiscal layer for three regimes").
 * Operations, refunds, receipts and registers talk to these types only; each
 * regime is a folder under src/fiscal/ that implements FiscalRegime, listed
 * once in regimes.ts.
 */
export const REGIMES = ['KassenSichV', 'RKSV', 'RT'] as const;
export type Regime = (typeof REGIMES)[number];

/** What a signed record stores: a union on `regime`, one variant per regime. */
export type FiscalRecord = KassenSichVFiscalRecord | RksvFiscalRecord | RtFiscalRecord;

/** What a signed record publishes (`fiscal_information`, the receipt's `fiscal`): the stored record less what stays internal. */
export type PublishedFiscalRecord = PublishedKassenSichVRecord | PublishedRksvRecord | PublishedRtRecord;

/** The fiscal part of a printed receipt: what the regime's law requires on it, and the QR code's content. */
export interface ReceiptFiscalSection {
  /** What the document is called, printed under the issuer (an Italian "DOCUMENTO COMMERCIALE"); empty when the regime names none. */
  title: string[];
  /** Null: the section's rows stand under the receipt without a heading. */
  heading: string | null;
  /** `mono`: long machine values (serials, base64), printed in a monospace font. */
  rows: { label: string; value: string; mono: boolean }[];
  /** Null where the regime's receipt carries no QR code (an Italian documento commerciale). */
  qrData: string | null;
  /** What the hosted page says the QR code is for. */
  qrCaption: string | null;
}

/** The sale a return (or refund) gives goods back for, as its regime may have to name it on the receipt. */
export type ReturnedOriginal =
  | {
      kind: 'recorded';
      /** The original's total, and what returns recorded before this one already gave back (positive amounts). */
      totalAmount: string;
      returnedAmount: string;
      /** The original's signed record; null when it was not signed (e.g. an ONLINE sale). */
      fiscal: FiscalRecord | null;
    }
  /** An original never ingested: `external_related_operation` as sent, with any regime's additive fields. */
  | { kind: 'external'; fields: Record<string, unknown> };

/** What a goods movement's receipt is made of: sale, return, exchange or refund (amounts as decimal strings). */
export interface GoodsMovementContent {
  /** A Style O refund is a return. */
  operationType: 'sale' | 'return' | 'exchange';
  lineItems: { type: 'item' | 'gift_card'; title?: string; quantity?: number; unit_price?: string; total_amount: string; taxes: { name?: string; rate: string }[] }[];
  cartLevelDiscounts: { amount: string }[];
  tipAmount: string;
  /** Empty while the operation is open. */
  payments: { method: string; amount: string; currency: string }[];
  /** The customer's lottery code (Italy), when the sale carries one. */
  lotteryCode: string | null;
  /** Set for a return or exchange that names its original. */
  original: ReturnedOriginal | null;
}

/** A goods movement as a regime signs it at completion. */
export interface GoodsMovementToSign extends GoodsMovementContent {
  kind: 'goods_movement';
  /** The operation signed, which a regime's journal may name. */
  operationId: string;
  /** The register's sequence number of the operation. */
  documentNumber: string;
  /** The hosted page the operation's receipt is served at, for a regime whose document links to it (RT verification.url). */
  receiptUrl: string;
}
/** What a goods movement's turnover per VAT rate is made of. */
export type GoodsMovementTurnover = Pick<GoodsMovementContent, 'lineItems' | 'cartLevelDiscounts' | 'tipAmount'>;

/** Register-session records a regime may sign (contract 3.2). */
export type SessionRecordToSign =
  | { kind: 'cash_count'; documentNumber: string; counted: string; expected: string; difference: string; currency: string }
  | { kind: 'cash_transfer'; documentNumber: string; amount: string; currency: string };

export type RecordToSign = GoodsMovementToSign | SessionRecordToSign;

/**
 * One exchange with the device, run by the signing flow: bounded by
 * DEVICE_TIMEOUT_MS, given its own view of the caller's transaction and an
 * abort signal. Phase 1 is before the device recorded anything of the
 * record, phase 2 after; a failure names its phase.
 */
export type DeviceExchange = <T>(phase: 1 | 2, exchange: (sql: SqlClient, signal: AbortSignal) => Promise<T>) => Promise<T>;

/** A register's fiscal device, ready to sign. */
export interface FiscalDevice {
  /** Signs one record; null when the regime does not sign records of its kind. */
  sign(exchange: DeviceExchange, record: RecordToSign): Promise<FiscalRecord | null>;
}

/** A register as the fiscal layer sees it. */
export interface FiscalRegister {
  id: string;
  regime: string | null;
  fiscalizationStatus: string;
  /** The regime's record of the register's device (KassenSichV: the TSE, RKSV: its receipt chain). */
  deviceId: string | null;
  clientId: string | null;
  /** Sandbox fault simulation of the device (DESIGN: PUT /registers/{id}/simulation). */
  deviceSimulation: string;
  /** What the regime keeps of the device with the register (registers.device_details), e.g. which driver reaches it. */
  deviceDetails: DeviceDetails;
  /**
   * The device's state as the caller's transaction read and locked it with the record to sign
   * (FiscalRegime.lockedDeviceStateSql); absent or null: the device reads and locks it itself.
   */
  lockedDeviceState?: DeviceState | null;
}

/** A device's own row as its regime reads it to sign (a software TSE: its counters and key). */
export type DeviceState = Record<string, unknown>;

/** What the regime publishes about a device beyond serial and client id, stored with the register as JSON. */
export type DeviceDetails = Record<string, unknown>;

/** What every regime's device is known by: the register's `fiscalization` (contract 2.3) shows it. */
export interface DeviceIdentity {
  deviceId: string;
  /** `fiscalization.tse_serial`: the TSE serial, the RKSV signature device id, the RT matricola. */
  serial: string;
  /** `fiscalization.client_id`: the TSE client, the RKSV Kassen-ID, the RT register id. */
  clientId: string;
  details: DeviceDetails;
}

export interface FiscalDependencies {
  secrets: SecretBox;
  /** The service's clock; tests move it (RKSV monthly receipts follow the calendar). */
  clock: () => Date;
}

/** How devices are opened: sandbox fault simulation and the bound on one device call. */
export interface DeviceOptions {
  /** 'sandbox' applies the register's fault simulation. */
  environment: 'sandbox' | 'production';
  /** Bound on each exchange with a device (DEVICE_TIMEOUT_MS). */
  deviceTimeoutMs: number;
}

/** A register's place and owner, as provisioning needs them. */
export interface ProvisioningRequest {
  merchantId: string;
  registerId: string;
  /** The merchant's fiscal identity of the regime's country. */
  fiscalIdentity: Record<string, unknown>;
  /** The fiscalize body's block of the regime (RT: `rt`, which driver), when one was sent. */
  options: Record<string, unknown> | null;
}

/** A rule of the regime that a record breaks (422 regime_validation_failed naming the field). */
export class RegimeRuleError extends Error {
  constructor(
    readonly regime: Regime,
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'RegimeRuleError';
  }
}

/**
 * The register or its device is in no state to do what was asked (not fiscalized,
 * no active device, no admin PIN): 422 validation_error naming the register.
 */
export class FiscalPreconditionError extends Error {
  constructor(
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'FiscalPreconditionError';
  }
}

/** One fiscal regime: how its registers get a device, how that device signs, and its own rules. */
export interface FiscalRegime {
  readonly regime: Regime;
  /** ISO 3166-1 alpha-3 country whose locations and fiscal identities the regime serves. */
  readonly countryCode: string;
  /** The name of the regime's block in the register's `fiscalization` and in the fiscalize body (RKSV: rksv, RT: rt); null without one. */
  readonly blockName: string | null;
  /** Creates the register's device inside the caller's transaction. */
  provision(sql: SqlClient, deps: FiscalDependencies & DeviceOptions, request: ProvisioningRequest): Promise<DeviceIdentity>;
  /**
   * The register's device, ready to sign. In the sandbox the regime applies the
   * register's fault simulation as its law has devices fail (KassenSichV: the
   * signing fails; RKSV: receipts carry the failure marker).
   */
  open(register: FiscalRegister & { deviceId: string; clientId: string }, deps: FiscalDependencies & DeviceOptions): FiscalDevice;
  /**
   * SQL of a lateral subquery on the registers row `register` (an alias) giving at most one row,
   * with one json column `device_state`: what the register's device signs from, locked for the
   * caller's transaction unless another transaction holds it (SKIP LOCKED: it never waits; the
   * device then locks it itself, within the device timeout). A completion reads it with the
   * operation it locks, which saves the device a round trip. Absent where the device keeps no
   * such state in the service's database.
   */
  lockedDeviceStateSql?(register: string): string;
  /** The regime's block of the register's `fiscalization` (DESIGN: RKSV `rksv`), empty when it has none. */
  fiscalizationBlock(details: DeviceDetails): Record<string, unknown>;
  /** The device's signature algorithm, as a failed signing attempt names it. */
  signatureAlgorithm(details: DeviceDetails): string | null;
  /** The record as responses publish it. */
  publish(record: FiscalRecord): PublishedFiscalRecord;
  /** What a printed receipt shows of a published record. */
  receiptSection(record: PublishedFiscalRecord): ReceiptFiscalSection;
  /** The code a receipt prints for a signed line's tax instead of its rate (an Italian natura code), or null; absent when the regime prints rates only. */
  lineTaxCode?(line: GoodsMovementContent['lineItems'][number]): string | null;
  /** Throws RegimeRuleError when the goods movement cannot be signed under the regime (checked at create, before payments). */
  checkGoodsMovement(movement: GoodsMovementContent): void;
  /** The goods movement's gross per VAT rate, as the regime signs it; the receipt's VAT table is built from it. */
  grossByVatRate(movement: GoodsMovementTurnover): RateGross[];
  /**
   * Takes the register's device out of service for good, when the regime has
   * such a step (KassenSichV); absent otherwise.
   */
  decommission?(sql: SqlClient, deviceId: string, at: Date): Promise<void>;
  /**
   * Sandbox: how the regime's tax authority answers the register (RT: daily
   * closures' transmissions; RKSV: FinanzOnline), when the regime has one.
   */
  authoritySimulation?: {
    modes: readonly string[];
    set(sql: SqlClient, register: { id: string; deviceId: string }, mode: string): Promise<void>;
  };
}
