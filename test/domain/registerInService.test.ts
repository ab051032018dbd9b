// A decommissioned register takes no further operations, whatever its regime (409).
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { assertRegisterInService } from '../../src/domain/registers/inService.js';

describe('assertRegisterInService', () => {
  it('lets every register through that is not decommissioned', () => {
    for (const status of ['not_fiscalized', 'pending', 'failed', 'fiscalized']) {
      expect(() => assertRegisterInService({ id: 'reg_1', fiscalizationStatus: status })).not.toThrow();
    }
  });

  it('refuses a decommissioned register with 409 register_invalid_fiscal_state naming it', () => {
    let refusal: unknown;
    try {
      assertRegisterInService({ id: 'reg_1', fiscalizationStatus: 'decommissioned' });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(DomainError);
    expect(refusal).toMatchObject({
      kind: 'conflict',
      code: 'register_invalid_fiscal_state',
      details: { register_id: 'reg_1', fiscalization_status: 'decommissioned' },
    });
  });
});
