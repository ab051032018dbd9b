// The Epson RT driver against a fake fpmate.cgi (test/support/fakeFpmate.ts):
// the XML it sends, the numbering it reads back, and how printer failures,
// timeouts and broken connections become phase-1/phase-2 device errors.
import { Agent, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SqlClient } from '../../src/db/sql.js';
import { FiscalDeviceError, withDeviceTimeout } from '../../src/fiscal/deviceErrors.js';
import { FiscalPreconditionError, type DeviceExchange } from '../../src/fiscal/fiscalDevice.js';
import { EpsonFpmateDriver } from '../../src/fiscal/rt/epsonFpmate/epsonFpmateDriver.js';
import type { EpsonFpmateConfig } from '../../src/fiscal/rt/epsonFpmate/config.js';
import type { RtDocumentRequest, RtLine } from '../../src/fiscal/rt/rtDriver.js';
import { FakeFpmate, PRINTER_FAILURES, type FakeFpmateOptions, type FpmateCommand } from '../support/fakeFpmate.js';

const SERIAL = '99MEY026532';
const TIMEOUT_MS = 4000;
/** 17:05 in Rome. */
const PRINTER_NOW = new Date('2026-11-23T16:05:00Z');
const SERVICE_NOW = new Date('2026-11-23T16:07:30Z');

/** Counts what the driver does with the database: it must do nothing. */
let databaseCalls = 0;
const sqlStub: SqlClient = {
  query: () => {
    databaseCalls += 1;
    return Promise.reject(new Error('the RT driver must not touch the database'));
  },
  write: () => {
    databaseCalls += 1;
    return Promise.reject(new Error('the RT driver must not touch the database'));
  },
};

/** The signing flow's exchange, reduced to a bound per call; records the phases asked for. */
function exchangeWithin(ms: number): DeviceExchange & { phases: number[] } {
  const phases: number[] = [];
  const exchange = (<T>(phase: 1 | 2, call: (sql: SqlClient, signal: AbortSignal) => Promise<T>) => {
    phases.push(phase);
    return call(sqlStub, AbortSignal.timeout(ms));
  }) as DeviceExchange & { phases: number[] };
  exchange.phases = phases;
  return exchange;
}

const line = (overrides: Partial<RtLine> = {}): RtLine => ({
  description: 'Espresso',
  quantity: 1,
  unitPrice: '1.50',
  total: '1.50',
  tax: { kind: 'rate', rate: '0.22' },
  ...overrides,
});

const sale = (overrides: Partial<RtDocumentRequest> = {}): RtDocumentRequest => ({
  kind: 'sale',
  lines: [line()],
  discounts: [],
  payments: [{ kind: 'cash', amount: '1.50' }],
  lotteryCode: null,
  reference: null,
  ...overrides,
});

async function deviceFailure(pending: Promise<unknown>): Promise<FiscalDeviceError> {
  const error = await pending.then(
    () => new Error('expected the device call to fail'),
    (failure: unknown) => failure,
  );
  expect(error).toBeInstanceOf(FiscalDeviceError);
  return error as FiscalDeviceError;
}

const names = (commands: FpmateCommand[]): string[] => commands.map((command) => command.name);
const named = (commands: FpmateCommand[], name: string) => commands.filter((command) => command.name === name).map((command) => command.attributes);

let printer: FakeFpmate;
const driverFor = (config: Partial<EpsonFpmateConfig> = {}) =>
  new EpsonFpmateDriver({ url: config.url ?? printer.url, serial: SERIAL, ...config }, { timeoutMs: TIMEOUT_MS, clock: () => SERVICE_NOW });

async function startPrinter(options: FakeFpmateOptions = {}): Promise<void> {
  await printer?.close();
  printer = await FakeFpmate.start({ zRepNumber: 531, clock: () => PRINTER_NOW, ...options });
}

beforeEach(async () => {
  databaseCalls = 0;
  await startPrinter();
});
afterEach(async () => {
  await printer.close();
  expect(databaseCalls).toBe(0);
});

describe('issuing a documento commerciale', () => {
  it('posts one SOAP envelope to fpmate.cgi and reads the numbering from the answer', async () => {
    const exchange = exchangeWithin(TIMEOUT_MS);
    const issued = await driverFor().issueDocument(exchange, sale());

    expect(issued).toEqual({ fiscalDay: 532, progressive: 1, issuedAt: PRINTER_NOW, deviceSerial: SERIAL });
    const [request] = printer.requests;
    expect(request.path).toBe('/cgi-bin/fpmate.cgi');
    expect(request.query.get('devid')).toBe('local_printer');
    expect(request.query.get('timeout')).toBe(String(TIMEOUT_MS));
    expect(request.contentType).toBe('text/xml; charset=utf-8');
    expect(request.body).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?><s:Envelope xmlns:s="http:\/\/schemas.xmlsoap.org\/soap\/envelope\/"><s:Body><printerFiscalReceipt>/);
    expect(request.document).toBe('printerFiscalReceipt');
    expect(names(request.commands)).toEqual(['beginFiscalReceipt', 'printRecItem', 'printRecTotal', 'endFiscalReceipt']);
    expect(named(request.commands, 'printRecItem')).toEqual([
      { operator: '1', description: 'Espresso', quantity: '1', unitPrice: '1.50', department: '1', justification: '1' },
    ]);
    expect(named(request.commands, 'printRecTotal')).toEqual([
      { operator: '1', description: 'CONTANTI', payment: '1.50', paymentType: '0', index: '1', justification: '1' },
    ]);
    // Sending and waiting for the answer are two exchanges: phase 1, then phase 2.
    expect(exchange.phases).toEqual([1, 2]);
  });

  it('counts documents within the day, and restarts at 1 on the day after a closure', async () => {
    const driver = driverFor();
    const exchange = exchangeWithin(TIMEOUT_MS);
    const first = await driver.issueDocument(exchange, sale());
    const second = await driver.issueDocument(exchange, sale());
    const closure = await driver.closeDay(exchange);
    const next = await driver.issueDocument(exchange, sale());

    expect([first.fiscalDay, first.progressive]).toEqual([532, 1]);
    expect([second.fiscalDay, second.progressive]).toEqual([532, 2]);
    expect(closure).toEqual({ fiscalDay: 532, closedAt: SERVICE_NOW, transmittedByDevice: true });
    expect([next.fiscalDay, next.progressive]).toEqual([533, 1]);
  });

  it('sells each line under the department of its rate or natura, with line and cart discounts', async () => {
    await driverFor().issueDocument(
      exchangeWithin(TIMEOUT_MS),
      sale({
        lines: [
          line({ description: 'Pane', quantity: 2, unitPrice: '2.00', total: '4.00', tax: { kind: 'rate', rate: '0.04' } }),
          line({ description: 'Pizza', quantity: 1, unitPrice: '8.00', total: '7.20', tax: { kind: 'rate', rate: '0.1' } }),
          line({ description: 'Formaggio', quantity: 0.125, unitPrice: '19.90', total: '2.49', tax: { kind: 'rate', rate: '0.05' } }),
          line({ description: 'Francobollo', quantity: 1, unitPrice: '1.30', total: '1.30', tax: { kind: 'natura', natura: 'N2.1' } }),
          line({ description: 'Buono', quantity: 1, unitPrice: '5.00', total: '5.00', tax: { kind: 'natura', natura: 'N4' } }),
        ],
        discounts: [{ description: 'Sconto fedeltà', amount: '1.99' }],
        payments: [
          { kind: 'cash', amount: '10.00' },
          { kind: 'electronic', amount: '8.00' },
        ],
      }),
    );

    const { commands } = printer.requests[0];
    expect(names(commands)).toEqual([
      'beginFiscalReceipt',
      'printRecItem',
      'printRecItem',
      'printRecItemAdjustment',
      'printRecItem',
      'printRecItem',
      'printRecItem',
      'printRecSubtotalAdjustment',
      'printRecTotal',
      'printRecTotal',
      'endFiscalReceipt',
    ]);
    const items = named(commands, 'printRecItem');
    expect(items.map((item) => [item.description, item.quantity, item.unitPrice, item.department])).toEqual([
      ['Pane', '2', '2.00', '4'],
      ['Pizza', '1', '8.00', '2'],
      ['Formaggio', '0.125', '19.90', '3'],
      ['Francobollo', '1', '1.30', '6'],
      ['Buono', '1', '5.00', '8'],
    ]);
    expect(named(commands, 'printRecItemAdjustment')).toEqual([
      { operator: '1', description: 'SCONTO', adjustmentType: '0', amount: '0.80', department: '2', justification: '1' },
    ]);
    expect(named(commands, 'printRecSubtotalAdjustment')).toEqual([
      { operator: '1', description: 'Sconto fedeltà', adjustmentType: '1', amount: '1.99', justification: '1' },
    ]);
    expect(named(commands, 'printRecTotal').map((total) => [total.description, total.payment, total.paymentType])).toEqual([
      ['CONTANTI', '10.00', '0'],
      ['PAGAMENTO ELETTRONICO', '8.00', '2'],
    ]);
  });

  it('adds a surcharge when the line total is above what the printer would charge', async () => {
    await driverFor().issueDocument(
      exchangeWithin(TIMEOUT_MS),
      sale({ lines: [line({ quantity: 3, unitPrice: '0.124', total: '0.37' })], payments: [{ kind: 'cash', amount: '0.37' }] }),
    );
    const { commands } = printer.requests[0];
    expect(named(commands, 'printRecItem')[0]).toMatchObject({ quantity: '3', unitPrice: '0.12' });
    expect(named(commands, 'printRecItemAdjustment')).toEqual([
      { operator: '1', description: 'MAGGIORAZIONE', adjustmentType: '5', amount: '0.01', department: '1', justification: '1' },
    ]);
  });

  it('sends the lottery code before the totals', async () => {
    await driverFor().issueDocument(exchangeWithin(TIMEOUT_MS), sale({ lotteryCode: 'AB12CD34', payments: [{ kind: 'electronic', amount: '1.50' }] }));
    const { commands } = printer.requests[0];
    expect(names(commands)).toEqual(['beginFiscalReceipt', 'printRecItem', 'printRecLotteryID', 'printRecTotal', 'endFiscalReceipt']);
    expect(named(commands, 'printRecLotteryID')).toEqual([{ operator: '1', code: 'AB12CD34' }]);
  });

  it('closes a document paid with nothing with a zero cash total', async () => {
    await driverFor().issueDocument(
      exchangeWithin(TIMEOUT_MS),
      sale({ discounts: [{ description: 'Omaggio', amount: '1.50' }], payments: [] }),
    );
    expect(named(printer.requests[0].commands, 'printRecTotal')).toEqual([
      { operator: '1', description: 'CONTANTI', payment: '0.00', paymentType: '0', index: '1', justification: '1' },
    ]);
  });

  it('escapes descriptions, drops control characters and cuts them to the printed width', async () => {
    const description = `Fish & "Chips" <big> l'ora\n\tnuova`;
    await driverFor().issueDocument(
      exchangeWithin(TIMEOUT_MS),
      sale({ lines: [line({ description }), line({ description: 'X'.repeat(50) })], payments: [{ kind: 'cash', amount: '3.00' }] }),
    );
    const [request] = printer.requests;
    expect(request.body).toContain('description="Fish &amp; &quot;Chips&quot; &lt;big&gt; l&apos;ora nuova"');
    expect(named(request.commands, 'printRecItem').map((item) => item.description)).toEqual([`Fish & "Chips" <big> l'ora nuova`, 'X'.repeat(38)]);
  });

  it('takes the date, the serial and the numbers from answers in a soapenv envelope', async () => {
    await startPrinter({ envelopePrefix: 'soapenv', serialNumber: '99MEY099999', zRepNumber: 9 });
    const issued = await driverFor().issueDocument(exchangeWithin(TIMEOUT_MS), sale());
    expect(issued).toEqual({ fiscalDay: 10, progressive: 1, issuedAt: PRINTER_NOW, deviceSerial: '99MEY099999' });
  });

  it("dates the document by the service's clock when the printer's answer carries no date", async () => {
    await startPrinter({ clock: null });
    const issued = await driverFor().issueDocument(exchangeWithin(TIMEOUT_MS), sale());
    expect(issued.issuedAt).toEqual(SERVICE_NOW);
  });
});

describe('issuing a documento di reso', () => {
  it('names the original in a REFUND message ahead of the receipt and refunds the lines', async () => {
    const issued = await driverFor().issueDocument(
      exchangeWithin(TIMEOUT_MS),
      sale({
        kind: 'return',
        lines: [
          line({ description: 'Espresso', quantity: 2, unitPrice: '1.50', total: '3.00' }),
          line({ description: 'Pizza', quantity: 2, unitPrice: '8.00', total: '14.40', tax: { kind: 'rate', rate: '0.10' } }),
        ],
        payments: [{ kind: 'cash', amount: '17.40' }],
        // 00:30 on 1 February in Rome.
        reference: { documentNumber: '0530-0007', deviceSerial: '99MEY011111', issuedAt: new Date('2026-01-31T23:30:00Z') },
      }),
    );

    expect([issued.fiscalDay, issued.progressive]).toEqual([532, 1]);
    const { commands } = printer.requests[0];
    expect(names(commands)).toEqual(['printRecMessage', 'beginFiscalReceipt', 'printRecRefund', 'printRecRefund', 'printRecTotal', 'endFiscalReceipt']);
    expect(named(commands, 'printRecMessage')).toEqual([{ operator: '1', messageType: '4', message: 'REFUND 0530 0007 01022026 99MEY011111' }]);
    expect(named(commands, 'printRecRefund')).toEqual([
      { operator: '1', description: 'Espresso', quantity: '2', unitPrice: '1.50', department: '1', justification: '1' },
      // Sold at a discount: refunded as one unit at what was paid.
      { operator: '1', description: 'Pizza', quantity: '1', unitPrice: '14.40', department: '2', justification: '1' },
    ]);
  });
});

describe('departments', () => {
  it('follows a configured table', async () => {
    const driver = driverFor({ departments: { '0.22': 12, '0.1': 7, N2: 30 } });
    await driver.issueDocument(
      exchangeWithin(TIMEOUT_MS),
      sale({
        lines: [line(), line({ tax: { kind: 'rate', rate: '0.10' } }), line({ tax: { kind: 'natura', natura: 'N2.2' } })],
        payments: [{ kind: 'cash', amount: '4.50' }],
      }),
    );
    expect(named(printer.requests[0].commands, 'printRecItem').map((item) => item.department)).toEqual(['12', '7', '30']);
  });

  it('refuses a tax the table does not cover before sending anything (phase 1)', async () => {
    const driver = driverFor({ departments: { '0.22': 1 } });
    const error = await deviceFailure(driver.issueDocument(exchangeWithin(TIMEOUT_MS), sale({ lines: [line({ tax: { kind: 'natura', natura: 'N4' } })] })));
    expect([error.phase, error.reason]).toEqual([1, 'rejected']);
    expect(error.message).toContain('natura N4');
    expect(printer.requests).toHaveLength(0);
  });

  it.each([
    [{ '0.20': 1 }, 'departments.0.20'],
    [{ N8: 1 }, 'departments.N8'],
    [{ '0.22': 0 }, 'departments.0.22'],
    [{ '0.22': 100 }, 'departments.0.22'],
    [{ '0.22': 1.5 }, 'departments.0.22'],
    [{ '0.22': '1' }, 'departments.0.22'],
    [{ '0.22': 1, '0.220': 2 }, 'departments.0.220'],
  ])('rejects the table %j naming %s', (departments, field) => {
    const build = () => driverFor({ departments });
    expect(build).toThrow(FiscalPreconditionError);
    try {
      build();
    } catch (error) {
      expect((error as FiscalPreconditionError).details).toEqual({ field });
    }
  });
});

describe('printer address', () => {
  it.each([
    ['base url', '', '/cgi-bin/fpmate.cgi'],
    ['base url with a slash', '/', '/cgi-bin/fpmate.cgi'],
    ['url of fpmate.cgi', '/cgi-bin/fpmate.cgi', '/cgi-bin/fpmate.cgi'],
  ])('posts to fpmate.cgi given its %s', async (_case, suffix, path) => {
    await driverFor({ url: `${printer.url}${suffix}` }).issueDocument(exchangeWithin(TIMEOUT_MS), sale());
    expect(printer.requests[0].path).toBe(path);
  });

  it('puts a path prefix before cgi-bin', async () => {
    const driver = driverFor({ url: `${printer.url}/shop-7` });
    await deviceFailure(driver.issueDocument(exchangeWithin(TIMEOUT_MS), sale()));
    expect(printer.requests[0].path).toBe('/shop-7/cgi-bin/fpmate.cgi');
  });

  it('sends the configured device id, else the one in the url, else local_printer', async () => {
    const exchange = exchangeWithin(TIMEOUT_MS);
    await driverFor({ deviceId: 'printer_2' }).issueDocument(exchange, sale());
    await driverFor({ url: `${printer.url}/cgi-bin/fpmate.cgi?devid=bar_printer` }).issueDocument(exchange, sale());
    await driverFor({ url: `${printer.url}/cgi-bin/fpmate.cgi?devid=bar_printer`, deviceId: 'printer_2' }).issueDocument(exchange, sale());
    expect(printer.requests.map((request) => request.query.get('devid'))).toEqual(['printer_2', 'bar_printer', 'printer_2']);
  });

  it.each([
    [{ url: 'printer.local' }, 'url'],
    [{ url: 'ftp://printer.local' }, 'url'],
    [{ serial: '99mey026532' }, 'serial'],
    [{ serial: '99MEY02653' }, 'serial'],
    [{ deviceId: 'local printer' }, 'deviceId'],
  ])('rejects the configuration %j naming %s', (config, field) => {
    try {
      driverFor(config);
      expect.unreachable('the configuration was accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(FiscalPreconditionError);
      expect((error as FiscalPreconditionError).details).toEqual({ field });
    }
  });
});

describe('printer failures', () => {
  it.each(Object.entries(PRINTER_FAILURES))('success="false" (%s) is a phase-1 rejection with the code and status', async (_name, failure) => {
    printer.next(failure);
    const error = await deviceFailure(driverFor().issueDocument(exchangeWithin(TIMEOUT_MS), sale()));
    expect([error.phase, error.reason]).toEqual([1, 'rejected']);
    expect(error.message).toContain(`code ${failure.code}, status ${failure.status}`);
    expect(printer.receiptNumber).toBe(0);
  });

  it('a refused Z report is a phase-1 rejection, and the day stays open', async () => {
    printer.next(PRINTER_FAILURES.paperEnd);
    const error = await deviceFailure(driverFor().closeDay(exchangeWithin(TIMEOUT_MS)));
    expect([error.phase, error.reason]).toEqual([1, 'rejected']);
    expect(printer.zRepNumber).toBe(531);
  });

  it('a printer that does not answer is a phase-2 timeout: it got the whole document', async () => {
    printer.next({ kind: 'hang' });
    const error = await deviceFailure(driverFor().issueDocument(exchangeWithin(300), sale()));
    expect([error.phase, error.reason]).toEqual([2, 'timeout']);
    expect(printer.requests).toHaveLength(1);
  });

  it("is a phase-2 timeout under the signing flow's own bound too", async () => {
    printer.next({ kind: 'hang' });
    const exchange: DeviceExchange = (phase, call) => withDeviceTimeout(phase, 300, sqlStub, call);
    const error = await deviceFailure(driverFor().issueDocument(exchange, sale()));
    expect([error.phase, error.reason]).toEqual([2, 'timeout']);
  });

  it('a printer that does not take the connection in time is a phase-1 timeout', async () => {
    const previous = getGlobalDispatcher();
    // A printer gone from the network: the connection is never established.
    const unanswered = new Agent({ connect: () => undefined });
    setGlobalDispatcher(unanswered);
    try {
      const exchange = exchangeWithin(300);
      const error = await deviceFailure(driverFor().issueDocument(exchange, sale()));
      expect([error.phase, error.reason]).toEqual([1, 'timeout']);
      expect(exchange.phases).toEqual([1]);
      expect(printer.requests).toHaveLength(0);
    } finally {
      setGlobalDispatcher(previous);
      await unanswered.destroy();
    }
  });

  it('a refused connection is phase-1 unreachable', async () => {
    const url = printer.url;
    await printer.close();
    const error = await deviceFailure(driverFor({ url }).issueDocument(exchangeWithin(TIMEOUT_MS), sale()));
    expect([error.phase, error.reason]).toEqual([1, 'unreachable']);
    expect(error.message).toContain('ECONNREFUSED');
    printer = await FakeFpmate.start();
  });

  it('a name that does not resolve is phase-1 unreachable', async () => {
    const error = await deviceFailure(driverFor({ url: 'http://rt-printer.invalid' }).issueDocument(exchangeWithin(TIMEOUT_MS), sale()));
    expect([error.phase, error.reason]).toEqual([1, 'unreachable']);
  });

  it('a connection dropped after the request was sent is phase 2', async () => {
    printer.next({ kind: 'close' });
    const error = await deviceFailure(driverFor().issueDocument(exchangeWithin(TIMEOUT_MS), sale()));
    expect([error.phase, error.reason]).toEqual([2, 'unreachable']);
  });

  it.each([
    ['not XML', 'printer busy'],
    ['no response element', '<s:Envelope xmlns:s="x"><s:Body><answer/></s:Body></s:Envelope>'],
    ['unclosed XML', '<s:Envelope xmlns:s="x"><s:Body><response success="true">'],
    ['success neither true nor false', '<s:Envelope xmlns:s="x"><s:Body><response success="maybe"/></s:Body></s:Envelope>'],
    ['no document number', '<s:Envelope xmlns:s="x"><s:Body><response success="true"><addInfo><zRepNumber>3</zRepNumber></addInfo></response></s:Body></s:Envelope>'],
    [
      'document number 0',
      '<s:Envelope xmlns:s="x"><s:Body><response success="true"><addInfo><fiscalReceiptNumber>0</fiscalReceiptNumber><zRepNumber>3</zRepNumber></addInfo></response></s:Body></s:Envelope>',
    ],
    [
      'an impossible date',
      '<s:Envelope xmlns:s="x"><s:Body><response success="true"><addInfo><fiscalReceiptNumber>4</fiscalReceiptNumber><zRepNumber>3</zRepNumber>' +
        '<fiscalReceiptDate>31/02/2026</fiscalReceiptDate><fiscalReceiptTime>10:00</fiscalReceiptTime></addInfo></response></s:Body></s:Envelope>',
    ],
  ])('an answer with %s is a phase-2 rejection', async (_case, body) => {
    printer.next({ kind: 'raw', statusCode: 200, body });
    const error = await deviceFailure(driverFor().issueDocument(exchangeWithin(TIMEOUT_MS), sale()));
    expect([error.phase, error.reason]).toEqual([2, 'rejected']);
  });

  it.each([
    [404, 1],
    [500, 2],
  ] as const)('HTTP %i from the web server is a phase-%i rejection', async (statusCode, phase) => {
    printer.next({ kind: 'raw', statusCode, body: 'error' });
    const error = await deviceFailure(driverFor().issueDocument(exchangeWithin(TIMEOUT_MS), sale()));
    expect([error.phase, error.reason]).toEqual([phase, 'rejected']);
    expect(error.message).toContain(`HTTP ${statusCode}`);
  });
});

describe('daily closure', () => {
  it('prints a Z report and reads the closed day from zRepNumber', async () => {
    const exchange = exchangeWithin(TIMEOUT_MS);
    const closure = await driverFor().closeDay(exchange);
    expect(closure).toEqual({ fiscalDay: 532, closedAt: SERVICE_NOW, transmittedByDevice: true });
    const [request] = printer.requests;
    expect(request.document).toBe('printerFiscalReport');
    expect(request.commands).toEqual([{ name: 'printZReport', attributes: { operator: '1', timeout: String(TIMEOUT_MS) } }]);
    expect(exchange.phases).toEqual([1, 2]);
  });

  it('an answer without zRepNumber is a phase-2 rejection', async () => {
    printer.next({ kind: 'raw', statusCode: 200, body: '<s:Envelope xmlns:s="x"><s:Body><response success="true"/></s:Body></s:Envelope>' });
    const error = await deviceFailure(driverFor().closeDay(exchangeWithin(TIMEOUT_MS)));
    expect([error.phase, error.reason]).toEqual([2, 'rejected']);
  });
});
