import type { Prisma, Register } from '../generated/client.js';

/** Every column of `registers` (aliased `r`), for statements that return a whole register through plain SQL. */
export const REGISTER_COLUMNS = `r.id, r.merchant_id, r.location_id, r.name, r.status, r.external_id, r.fiscalization_status, r.regime,
  r.fiscalized_at, r.decommissioned_at, r.device_id, r.device_serial, r.device_details, r.client_id, r.current_session_id,
  r.device_simulation, r.device_failed_since, r.next_sequence_number, r.next_closing_number, r.resource_version, r.created_at,
  r.updated_at`;

export interface RegisterRow {
  id: string;
  merchant_id: string;
  location_id: string;
  name: string;
  status: string;
  external_id: string | null;
  fiscalization_status: string;
  regime: string | null;
  fiscalized_at: Date | null;
  decommissioned_at: Date | null;
  device_id: string | null;
  device_serial: string | null;
  device_details: Prisma.JsonValue | null;
  client_id: string | null;
  current_session_id: string | null;
  device_simulation: string;
  device_failed_since: Date | null;
  next_sequence_number: number;
  next_closing_number: number;
  resource_version: number;
  created_at: Date;
  updated_at: Date;
}

/** The register of a row read with REGISTER_COLUMNS, as Prisma returns it. */
export const registerFromRow = (row: RegisterRow): Register => ({
  id: row.id,
  merchantId: row.merchant_id,
  locationId: row.location_id,
  name: row.name,
  status: row.status,
  externalId: row.external_id,
  fiscalizationStatus: row.fiscalization_status,
  regime: row.regime,
  fiscalizedAt: row.fiscalized_at,
  decommissionedAt: row.decommissioned_at,
  deviceId: row.device_id,
  deviceSerial: row.device_serial,
  deviceDetails: row.device_details,
  clientId: row.client_id,
  currentSessionId: row.current_session_id,
  deviceSimulation: row.device_simulation,
  deviceFailedSince: row.device_failed_since,
  nextSequenceNumber: row.next_sequence_number,
  nextClosingNumber: row.next_closing_number,
  resourceVersion: row.resource_version,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});
