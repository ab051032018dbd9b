import { FiscalPreconditionError } from '../../fiscalDevice.js';
import { departmentTable, type DepartmentTable } from './departments.js';

/** How a register reaches its Epson RT printer (DESIGN "Italy: RT", driver `epson_fpmate`). */
export interface EpsonFpmateConfig {
  /** The printer's base URL, or the full URL of its `fpmate.cgi`. */
  url: string;
  /** The printer's device id on its web server (`devid`); `local_printer` when absent. */
  deviceId?: string;
  /** The printer's matricola: 11 characters [0-9A-Z]. */
  serial: string;
  /** VAT rate or natura -> department; Epson's defaults when absent (departments.ts). */
  departments?: Record<string, unknown>;
}

/** A checked configuration, ready to use. */
export interface EpsonFpmateSettings {
  /** `fpmate.cgi` with `devid`, without `timeout` (each call adds its own). */
  endpoint: URL;
  serial: string;
  departments: DepartmentTable;
}

const DEFAULT_DEVICE_ID = 'local_printer';
const MATRICOLA = /^[0-9A-Z]{11}$/;
const DEVICE_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/** `<url>/cgi-bin/fpmate.cgi`, or the URL as it is when it already names `fpmate.cgi`. */
function fpmateUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new FiscalPreconditionError(`The printer's url "${url}" is not a URL`, { field: 'url' });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new FiscalPreconditionError(`The printer's url must be http or https, not ${parsed.protocol}`, { field: 'url' });
  }
  if (!parsed.pathname.endsWith('/fpmate.cgi')) parsed.pathname = `${parsed.pathname.replace(/\/+$/, '')}/cgi-bin/fpmate.cgi`;
  return parsed;
}

/** Checks a register's printer configuration; a bad one is a FiscalPreconditionError naming the field. */
export function epsonFpmateSettings(config: EpsonFpmateConfig): EpsonFpmateSettings {
  const endpoint = fpmateUrl(config.url);
  const deviceId = config.deviceId ?? endpoint.searchParams.get('devid') ?? DEFAULT_DEVICE_ID;
  if (!DEVICE_ID.test(deviceId)) throw new FiscalPreconditionError('The printer\'s device id is 1 to 64 characters [A-Za-z0-9_.-]', { field: 'deviceId' });
  if (!MATRICOLA.test(config.serial)) throw new FiscalPreconditionError('The printer\'s serial (matricola) is 11 characters [0-9A-Z]', { field: 'serial' });
  endpoint.searchParams.set('devid', deviceId);
  return { endpoint, serial: config.serial, departments: departmentTable(config.departments) };
}
