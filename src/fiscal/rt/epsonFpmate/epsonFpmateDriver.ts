import type { DeviceExchange } from '../../fiscalDevice.js';
import type { RtDayClosure, RtDocumentRequest, RtDriver, RtIssuedDocument } from '../rtDriver.js';
import { counterOf, printerTimeOf, readAnswer } from './answer.js';
import { fiscalReceiptCommands, soapRequest, zReportCommands } from './commands.js';
import { epsonFpmateSettings, type EpsonFpmateConfig, type EpsonFpmateSettings } from './config.js';
import { postToPrinter } from './printerHttp.js';

export interface EpsonFpmateOptions {
  /** The bound on one call (DEVICE_TIMEOUT_MS), which the printer is told as its own. */
  timeoutMs: number;
  /** The service's clock, for what the printer's answer does not date. */
  clock: () => Date;
}

/**
 * A real Epson RT printer driven over HTTP with
 * ePOS-Print Fiscal XML through its fpmate.cgi (DESIGN "Italy: RT"). The
 * printer keeps the numbering: each answer gives the document's progressive
 * (`fiscalReceiptNumber`) and the last closure's number (`zRepNumber`), so the
 * open fiscal day is that number + 1. The driver keeps no state and never
 * touches the database.
 */
export class EpsonFpmateDriver implements RtDriver {
  private readonly settings: EpsonFpmateSettings;

  /** Throws FiscalPreconditionError, naming the field, for a configuration that cannot work. */
  constructor(
    config: EpsonFpmateConfig,
    private readonly options: EpsonFpmateOptions,
  ) {
    this.settings = epsonFpmateSettings(config);
  }

  async issueDocument(exchange: DeviceExchange, request: RtDocumentRequest): Promise<RtIssuedDocument> {
    const body = soapRequest('printerFiscalReceipt', fiscalReceiptCommands(request, this.settings.departments));
    const answer = readAnswer(await postToPrinter(exchange, this.settings.endpoint, body, this.options.timeoutMs));
    const progressive = counterOf(answer, 'fiscalReceiptNumber', 1);
    const fiscalDay = counterOf(answer, 'zRepNumber') + 1;
    return {
      fiscalDay,
      progressive,
      issuedAt: printerTimeOf(answer) ?? this.options.clock(),
      // A printer that reports its matricola is believed over the configuration
      // (the element's name, serialNumber, is unconfirmed).
      deviceSerial: answer.serialNumber || this.settings.serial,
    };
  }

  async closeDay(exchange: DeviceExchange): Promise<RtDayClosure> {
    const body = soapRequest('printerFiscalReport', zReportCommands(this.options.timeoutMs));
    const answer = readAnswer(await postToPrinter(exchange, this.settings.endpoint, body, this.options.timeoutMs));
    return { fiscalDay: counterOf(answer, 'zRepNumber'), closedAt: this.options.clock(), transmittedByDevice: true };
  }
}
