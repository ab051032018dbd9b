import type { DeviceExchange } from '../../fiscalDevice.js';
import { FiscalDeviceError } from '../../deviceErrors.js';
import type { RtDayClosure, RtDocumentRequest, RtDriver, RtIssuedDocument } from '../rtDriver.js';

/** The next progressive of the open fiscal day; the UPDATE locks the device row, so documents are numbered one by one. */
const NEXT_DOCUMENT = `
  UPDATE rt_devices SET progressive = progressive + 1
   WHERE id = $1 AND status = 'active'
  RETURNING fiscal_day, progressive, serial`;

/** A closure ends the fiscal day: the next document is <day + 1>-0001 (reference §1, §8). */
const CLOSE_DAY = `
  UPDATE rt_devices SET fiscal_day = fiscal_day + 1, progressive = 0
   WHERE id = $1 AND status = 'active'
  RETURNING fiscal_day - 1 AS closed_day`;

/**
 * The service's RT simulator (reference §8): the device's state, the open
 * fiscal day and the last progressive in it, lives in its rt_devices row, so
 * numbering survives restarts and is shared by every instance.
 */
export class SimulatorDriver implements RtDriver {
  constructor(
    private readonly deviceId: string,
    private readonly clock: () => Date,
  ) {}

  issueDocument(exchange: DeviceExchange, _request: RtDocumentRequest): Promise<RtIssuedDocument> {
    return exchange(1, async (sql) => {
      const [row] = await sql.query<{ fiscal_day: number; progressive: number; serial: string }>(NEXT_DOCUMENT, [this.deviceId]);
      if (!row) throw new FiscalDeviceError(1, 'inactive', 'The RT device is out of service');
      return { fiscalDay: row.fiscal_day, progressive: row.progressive, issuedAt: this.clock(), deviceSerial: row.serial };
    });
  }

  closeDay(exchange: DeviceExchange): Promise<RtDayClosure> {
    return exchange(1, async (sql) => {
      const [row] = await sql.query<{ closed_day: number }>(CLOSE_DAY, [this.deviceId]);
      if (!row) throw new FiscalDeviceError(1, 'inactive', 'The RT device is out of service');
      return { fiscalDay: row.closed_day, closedAt: this.clock(), transmittedByDevice: false };
    });
  }
}
