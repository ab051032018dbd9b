// A fake Epson RT printer's fpmate.cgi over node:http: it numbers documents and
// closures like the printer (reference italy.md §1, §7) and fails on demand.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { XMLParser } from 'fast-xml-parser';
import { localDateTimeOf } from '../../src/domain/localTime.js';

export interface FpmateCommand {
  name: string;
  attributes: Record<string, string>;
}

/** One request as the printer got it. */
export interface FpmateRequest {
  path: string;
  query: URLSearchParams;
  contentType: string | undefined;
  body: string;
  /** The element inside s:Envelope/s:Body: printerFiscalReceipt, printerFiscalReport. */
  document: string;
  commands: FpmateCommand[];
}

/** How the printer handles the next request. */
export type FpmateBehaviour =
  /** Runs the document and answers success="true" with its numbers. */
  | { kind: 'work' }
  /** Prints nothing and answers success="false" with the printer's code and status. */
  | { kind: 'refuse'; code: string; status: string }
  /** Reads the request and never answers. */
  | { kind: 'hang' }
  /** Reads the request, then drops the connection. */
  | { kind: 'close' }
  /** Answers this, whatever the request. */
  | { kind: 'raw'; statusCode: number; body: string };

/** Printer codes of the failures integrators meet most. */
export const PRINTER_FAILURES = {
  offline: { kind: 'refuse', code: 'FP_NO_ANSWER_NETWORK', status: '0' },
  paperEnd: { kind: 'refuse', code: 'EPTR_REC_EMPTY', status: '2' },
  coverOpen: { kind: 'refuse', code: 'EPTR_COVER_OPEN', status: '2' },
} as const satisfies Record<string, FpmateBehaviour>;

export interface FakeFpmateOptions {
  /** The last closure's number: the open fiscal day is this + 1. */
  zRepNumber?: number;
  /** The last document's progressive in the open day. */
  receiptNumber?: number;
  /** The printer's clock, printed on answers as Italian local time; null: answers carry no date. */
  clock?: (() => Date) | null;
  /** Reported as addInfo/serialNumber when set. */
  serialNumber?: string;
  /** The envelope's namespace prefix in answers: printers answer with `s` or `soapenv`. */
  envelopePrefix?: string;
}

const parser = new XMLParser({ preserveOrder: true, ignoreAttributes: false, attributeNamePrefix: '', removeNSPrefix: true, parseTagValue: false, parseAttributeValue: false });

type Ordered = Record<string, unknown> & { ':@'?: Record<string, string> };

const nameOf = (node: Ordered): string => Object.keys(node).find((key) => key !== ':@')!;
const childrenOf = (node: Ordered | undefined): Ordered[] => (node ? (node[nameOf(node)] as Ordered[]) : []);

function readDocument(body: string): { document: string; commands: FpmateCommand[] } {
  const root = (parser.parse(body) as Ordered[]).find((node) => nameOf(node) === 'Envelope');
  const soapBody = childrenOf(root).find((node) => nameOf(node) === 'Body');
  const document = childrenOf(soapBody)[0];
  if (!document) return { document: '', commands: [] };
  return {
    document: nameOf(document),
    commands: childrenOf(document).map((node) => ({ name: nameOf(node), attributes: { ...node[':@'] } })),
  };
}

const italianAmount = (cents: number): string => (cents / 100).toFixed(2).replace('.', ',');

export class FakeFpmate {
  readonly requests: FpmateRequest[] = [];
  zRepNumber: number;
  receiptNumber: number;
  private readonly behaviours: FpmateBehaviour[] = [];

  private constructor(
    private readonly server: Server,
    private readonly options: FakeFpmateOptions,
  ) {
    this.zRepNumber = options.zRepNumber ?? 0;
    this.receiptNumber = options.receiptNumber ?? 0;
  }

  static async start(options: FakeFpmateOptions = {}): Promise<FakeFpmate> {
    const server = createServer();
    const printer = new FakeFpmate(server, options);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => void printer.handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return printer;
  }

  /** The printer's base URL, as a merchant configures it. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The next requests are handled so, in order; after them the printer works again. */
  next(...behaviours: FpmateBehaviour[]): void {
    this.behaviours.push(...behaviours);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', 'http://printer');
    const { document, commands } = readDocument(body);
    this.requests.push({ path: url.pathname, query: url.searchParams, contentType: request.headers['content-type'], body, document, commands });
    const behaviour = this.behaviours.shift() ?? { kind: 'work' };
    if (url.pathname !== '/cgi-bin/fpmate.cgi') return void response.writeHead(404).end('Not Found');
    switch (behaviour.kind) {
      case 'hang':
        return;
      case 'close':
        return void request.socket.destroy();
      case 'raw':
        return void response.writeHead(behaviour.statusCode, { 'content-type': 'text/xml' }).end(behaviour.body);
      case 'refuse':
        return this.answer(response, 'false', behaviour.code, behaviour.status, {});
      case 'work':
        return this.work(response, document, commands);
    }
  }

  private work(response: ServerResponse, document: string, commands: FpmateCommand[]): void {
    if (document === 'printerFiscalReport' && commands.some((command) => command.name === 'printZReport')) {
      this.zRepNumber += 1;
      this.receiptNumber = 0;
      return this.answer(response, 'true', '', '2', { lastCommand: '74', printerStatus: '20110', zRepNumber: String(this.zRepNumber), dailyAmount: '0,00' });
    }
    if (document !== 'printerFiscalReceipt') return void response.writeHead(400).end('unknown document');
    this.receiptNumber += 1;
    const paid = commands.filter((command) => command.name === 'printRecTotal').reduce((cents, command) => cents + Math.round(Number(command.attributes.payment) * 100), 0);
    const now = this.options.clock === null ? null : localDateTimeOf((this.options.clock ?? (() => new Date()))(), 'Europe/Rome');
    this.answer(response, 'true', '', '2', {
      lastCommand: '74',
      printerStatus: '20110',
      fiscalReceiptNumber: String(this.receiptNumber),
      fiscalReceiptAmount: italianAmount(paid),
      ...(now && { fiscalReceiptDate: `${now.day}/${now.month}/${now.year}`, fiscalReceiptTime: `${now.hour}:${now.minute}` }),
      zRepNumber: String(this.zRepNumber),
      ...(this.options.serialNumber && { serialNumber: this.options.serialNumber }),
    });
  }

  private answer(response: ServerResponse, success: 'true' | 'false', code: string, status: string, info: Record<string, string>): void {
    const prefix = this.options.envelopePrefix ?? 's';
    const elements = Object.entries(info).map(([name, value]) => `<${name}>${value}</${name}>`);
    const addInfo = `<addInfo><elementList>${Object.keys(info).join(',')}</elementList>${elements.join('')}</addInfo>`;
    response.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' }).end(
      `<?xml version="1.0" encoding="utf-8"?>\n` +
        `<${prefix}:Envelope xmlns:${prefix}="http://schemas.xmlsoap.org/soap/envelope/"><${prefix}:Body>` +
        `<response success="${success}" code="${code}" status="${status}">${addInfo}</response>` +
        `</${prefix}:Body></${prefix}:Envelope>`,
    );
  }
}
