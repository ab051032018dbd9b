import type { Operation } from '../../db/generated/client.js';
import type { FiscalRecord } from '../../fiscal/fiscalDevice.js';

/**
 * The operation's signed record. It stays beside the services, apart from the other stored
 * shapes (src/db/records/operation.ts): its type is the fiscal layer's, which src/db may not import.
 */
export const fiscalRecordOf = (operation: Operation) => operation.fiscalInformation as unknown as FiscalRecord | null;
