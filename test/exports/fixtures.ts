import type { DsfinvkClosingSource, DsfinvkMasterData, DsfinvkOperation } from '../../src/exports/dsfinvk/model.js';

type Line = DsfinvkOperation['lineItems'][number];

export const PUBLIC_KEY = 'BGFKQP7EENf3s5hTDXvlh+xyJ1Q9BNIa9LyYbYK+pTAKAGQ2fmI40p5QOrpHpvb+UuOrNQJdhzggHNfyyyDyf/g=';

export function master(overrides: Partial<DsfinvkMasterData> & { registerId?: string } = {}): DsfinvkMasterData {
  const { registerId = 'reg_A', ...rest } = overrides;
  return {
    closingNumber: 7,
    closedAt: new Date('2026-03-15T21:30:00.000Z'),
    businessDay: '2026-03-15',
    timezone: 'Europe/Berlin',
    openedAt: new Date('2026-03-15T07:00:00.000Z'),
    register: {
      id: registerId,
      name: `Kasse ${registerId}`,
      clientId: `ERS ${registerId}`,
      brand: 'Fiscalization Service',
      model: 'Software TSE register',
      software: 'fiscalization-service',
      softwareVersion: '1.1.0',
      baseCurrency: 'EUR',
    },
    location: { name: 'Filiale Mitte', street: 'Kastanienallee 12', postalCode: '10435', city: 'Berlin', countryCode: 'DEU' },
    company: {
      legalName: 'Bäckerei Müller GmbH',
      street: 'Hauptstraße 1',
      postalCode: '10115',
      city: 'Berlin',
      countryCode: 'DEU',
      taxNumber: '27/123/45678',
      vatId: 'DE123456789',
    },
    tse: {
      id: 1,
      serialNumber: 'aadfb3152cbde762aa5027e350ba9aeacb69b6236b4f25fc3ea78b69e610952a',
      signatureAlgorithm: 'ecdsa-plain-SHA256',
      timeFormat: 'unixTime',
      publicKey: PUBLIC_KEY,
      processDataEncoding: 'UTF-8',
    },
    openingAmount: '100.00',
    ...rest,
  };
}

export function line(overrides: Partial<Line> & { rate?: string; tax?: string } = {}): Line {
  const { rate = '0.19', tax, ...rest } = overrides;
  const totalAmount = rest.totalAmount ?? '10.00';
  return {
    id: `li_${Math.random().toString(36).slice(2, 10)}`,
    type: 'item',
    title: 'Artikel',
    quantity: 1,
    unitPrice: totalAmount.replace('-', ''),
    totalAmount,
    skuIdentifier: 'SKU-1',
    taxes: [{ rate, taxAmount: tax ?? '0' }],
    giftCardId: null,
    ...rest,
  };
}

export function giftCardLine(amount: string, giftCardId: string): Line {
  return line({ type: 'gift_card', title: 'Geschenkkarte', totalAmount: amount, unitPrice: amount, skuIdentifier: 'GIFT', rate: '0', tax: '0', giftCardId });
}

let counter = 0;

export function operation(overrides: Partial<DsfinvkOperation> = {}): DsfinvkOperation {
  counter += 1;
  const createdAt = overrides.createdAt ?? new Date('2026-03-15T10:00:00.000Z');
  return {
    id: `op_${String(counter).padStart(6, '0')}`,
    type: 'sale',
    status: 'completed',
    sequenceNumber: counter,
    currency: 'EUR',
    createdAt,
    completedAt: new Date(createdAt.getTime() + 30_000),
    voidedAt: null,
    relatedOperation: null,
    externalRelatedOperation: null,
    lineItems: [],
    cartLevelDiscounts: [],
    tipAmount: '0',
    totalAmount: '0',
    pretaxAmount: '0',
    taxAmount: '0',
    payments: [],
    session: null,
    tse: null,
    ...overrides,
  };
}

export function tseData(transactionNumber: number, processType = 'Kassenbeleg-V1', processData = 'Beleg^0.00_0.00_0.00_0.00_0.00^') {
  return {
    transactionNumber,
    startSignatureCounter: transactionNumber * 2,
    finishSignatureCounter: transactionNumber * 2 + 1,
    startTime: '2026-03-15T10:00:00.000Z',
    endTime: '2026-03-15T10:00:30.000Z',
    processType,
    processData,
    signature: 'TGnWiq3ZW7gi4Vs+DxLGsJZj9v271dHmhQAcb057F3oWkdKJ61UW2LLVTZQhW673yLa53Mm6oPeMU1Ns3ZOH7w==',
  };
}

export function cash(amount: string) {
  return { method: 'cash', amount, currency: 'EUR', giftCardId: null };
}

export function closing(masterData: DsfinvkMasterData, operations: DsfinvkOperation[]): DsfinvkClosingSource {
  return {
    master: masterData,
    async *operations() {
      yield* operations;
    },
  };
}

export async function* fromArray<T>(items: T[]): AsyncIterable<T> {
  yield* items;
}
