import type { Merchant } from '../../db/generated/client.js';
import type { AppContext } from '../../context.js';
import { validationError } from '../../domain/errors.js';
import { cryptographicMaterialOf, type CryptographicMaterialContainer } from '../../fiscal/rksv/cryptoMaterial.js';
import { findRegister } from '../registers/service.js';

/**
 * An RKSV register's crypto material: for its FinanzOnline registration and
 * for auditors, so a register taken out of service (closing receipt) still has it.
 */
export async function getRksvCryptoMaterial(ctx: AppContext, merchant: Merchant, registerId: string): Promise<CryptographicMaterialContainer> {
  const register = await findRegister(ctx.db, merchant, registerId);
  const material = await cryptographicMaterialOf(ctx.sql, ctx.secrets, register.id);
  if (!material) {
    throw validationError('Only an RKSV register that has been fiscalized has crypto material', {
      field: 'register_id',
      register_id: register.id,
      regime: register.regime,
      fiscalization_status: register.fiscalizationStatus,
    });
  }
  return material;
}
