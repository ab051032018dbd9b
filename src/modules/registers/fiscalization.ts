import type { Merchant } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { provisionSoftwareTse } from '../../fiscal/kassensichv/softwareTse.js';
import type { DeviceSimulation } from '../../fiscal/simulatedFaults.js';
import { conflict, validationError } from '../../domain/errors.js';
import { randomBase62 } from '../../lib/ids.js';
import type { AddressValue } from '../../db/records/address.js';
import type { Finalize } from '../common/transactions.js';
import type { RegisterWithDevice } from './presenter.js';
import { lockRegister } from './service.js';
import { sqlOf } from '../../db/sql.js';

const withDevice = { tse: true } as const;

/**
 * not_fiscalized -> fiscalized: a German register gets its own software TSE
 * and a client id (contract 4.1; DESIGN "Fiscal devices").
 */
export async function fiscalizeRegister(
  ctx: AppContext,
  merchant: Merchant,
  id: string,
  finalize?: Finalize<RegisterWithDevice>,
): Promise<RegisterWithDevice> {
  return ctx.db.$transaction(async (tx) => {
    const register = await lockRegister(tx, merchant, id);
    if (['fiscalized', 'pending', 'decommissioned'].includes(register.fiscalizationStatus)) {
      const decommissioned = register.fiscalizationStatus === 'decommissioned';
      throw conflict(
        'register_already_fiscalized',
        decommissioned ? 'A decommissioned register cannot be fiscalized again; create a new register' : 'The register is already fiscalized',
        { fiscalization_status: register.fiscalizationStatus, alias: 'fiscalization_conflict' },
      );
    }
    const identities = merchant.fiscalIdentities as { country_code: string }[];
    if (!identities.some((identity) => identity.country_code === 'DEU')) {
      throw validationError('The merchant has no DEU fiscal identity', { field: 'fiscal_identities', required_country_code: 'DEU' });
    }
    const location = await tx.location.findUniqueOrThrow({ where: { id: register.locationId } });
    const country = (location.address as AddressValue).country_code;
    if (country !== 'DEU') {
      throw validationError('KassenSichV fiscalization needs a location in Germany', {
        field: 'location_id',
        location_country_code: country,
      });
    }
    const { device } = await provisionSoftwareTse(tx, ctx.secrets, merchant.id);
    const now = new Date();
    const fiscalized = await tx.register.update({
      where: { id },
      data: {
        fiscalizationStatus: 'fiscalized',
        regime: 'KassenSichV',
        fiscalizedAt: now,
        tseId: device.id,
        // TR-03151 client ids are PrintableString: no underscore, so not the register id itself.
        clientId: `ERS-${randomBase62(20)}`,
        resourceVersion: { increment: 1 },
        updatedAt: now,
      },
      include: withDevice,
    });
    await finalize?.(sqlOf(tx), fiscalized);
    return fiscalized;
  });
}

/** fiscalized -> decommissioned (KassenSichV only): the TSE is taken out of service for good. */
export async function decommissionRegister(
  ctx: AppContext,
  merchant: Merchant,
  id: string,
  finalize?: Finalize<RegisterWithDevice>,
): Promise<RegisterWithDevice> {
  return ctx.db.$transaction(async (tx) => {
    const register = await lockRegister(tx, merchant, id);
    if (register.fiscalizationStatus !== 'fiscalized') {
      const decommissioned = register.fiscalizationStatus === 'decommissioned';
      throw conflict(
        'register_invalid_fiscal_state',
        decommissioned ? 'The register is already decommissioned' : 'The register was never fiscalized',
        { fiscalization_status: register.fiscalizationStatus, alias: 'decommission_conflict' },
      );
    }
    if (register.regime !== 'KassenSichV') {
      throw validationError('Only KassenSichV registers can be decommissioned', { field: 'register_id', regime: register.regime });
    }
    if (!register.tse || register.tse.status !== 'active' || !register.clientId) {
      throw validationError('The register has no active fiscal device or client', { field: 'register_id' });
    }
    if (!register.tse.adminPinHash) {
      throw validationError('The fiscal device has no admin PIN, so it cannot be decommissioned', { field: 'register_id' });
    }
    const now = new Date();
    await tx.tseDevice.update({ where: { id: register.tse.id }, data: { status: 'decommissioned', decommissionedAt: now } });
    const decommissioned = await tx.register.update({
      where: { id },
      data: { fiscalizationStatus: 'decommissioned', decommissionedAt: now, resourceVersion: { increment: 1 }, updatedAt: now },
      include: withDevice,
    });
    await finalize?.(sqlOf(tx), decommissioned);
    return decommissioned;
  });
}

export async function setDeviceSimulation(
  ctx: AppContext,
  merchant: Merchant,
  id: string,
  mode: DeviceSimulation,
): Promise<RegisterWithDevice> {
  return ctx.db.$transaction(async (tx) => {
    await lockRegister(tx, merchant, id);
    return tx.register.update({ where: { id }, data: { deviceSimulation: mode }, include: withDevice });
  });
}
