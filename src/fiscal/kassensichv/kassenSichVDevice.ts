import type { DeviceExchange, FiscalDevice, RecordToSign } from '../fiscalDevice.js';
import type { Tse } from './device.js';
import { buildFiscalRecord, type KassenSichVFiscalRecord } from './fiscalInformation.js';
import { processOf } from './process.js';

/** A fiscalized German register's device: its TSE and the register's TR-03151 client id. */
export class KassenSichVDevice implements FiscalDevice {
  constructor(
    private readonly tse: Tse,
    private readonly clientId: string,
  ) {}

  async sign(exchange: DeviceExchange, record: RecordToSign): Promise<KassenSichVFiscalRecord> {
    const process = processOf(record);
    const signed = await this.tse.transact(exchange, {
      clientId: this.clientId,
      processType: process.processType,
      processData: process.processData,
      recordKey: record.documentNumber,
    });
    return buildFiscalRecord(signed, { clientId: this.clientId, documentNumber: record.documentNumber, documentType: process.documentType });
  }
}
