// npm run worker: builds export jobs, transmits RT daily closures, carries invoices through the SdI, sends Austrian
// registers' FinanzOnline submissions and delivers webhooks outside the server (run the server with EXPORT_WORKER=off).
// On PostgreSQL several workers may run at once; the embedded database serves one process at a
// time, so there the worker refuses to start while the server holds DATA_DIR.
// SIGTERM finishes the job in hand, then exits.
import pino from 'pino';
import { openMigratedDatabase, secretsKeyFor } from '../bootstrap.js';
import { loadConfig } from '../config.js';
import { createExportWorker } from '../exports/createExportWorker.js';
import { createTransmissionWorker } from '../fiscal/rt/transmission/createTransmissionWorker.js';
import { createInvoiceTransmissionWorker } from '../einvoicing/transmission/createInvoiceTransmissionWorker.js';
import { InvoiceChannels } from '../einvoicing/channels/invoiceChannels.js';
import { channelSettingsOf } from '../einvoicing/jurisdictions/channelSettings.js';
import { createSubmissionWorker } from '../fiscal/rksv/finanzOnline/createSubmissionWorker.js';
import { logDestination } from '../lib/logDestination.js';
import { SecretBox } from '../lib/secretBox.js';
import { exportLinkSigner } from '../lib/signedUrl.js';
import { recordClosureOutcome } from '../modules/events/dailyClosureEvents.js';
import { recordExportFinished } from '../modules/events/exportEvents.js';
import { recordInvoiceStateChanged } from '../modules/events/invoiceEvents.js';
import { createDeliveryWorker } from '../outbox/createDeliveryWorker.js';
import { openDatabaseOrExit } from './openDatabaseOrExit.js';

const config = loadConfig();
const log = pino({ level: config.logLevel }, await logDestination());
const database = await openDatabaseOrExit(() => openMigratedDatabase(config));
// The same SECRETS_KEY as the server's: RKSV exports open the registers' sealed AES keys.
const secretsKey = secretsKeyFor(config);
const secrets = new SecretBox(secretsKey);
// Events carry the resource as the API shows it: an export's signed download link, a closure's COR10 link, an invoice's document links.
const links = { publicBaseUrl: config.publicBaseUrl, signer: exportLinkSigner(secretsKey), ttlSeconds: config.exportUrlTtlSeconds };
const worker = createExportWorker({ db: database.prisma, sql: database.sql, secrets }, config, log, recordExportFinished(links));
worker.start();
const transmissions = createTransmissionWorker(database.prisma, config, log, undefined, (tx, closureId) => recordClosureOutcome(tx, closureId, config.publicBaseUrl));
transmissions.start();
const deliveries = createDeliveryWorker(database.prisma, secrets, config, log);
deliveries.start();
const invoiceChannels = new InvoiceChannels(database.prisma, secrets, channelSettingsOf(config));
const invoiceTransmissions = createInvoiceTransmissionWorker(database.prisma, config, log, recordInvoiceStateChanged(config.publicBaseUrl), invoiceChannels);
invoiceTransmissions.start();
const submissions = createSubmissionWorker(database.prisma, secrets, config, log);
submissions.start();
log.info({ worker_id: worker.id }, 'export, transmission and webhook delivery worker started');

const shutdown = async () => {
  await Promise.all([worker.stop(), transmissions.stop(), deliveries.stop(), invoiceTransmissions.stop(), submissions.stop()]);
  await invoiceChannels.close();
  await database.close();
  process.exit(0);
};
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
