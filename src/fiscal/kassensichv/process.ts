import { RegimeRuleError, type GoodsMovementContent, type RecordToSign } from '../fiscalDevice.js';
import { cashCountProcessData, cashTransferProcessData, KassenbelegMappingError, kassenbelegProcessData } from './kassenbeleg.js';

/** What the TSE signs for a record: processType, processData, and the document type it is logged as. */
export interface TseProcess {
  processType: string;
  processData: string;
  documentType: string;
}

/**
 * A record as a TR-03151 process (reference §6): goods movements as a
 * Kassenbeleg-V1 receipt, a cash count as SonstigerVorgang, a cash movement in
 * or out of the drawer as an AVTransfer receipt.
 */
export function processOf(record: RecordToSign): TseProcess {
  switch (record.kind) {
    case 'goods_movement':
      return goodsMovementProcess(record);
    case 'cash_count':
      return {
        processType: 'SonstigerVorgang',
        processData: cashCountProcessData(record.counted, record.expected, record.difference, record.currency),
        documentType: 'Kassenzaehlung',
      };
    case 'cash_transfer':
      return {
        processType: 'Kassenbeleg-V1',
        processData: cashTransferProcessData(record.amount, record.currency),
        documentType: 'AVTransfer',
      };
  }
}

/** A goods movement as a Kassenbeleg-V1 receipt; a line the receipt cannot carry is a RegimeRuleError. */
export function goodsMovementProcess(movement: GoodsMovementContent): TseProcess {
  try {
    return {
      processType: 'Kassenbeleg-V1',
      processData: kassenbelegProcessData({
        line_items: movement.lineItems,
        cart_level_discounts: movement.cartLevelDiscounts,
        tip_amount: movement.tipAmount,
        payments: movement.payments,
      }),
      documentType: 'Beleg',
    };
  } catch (error) {
    if (error instanceof KassenbelegMappingError) throw new RegimeRuleError('KassenSichV', error.field, error.message);
    throw error;
  }
}
