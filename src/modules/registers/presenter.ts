import type { Register, TseDevice } from '../../db/generated/client.js';
import type { RegisterView } from './schemas.js';

export type RegisterWithDevice = Register & { tse: TseDevice | null };

/** The register's device as its `fiscalization` and a failed signing attempt name it. */
export function deviceDescriptionOf(register: RegisterWithDevice): { serial: string | null; clientId: string | null; signatureAlgorithm: string | null } {
  return { serial: register.deviceSerial, clientId: register.clientId, signatureAlgorithm: register.tse?.algorithm ?? null };
}

export function presentRegister(register: RegisterWithDevice): RegisterView {
  return {
    id: register.id,
    merchant_id: register.merchantId,
    location_id: register.locationId,
    name: register.name,
    status: register.status as RegisterView['status'],
    fiscalization_status: register.fiscalizationStatus as RegisterView['fiscalization_status'],
    fiscalization:
      register.regime && register.fiscalizedAt
        ? {
            regime: register.regime as NonNullable<RegisterView['fiscalization']>['regime'],
            fiscalized_at: register.fiscalizedAt.toISOString(),
            tse_serial: register.deviceSerial,
            client_id: register.clientId,
          }
        : null,
    external_id: register.externalId,
    current_session_id: register.currentSessionId,
    resource_version: register.resourceVersion,
    created_at: register.createdAt.toISOString(),
    updated_at: register.updatedAt.toISOString(),
    decommissionedAt: register.decommissionedAt?.toISOString() ?? null,
  };
}
