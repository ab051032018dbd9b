import { describe, expect, it } from 'vitest';
import { certificateFileName, infoCsv, transactionLogFileName } from '../../src/exports/tseTar/tseTarFileNames.js';
import type { TransactionLogFields } from '../../src/fiscal/kassensichv/transactionLog.js';
import { TTC_LOG_FILE, TTC_TRANSACTION_LOG_FILE } from '../support/tseTar.js';

const log = (overrides: Partial<TransactionLogFields> = {}): TransactionLogFields => ({
  operationType: 'FinishTransaction',
  clientId: 'ERS-3sExYRpwq8ujFvfLxBs9',
  processData: 'Beleg^11.90_0.00_0.00_0.00_0.00^11.90:Bar',
  processType: 'Kassenbeleg-V1',
  transactionNumber: 50,
  serialNumber: 'e11e1a155b6166b2f1844e8f063ae44837869bfa5689dfb7bae8524444d54e52',
  algorithm: 'ecdsa-plain-SHA256',
  signatureCounter: 100,
  logTime: new Date('2026-12-04T01:12:35.000Z'),
  ...overrides,
});

describe('TSE TAR file names', () => {
  it('names a transaction log by its log time in unix seconds, counters, operation and client, as real exports do', () => {
    expect(transactionLogFileName(log())).toBe('Unixt_1796346755_Sig-100_Log-Tra_No-50_Finish_Client-ERS-3sExYRpwq8ujFvfLxBs9.log');
    expect(transactionLogFileName(log({ operationType: 'StartTransaction', signatureCounter: 99, processType: '', processData: '' }))).toBe(
      'Unixt_1796346755_Sig-99_Log-Tra_No-50_Start_Client-ERS-3sExYRpwq8ujFvfLxBs9.log',
    );
    expect(transactionLogFileName(log({ operationType: 'UpdateTransaction' }))).toContain('_No-50_Update_Client-');
    // The log time is signed in whole seconds; the name says the same second.
    expect(transactionLogFileName(log({ logTime: new Date('2026-12-04T01:12:35.999Z') }))).toMatch(/^Unixt_1796346755_/);
  });

  it('matches the names TTC reads as transaction logs', () => {
    for (const operationType of ['StartTransaction', 'UpdateTransaction', 'FinishTransaction'] as const) {
      const name = transactionLogFileName(log({ operationType }));
      expect(name).toMatch(TTC_LOG_FILE);
      expect(name).toMatch(TTC_TRANSACTION_LOG_FILE);
    }
  });

  it('names a certificate by its upper-case key hash, the part TTC compares with the logs\' serial', () => {
    expect(certificateFileName(log().serialNumber)).toBe('E11E1A155B6166B2F1844E8F063AE44837869BFA5689DFB7BAE8524444D54E52_X509.crt');
  });

  it('writes info.csv as one line of quoted label/value pairs', () => {
    expect(infoCsv({ description: 'Sandbox software TSE (not certified)', manufacturer: 'Fiscalization Service', version: '1.0' })).toBe(
      '"description:","Sandbox software TSE (not certified)","manufacturer:","Fiscalization Service","version:","1.0"\n',
    );
    expect(infoCsv({ description: 'say "hi"', manufacturer: 'M', version: 'V' })).toBe('"description:","say ""hi""","manufacturer:","M","version:","V"\n');
  });
});
