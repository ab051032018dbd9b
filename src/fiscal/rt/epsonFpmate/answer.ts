import { XMLParser } from 'fast-xml-parser';
import { defaultTimeZone } from '../../../domain/countryTimeZones.js';
import { instantAtLocal } from '../../../domain/localTime.js';
import { FiscalDeviceError } from '../../deviceErrors.js';

/**
 * What a successful answer of fpmate.cgi tells: the text of each child of
 * `s:Envelope/s:Body/response/addInfo`, by name (reference italy.md §7).
 */
export type PrinterAnswer = Readonly<Record<string, string>>;

/** The printer's clock runs on Italian time. */
const ITALY = defaultTimeZone('ITA');

// Namespace prefixes dropped: printers answer with `s:` or `soapenv:` alike.
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
});

/**
 * An answer the driver cannot read. The printer got the whole request, so it
 * may have printed and recorded the document: phase 2.
 */
const malformedAnswer = (why: string): FiscalDeviceError =>
  new FiscalDeviceError(2, 'rejected', `The printer's answer cannot be read (${why}); it may have recorded the document`);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads the printer's answer. `success="false"` is the printer refusing the
 * command before printing anything (offline, paper end, cover open, ...): a
 * phase-1 rejection with the printer's code and status.
 */
export function readAnswer(text: string): PrinterAnswer {
  let document: unknown;
  try {
    document = parser.parse(text, true);
  } catch {
    throw malformedAnswer('not XML');
  }
  const envelope = isRecord(document) ? document.Envelope : undefined;
  const body = isRecord(envelope) ? envelope.Body : undefined;
  const response = isRecord(body) ? body.response : undefined;
  if (!isRecord(response)) throw malformedAnswer('no s:Envelope/s:Body/response');
  const code = typeof response['@code'] === 'string' ? response['@code'] : '';
  const status = typeof response['@status'] === 'string' ? response['@status'] : '';
  if (response['@success'] === 'false') {
    throw new FiscalDeviceError(1, 'rejected', `The printer refused the command: code ${code || '(none)'}, status ${status || '(none)'}`);
  }
  if (response['@success'] !== 'true') throw malformedAnswer('response has no success="true|false"');
  const addInfo = isRecord(response.addInfo) ? response.addInfo : {};
  return Object.fromEntries(
    Object.entries(addInfo)
      .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
      .map(([name, value]) => [name, value.trim()]),
  );
}

/** A counter of `addInfo` (fiscalReceiptNumber, zRepNumber): a whole number from `min`, required. */
export function counterOf(answer: PrinterAnswer, name: string, min = 0): number {
  const value = answer[name];
  if (value === undefined || !/^\d{1,9}$/.test(value) || Number(value) < min) {
    throw malformedAnswer(`addInfo/${name} is ${value === undefined ? 'missing' : `"${value}"`}`);
  }
  return Number(value);
}

/**
 * When the printer says it issued the document: `fiscalReceiptDate`
 * (DD/MM/YYYY) and `fiscalReceiptTime` (HH:MM, or HH:MM:SS) on its clock;
 * null when it gives neither.
 */
export function printerTimeOf(answer: PrinterAnswer): Date | null {
  const { fiscalReceiptDate: date, fiscalReceiptTime: time } = answer;
  if (date === undefined && time === undefined) return null;
  const day = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(date ?? '');
  const clock = /^(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(time ?? '');
  if (!day || !clock) throw malformedAnswer(`the document's date and time are "${date ?? ''}" "${time ?? ''}"`);
  const local = { day: day[1], month: day[2], year: day[3], hour: clock[1], minute: clock[2], second: clock[3] ?? '00' };
  const calendar = new Date(Date.UTC(+local.year, +local.month - 1, +local.day));
  const valid = calendar.getUTCDate() === +local.day && calendar.getUTCMonth() === +local.month - 1 && +local.hour < 24 && +local.minute < 60 && +local.second < 60;
  if (!valid) throw malformedAnswer(`the document's date and time "${date} ${time}" do not exist`);
  return instantAtLocal(local, ITALY);
}
