// What the SDICoop tests share: a signed FatturaPA file as the service stores it, an in-memory
// inbox of pushed notifications, and a TrasmissioneFatture endpoint on 127.0.0.1 that reads each
// push with the service's reader and answers with its answer builder.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildFatturaPa } from '../../src/einvoicing/fatturapa/buildFatturaPa.js';
import { fatturaPaSigning } from '../../src/einvoicing/fatturapa/signing.js';
import type { TransmittedFile } from '../../src/einvoicing/invoiceChannel.js';
import type { PushedSdiNotification, SdiNotificationInbox } from '../../src/einvoicing/sdi/sdiCoop/sdiNotificationInbox.js';
import { readTrasmissioneFattureRequest, trasmissioneFattureAnswer, type TrasmissioneFattureReading } from '../../src/einvoicing/sdi/sdiCoop/trasmissioneFatture.js';
import { makeCertificate } from '../support/certificates.js';
import { invoice, publicAdministration } from './fatturapaFixtures.js';

/** The FatturaPA file of an invoice with this transmission sequence, signed CAdES-BES (.xml.p7m) unless `signed` is false; FPA12 for `toPublicAdministration`. */
export async function fatturaPaFile(sequence: number, options: { signed?: boolean; toPublicAdministration?: boolean } = {}): Promise<TransmittedFile> {
  const built = buildFatturaPa(
    invoice({
      transmissionSequence: sequence,
      invoiceNumber: `FT/2025/${sequence}`,
      ...(options.toPublicAdministration ? { buyer: publicAdministration(), routing: { codiceDestinatario: 'UFXYZ1', pecAddress: null, buyerReference: null } } : {}),
    }),
  );
  if (options.signed === false) return { fileName: built.fileName, document: Buffer.from(built.xml, 'utf8') };
  const certificate = await makeCertificate();
  const signed = await fatturaPaSigning.sign(built, { certificateDer: certificate.der, privateKeyPem: certificate.keyPem }, new Date());
  return { fileName: signed.fileName, document: signed.document };
}

/** The inbox as the wiring's table would be: every notification read, once per notification file name, in arrival order. */
export class MemoryInbox implements SdiNotificationInbox {
  readonly stored: PushedSdiNotification[] = [];

  keep(pushed: PushedSdiNotification): void {
    if (!this.stored.some((entry) => entry.fileName === pushed.fileName)) this.stored.push(pushed);
  }

  async notificationsAbout(invoiceFileName: string): Promise<readonly PushedSdiNotification[]> {
    return this.stored.filter((entry) => entry.notification.invoiceFileName === invoiceFileName);
  }
}

/** A TrasmissioneFatture endpoint: every request read, what was read kept in `inbox`. */
export async function startTrasmissioneFattureEndpoint(inbox: MemoryInbox): Promise<{ url: string; readings: TrasmissioneFattureReading[]; close: () => Promise<void> }> {
  const readings: TrasmissioneFattureReading[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const reading = readTrasmissioneFattureRequest({ contentType: req.headers['content-type'], soapAction: req.headers.soapaction as string | undefined, body: Buffer.concat(chunks) });
      readings.push(reading);
      if (reading.outcome === 'read') inbox.keep({ identifier: reading.identifier, fileName: reading.fileName, notification: reading.notification });
      const answer = trasmissioneFattureAnswer(reading.outcome === 'read' ? { taken: true } : { taken: false, fault: 'Client', reason: reading.error.message });
      res.writeHead(answer.statusCode, answer.headers).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/TrasmissioneFatture`,
    readings,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
