import type { Merchant, Prisma } from '../generated/client.js';

/** The columns of `merchants` (aliased `m`), each prefixed `m_` so they can sit beside another table's in one row. */
export const MERCHANT_COLUMNS = `m.id AS m_id, m.tenant_id AS m_tenant_id, m.legal_name AS m_legal_name, m.country_code AS m_country_code,
  m.status AS m_status, m.address AS m_address, m.fiscal_identities AS m_fiscal_identities,
  m.resource_version AS m_resource_version, m.created_at AS m_created_at, m.updated_at AS m_updated_at`;

export interface MerchantRow {
  m_id: string;
  m_tenant_id: string;
  m_legal_name: string;
  m_country_code: string;
  m_status: string;
  m_address: Prisma.JsonValue;
  m_fiscal_identities: Prisma.JsonValue;
  m_resource_version: number;
  m_created_at: Date;
  m_updated_at: Date;
}

/** The merchant of a row read with MERCHANT_COLUMNS, as Prisma returns it; null when the join found none. */
export function merchantFromRow(row: Partial<MerchantRow>): Merchant | null {
  if (!row.m_id) return null;
  return {
    id: row.m_id,
    tenantId: row.m_tenant_id!,
    legalName: row.m_legal_name!,
    countryCode: row.m_country_code!,
    status: row.m_status!,
    address: row.m_address!,
    fiscalIdentities: row.m_fiscal_identities!,
    resourceVersion: row.m_resource_version!,
    createdAt: row.m_created_at!,
    updatedAt: row.m_updated_at!,
  };
}
