import { Decimal } from 'decimal.js';
import { FiscalDeviceError } from '../../deviceErrors.js';
import { FiscalPreconditionError } from '../../fiscalDevice.js';
import type { RtTax } from '../rtDriver.js';

/**
 * Which printer department (reparto) each VAT rate or natura code is sold under:
 * keys are rates as decimal strings (`0.22`) or natura codes (`N1`, `N2.1`).
 * The printer's own configuration ties each department to its rate; this table
 * must match it.
 */
export type DepartmentTable = Readonly<Record<string, number>>;

/** The departments of a printer left as Epson ships it (DESIGN "Italy: RT"). */
export const DEFAULT_DEPARTMENTS: DepartmentTable = {
  '0.22': 1,
  '0.10': 2,
  '0.05': 3,
  '0.04': 4,
  N1: 5,
  N2: 6,
  N3: 7,
  N4: 8,
  N5: 9,
  N6: 10,
  N7: 11,
};

const ITALIAN_RATES = ['0.22', '0.10', '0.05', '0.04'];
const NATURA_CODE = /^N[1-7](\.\d{1,2})?$/;
/** Epson RT printers number their departments 1 to 99. */
const LAST_DEPARTMENT = 99;

/** A rate as the table keys it: two decimals, so `0.1` and `0.10` are one rate. */
const rateKey = (rate: string): string | undefined => {
  if (!/^\d+(\.\d+)?$/.test(rate)) return undefined;
  const key = new Decimal(rate).toFixed(2);
  return ITALIAN_RATES.includes(key) ? key : undefined;
};

/**
 * Checks a configured table and keys its rates uniformly. A configured table
 * replaces the default as a whole: a printer set up differently from Epson's
 * defaults would otherwise sell some rates under a wrong department.
 */
export function departmentTable(entries: Record<string, unknown> | undefined): DepartmentTable {
  if (entries === undefined) return DEFAULT_DEPARTMENTS;
  const table: Record<string, number> = {};
  for (const [key, department] of Object.entries(entries)) {
    const field = `departments.${key}`;
    const normalized = NATURA_CODE.test(key) ? key : rateKey(key);
    if (!normalized) {
      throw new FiscalPreconditionError(`A department table key is an Italian VAT rate (${ITALIAN_RATES.join(', ')}) or a natura code (N1 ... N7); "${key}" is neither`, { field });
    }
    if (typeof department !== 'number' || !Number.isInteger(department) || department < 1 || department > LAST_DEPARTMENT) {
      throw new FiscalPreconditionError(`A printer department is a whole number from 1 to ${LAST_DEPARTMENT}`, { field });
    }
    if (normalized in table) throw new FiscalPreconditionError(`${normalized} is listed twice in the department table`, { field });
    table[normalized] = department;
  }
  return table;
}

/**
 * The department a line is sold under. A natura sub-code (`N2.1`) falls back to
 * its code (`N2`) when the table names no department for it. A tax the table
 * does not cover is refused before anything is sent (phase 1).
 */
export function departmentOf(table: DepartmentTable, tax: RtTax): number {
  const keys = tax.kind === 'rate' ? [rateKey(tax.rate)] : [tax.natura, tax.natura.split('.')[0]];
  for (const key of keys) {
    if (key !== undefined && table[key] !== undefined) return table[key];
  }
  const named = tax.kind === 'rate' ? `VAT rate ${tax.rate}` : `natura ${tax.natura}`;
  throw new FiscalDeviceError(1, 'rejected', `The printer's department table names no department for ${named}`);
}
