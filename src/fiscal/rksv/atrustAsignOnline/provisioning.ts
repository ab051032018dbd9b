import { X509Certificate } from 'node:crypto';
import { FiscalPreconditionError, type DeviceOptions, type FiscalDependencies } from '../../fiscalDevice.js';
import type { ProvisionedSignatureUnit } from '../signatureUnitDrivers.js';
import { AtrustSignatureUnit } from './atrustSignatureUnit.js';
import type { CallBudget } from '../../callBudget.js';
import { AtrustApiError, AtrustClient, type AtrustCertificateAnswer } from './client.js';
import { connectionOf, sealConnection, type AtrustAsignOnlineOptions } from './connection.js';

/** The register's `fiscalization.rksv` additions for the driver: public identifiers only. */
export interface AtrustAsignOnlineFiscalization {
  driver: 'atrust_asign_online';
  /** The trust service provider's id, the suite's second half (AT1 for A-Trust). */
  zda_id: string;
  /** The certificate serial in hex as A-Trust reports it: field 11 of every receipt, and what FinanzOnline registers. */
  certificate_serial: string;
  /** The same serial in decimal, as some forms ask for it. */
  certificate_serial_decimal: string;
}

/** A ZDA id of an open system (reference §2: two letters and a number; AT0 is the closed system's). */
const ZDA_ID = /^[A-Z]{2}[1-9]\d*$/;
const HEX = /^[0-9A-Fa-f]+$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The fiscalize body's field a failed call points at: while reading the account's
 * certificate, a refusal is the username's (the account is the URL's first
 * segment); while signing, the password's (it travels in the body); no answer
 * at all is the base URL's.
 */
function refusal(error: unknown, refusedField: string, what: string): FiscalPreconditionError {
  if (error instanceof AtrustApiError) {
    const blamed = error.kind === 'unauthorized' || error.kind === 'rejected' ? refusedField : 'rksv.base_url';
    return new FiscalPreconditionError(`A-Trust a.sign RK online refused ${what}: ${error.message}`, {
      field: blamed,
      reason: error.kind,
      vendor_status: error.status,
    });
  }
  return new FiscalPreconditionError(`A-Trust a.sign RK online did not answer ${what} in time`, { field: 'rksv.base_url', reason: 'timeout', vendor_status: null });
}

/** A certificate answer the driver cannot sign receipts with, blamed on the account. */
const unusable = (reason: string) => new FiscalPreconditionError(`The a.sign RK online account cannot sign RKSV receipts: ${reason}`, { field: 'rksv.username' });

async function read<T>(call: () => Promise<T>, what: string): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw refusal(error, 'rksv.username', what);
  }
}

/** The signing certificate of the answer: a DER X.509 certificate for an ES256 (P-256) key. */
function signingCertificateOf(answer: AtrustCertificateAnswer): X509Certificate {
  const encoded = answer.Signaturzertifikat;
  if (typeof encoded !== 'string' || !BASE64.test(encoded)) throw unusable('A-Trust reports no Signaturzertifikat');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(Buffer.from(encoded, 'base64'));
  } catch {
    throw unusable('the Signaturzertifikat is no DER X.509 certificate');
  }
  const key = certificate.publicKey;
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw unusable('the certificate\'s key is not an EC P-256 key, so it cannot sign ES256 (suite R1)');
  }
  const algorithm = answer.alg ?? answer.algo;
  if (algorithm !== undefined && algorithm !== 'ES256') throw unusable(`A-Trust signs with ${String(algorithm)}, not ES256`);
  return certificate;
}

/**
 * The certificate serial for field 11: the hex serial A-Trust reports (its
 * own demo client prints that one), which must be the certificate's; when
 * A-Trust reports none, the certificate's own.
 */
function serialOf(answer: AtrustCertificateAnswer, certificate: X509Certificate): string {
  const reported = typeof answer.ZertifikatsseriennummerHex === 'string' ? answer.ZertifikatsseriennummerHex.trim() : '';
  if (!reported) return certificate.serialNumber;
  if (!HEX.test(reported) || BigInt(`0x${reported}`) !== BigInt(`0x${certificate.serialNumber}`)) {
    throw unusable(`the reported serial ${reported} is not the certificate's (${certificate.serialNumber})`);
  }
  return reported;
}

/**
 * Attaches a register to an a.sign RK online account (DESIGN "Production
 * drivers"): A-Trust's certificate of the account and its ZDA id make the
 * register an open system (suite R1-<ZDA id>, field 11 the certificate
 * serial). Nothing is written here; the password is tested by signing the
 * start receipt, whose refusal `startReceiptRefused` names.
 */
export async function provisionAtrustSignatureUnit(
  deps: FiscalDependencies & DeviceOptions,
  options: AtrustAsignOnlineOptions,
): Promise<ProvisionedSignatureUnit> {
  const connection = connectionOf(options, deps.environment);
  const client = new AtrustClient(connection);
  const budget: CallBudget = { signal: AbortSignal.timeout(deps.deviceTimeoutMs), deadline: Date.now() + deps.deviceTimeoutMs };
  const answer = await read(() => client.certificate(budget), 'the certificate');
  const certificate = signingCertificateOf(answer);
  const serial = serialOf(answer, certificate);
  const zdaId = await read(() => client.zdaId(budget), 'the ZDA id');
  if (!ZDA_ID.test(zdaId)) throw unusable(`A-Trust reports the ZDA id ${JSON.stringify(zdaId)}, not one of an open system (e.g. AT1)`);
  const authorities = Array.isArray(answer.Zertifizierungsstellen)
    ? answer.Zertifizierungsstellen.filter((entry): entry is string => typeof entry === 'string' && BASE64.test(entry))
    : [];
  const details: AtrustAsignOnlineFiscalization = {
    driver: 'atrust_asign_online',
    zda_id: zdaId,
    certificate_serial: serial,
    certificate_serial_decimal: BigInt(`0x${serial}`).toString(),
  };
  return {
    suite: `R1-${zdaId}`,
    signatureDeviceId: serial,
    publicKey: certificate.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
    certificate: certificate.raw.toString('base64'),
    certificateChain: authorities,
    sealedPrivateKey: null,
    sealedConnection: sealConnection(deps.secrets, connection),
    details: { ...details },
    unit: new AtrustSignatureUnit(client, certificate.publicKey, deps.deviceTimeoutMs),
    startReceiptRefused: (error) => refusal(error, 'rksv.password', 'to sign the start receipt'),
  };
}
