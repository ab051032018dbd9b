import type { z } from 'zod';
import type { Merchant, Register } from '../../db/generated/client.js';
import type { DeviceDetails, FiscalRegister } from '../../fiscal/fiscalDevice.js';
import type { AppContext } from '../../context.js';
import { assertCurrentVersion } from '../../domain/resourceVersion.js';
import { conflict, notFound } from '../../domain/errors.js';
import { newId } from '../../lib/ids.js';
import type { Tx } from '../../db/transaction.js';
import type { Finalize } from '../common/transactions.js';
import type { CreateRegisterBody, UpdateRegisterBody } from './schemas.js';
import { sqlOf } from '../../db/sql.js';

/** A register as the fiscal layer sees it. */
export function fiscalRegisterOf(register: Register): FiscalRegister {
  return {
    id: register.id,
    regime: register.regime,
    fiscalizationStatus: register.fiscalizationStatus,
    deviceId: register.deviceId,
    clientId: register.clientId,
    deviceSimulation: register.deviceSimulation,
    deviceDetails: (register.deviceDetails ?? {}) as DeviceDetails,
  };
}

export async function findRegister(db: AppContext['db'] | Tx, merchant: Merchant, id: string): Promise<Register> {
  const register = await db.register.findFirst({ where: { id, merchantId: merchant.id } });
  if (!register) throw notFound('register', id);
  return register;
}

/** Locks the register row: the serialization point for its sessions, sequence numbers and device. */
export async function lockRegister(tx: Tx, merchant: Merchant, id: string): Promise<Register> {
  await tx.$queryRaw`SELECT id FROM registers WHERE id = ${id} FOR UPDATE`;
  return findRegister(tx, merchant, id);
}

export async function createRegister(
  ctx: AppContext,
  merchant: Merchant,
  input: z.infer<typeof CreateRegisterBody>,
  finalize?: Finalize<Register>,
): Promise<Register> {
  return ctx.db.$transaction(async (tx) => {
    const location = await tx.location.findFirst({ where: { id: input.location_id, merchantId: merchant.id } });
    if (!location) {
      throw notFound('location', input.location_id);
    }
    const register = await tx.register.create({
      data: {
        id: newId('reg'),
        merchantId: merchant.id,
        locationId: location.id,
        name: input.name,
        status: 'active',
        externalId: input.external_id ?? null,
        fiscalizationStatus: 'not_fiscalized',
      },
    });
    await finalize?.(sqlOf(tx), register);
    return register;
  });
}

export async function listRegisters(ctx: AppContext, merchant: Merchant): Promise<Register[]> {
  return ctx.db.register.findMany({
    where: { merchantId: merchant.id },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

export async function updateRegister(
  ctx: AppContext,
  merchant: Merchant,
  id: string,
  input: z.infer<typeof UpdateRegisterBody>,
  expectedVersion: number | undefined,
  finalize?: Finalize<Register>,
): Promise<Register> {
  return ctx.db.$transaction(async (tx) => {
    const current = await lockRegister(tx, merchant, id);
    assertCurrentVersion(expectedVersion, current.resourceVersion);
    const register = await tx.register.update({
      where: { id },
      data: {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.status !== undefined ? { status: input.status } : {}),
        ...(input.external_id !== undefined ? { externalId: input.external_id } : {}),
        resourceVersion: { increment: 1 },
        updatedAt: new Date(),
      },
    });
    await finalize?.(sqlOf(tx), register);
    return register;
  });
}

/** Fiscal records must be kept: a register with operations or a fiscal device history cannot be deleted. */
export async function deleteRegister(ctx: AppContext, merchant: Merchant, id: string): Promise<void> {
  await ctx.db.$transaction(async (tx) => {
    const register = await lockRegister(tx, merchant, id);
    const operations = await tx.operation.count({ where: { registerId: id } });
    const fiscal = !['not_fiscalized', 'failed'].includes(register.fiscalizationStatus);
    if (operations > 0 || fiscal) {
      throw conflict(
        'register_has_dependencies',
        fiscal ? 'The register is fiscalized; decommission keeps its fiscal history' : 'The register has operations',
        { operation_count: operations, fiscalization_status: register.fiscalizationStatus, alias: 'register_delete_conflict' },
      );
    }
    await tx.registerSession.deleteMany({ where: { registerId: id } });
    await tx.register.delete({ where: { id } });
  });
}
