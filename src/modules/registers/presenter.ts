import type { Register } from '../../db/generated/client.js';
import type { DeviceDetails } from '../../fiscal/fiscalDevice.js';
import { regimeNamed } from '../../fiscal/regimes.js';
import type { RegisterView } from './schemas.js';

const detailsOf = (register: Register): DeviceDetails => (register.deviceDetails ?? {}) as DeviceDetails;

/** The register's device as its `fiscalization` and a failed signing attempt name it. */
export interface DeviceDescription {
  serial: string | null;
  clientId: string | null;
  signatureAlgorithm: string | null;
  /** The algorithm suite of the regime's records, where it names one (RKSV: R1-AT0, R1-AT1). */
  suite: string | null;
}

export function deviceDescriptionOf(register: Register): DeviceDescription {
  const regime = regimeNamed(register.regime);
  const details = detailsOf(register);
  return {
    serial: register.deviceSerial,
    clientId: register.clientId,
    signatureAlgorithm: regime?.signatureAlgorithm(details) ?? null,
    suite: typeof details.suite === 'string' ? details.suite : null,
  };
}

export function presentRegister(register: Register): RegisterView {
  const regime = regimeNamed(register.regime);
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
            ...regime?.fiscalizationBlock(detailsOf(register)),
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
