import type { Merchant, Prisma, Register } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { FiscalPreconditionError } from '../../fiscal/fiscalDevice.js';
import { builtRegimeCountries, regimeForCountry, regimeNamed } from '../../fiscal/regimes.js';
import type { DeviceSimulation } from '../../fiscal/simulatedFaults.js';
import type { AuthoritySimulation } from './schemas.js';
import { conflict, validationError } from '../../domain/errors.js';
import type { AddressValue } from '../../db/records/address.js';
import type { Finalize } from '../common/transactions.js';
import { fiscalFailureAsDomainError, signingDependencies } from '../common/fiscalSigning.js';
import { lockRegister } from './service.js';
import type { FiscalizeBodyInput } from './schemas.js';
import { sqlOf } from '../../db/sql.js';

/**
 * not_fiscalized -> fiscalized under the regime of the location's country
 * (DESIGN "One fiscal layer for three regimes"), which provisions the
 * register's device: for a German register its own software TSE and a client id,
 * for an Austrian one its signature unit, AES key and signed start receipt.
 */
export async function fiscalizeRegister(
  ctx: AppContext,
  merchant: Merchant,
  id: string,
  body: FiscalizeBodyInput,
  finalize?: Finalize<Register>,
): Promise<Register> {
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
    const location = await tx.location.findUniqueOrThrow({ where: { id: register.locationId } });
    const country = (location.address as AddressValue).country_code;
    const regime = regimeForCountry(country);
    if (!regime) {
      throw validationError(`Registers can be fiscalized at locations in ${builtRegimeCountries().join(', ')} only`, {
        field: 'location_id',
        location_country_code: country,
      });
    }
    const identities = merchant.fiscalIdentities as { country_code: string }[];
    const identity = identities.find((candidate) => candidate.country_code === regime.countryCode);
    if (!identity) {
      throw validationError(`The merchant has no ${regime.countryCode} fiscal identity`, {
        field: 'fiscal_identities',
        required_country_code: regime.countryCode,
      });
    }
    // The body holds at most the block of the register's own regime (RT: which driver).
    const blocks = Object.keys(body ?? {});
    const foreign = blocks.find((block) => block !== regime.blockName);
    if (foreign) {
      throw validationError(`${foreign} applies to registers of another regime; this register is fiscalized under ${regime.regime}`, { field: foreign });
    }
    const options = regime.blockName && body ? ((body as Record<string, Record<string, unknown> | undefined>)[regime.blockName] ?? null) : null;
    let device;
    try {
      device = await regime.provision(sqlOf(tx), signingDependencies(ctx), { merchantId: merchant.id, registerId: id, fiscalIdentity: identity, options });
    } catch (error) {
      throw fiscalFailureAsDomainError(error, id);
    }
    const now = ctx.clock();
    const fiscalized = await tx.register.update({
      where: { id },
      data: {
        fiscalizationStatus: 'fiscalized',
        regime: regime.regime,
        fiscalizedAt: now,
        deviceId: device.deviceId,
        deviceSerial: device.serial,
        deviceDetails: device.details as Prisma.InputJsonObject,
        clientId: device.clientId,
        resourceVersion: { increment: 1 },
        updatedAt: now,
      },
    });
    await finalize?.(sqlOf(tx), fiscalized);
    return fiscalized;
  });
}

/** fiscalized -> decommissioned, for regimes with such a step (KassenSichV): the device is taken out of service for good. */
export async function decommissionRegister(
  ctx: AppContext,
  merchant: Merchant,
  id: string,
  finalize?: Finalize<Register>,
): Promise<Register> {
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
    const regime = regimeNamed(register.regime);
    if (!regime?.decommission) {
      throw validationError('Only KassenSichV registers can be decommissioned', { field: 'register_id', regime: register.regime });
    }
    if (!register.deviceId || !register.clientId) {
      throw validationError('The register has no active fiscal device or client', { field: 'register_id' });
    }
    const now = new Date();
    try {
      await regime.decommission(sqlOf(tx), register.deviceId, now);
    } catch (error) {
      if (error instanceof FiscalPreconditionError) throw validationError(error.message, error.details);
      throw error;
    }
    const decommissioned = await tx.register.update({
      where: { id },
      data: { fiscalizationStatus: 'decommissioned', decommissionedAt: now, resourceVersion: { increment: 1 }, updatedAt: now },
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
  authority?: AuthoritySimulation,
): Promise<Register> {
  return ctx.db.$transaction(async (tx) => {
    const register = await lockRegister(tx, merchant, id);
    if (authority !== undefined) {
      const simulation = regimeNamed(register.regime)?.authoritySimulation;
      if (!simulation || !register.deviceId) {
        throw validationError('authority applies to fiscalized Italian (RT) and Austrian (RKSV) registers only', { field: 'authority', regime: register.regime });
      }
      if (!simulation.modes.includes(authority)) {
        throw validationError(`authority of a ${register.regime} register is one of ${simulation.modes.join(', ')}`, { field: 'authority', regime: register.regime });
      }
      await simulation.set(sqlOf(tx), { id, deviceId: register.deviceId }, authority);
    }
    return tx.register.update({ where: { id }, data: { deviceSimulation: mode } });
  });
}
