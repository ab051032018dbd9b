import { z } from 'zod';
import { ResourceId, Timestamp } from '../common/schemas.js';
import { AUTHORITY_SIMULATIONS } from '../../fiscal/rt/transmission/sandboxAuthority.js';
import { FINANZ_ONLINE_SIMULATIONS } from '../../fiscal/rksv/finanzOnline/simulatedFinanzOnline.js';

export const RegisterStatus = z.enum(['active', 'inactive']);

/** Sandbox: how the register's tax authority answers; a regime takes the modes it has (regime.authoritySimulation). */
export const AuthoritySimulationMode = z
  .enum([...new Set([...AUTHORITY_SIMULATIONS, ...FINANZ_ONLINE_SIMULATIONS])] as [string, ...string[]])
  .describe(
    'RT registers: ok | reject | unreachable, how the sandbox authority answers the daily closures\' transmissions. ' +
      'RKSV registers: ok | reject | unreachable | timeout | credential_error, how the sandbox FinanzOnline answers the registration and reports',
  );
export type AuthoritySimulation = z.infer<typeof AuthoritySimulationMode>;
export const FiscalizationStatus = z.enum(['not_fiscalized', 'pending', 'failed', 'fiscalized', 'decommissioned']);

export const CreateRegisterBody = z.strictObject({
  location_id: ResourceId,
  name: z.string().min(1).max(200),
  external_id: z.string().min(1).max(200).nullable().optional(),
});

export const UpdateRegisterBody = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  status: RegisterStatus.optional(),
  external_id: z.string().min(1).max(200).nullable().optional(),
});

/** The `fiscalization.rksv` block of an Austrian register (DESIGN "Austria: RKSV"): which unit signs, by its public identifiers only. */
const AuthorityMessage = z.object({ code: z.string().describe('FinanzOnline\'s return code (rc), or the transport fault'), message: z.string() });

/** fiscalization.rksv.registration (DESIGN "Production drivers"): the register's FinanzOnline registration as far as it got. */
const FinanzOnlineRegistration = z
  .object({
    status: z
      .enum(['pending', 'registered', 'rejected', 'failed'])
      .describe('pending: not answered yet; registered: unit and cash register registered; rejected: FinanzOnline refused (reason); failed: no answer or the login was refused (reason), tried again'),
    transmission: z.enum(['test', 'production']).describe('test in the sandbox (art_uebermittlung T), production otherwise'),
    reason: AuthorityMessage.nullable(),
    signature_unit: z.enum(['pending', 'registered', 'rejected']),
    cash_register: z.enum(['pending', 'registered', 'rejected']),
    start_receipt_check: z
      .object({ status: z.enum(['pending', 'passed', 'failed']), checked_at: Timestamp.nullable(), reason: AuthorityMessage.nullable() })
      .describe('FinanzOnline\'s Belegprüfung of the start receipt'),
    attempts: z.number().int(),
    registered_at: Timestamp.nullable(),
    updated_at: Timestamp,
    reports: z
      .array(
        z.object({
          id: z.string(),
          type: z.enum(['outage', 'recovery', 'decommission']),
          status: z.enum(['pending', 'reported', 'rejected', 'failed']),
          occurred_at: Timestamp.describe('outage: its start; recovery: its end; decommission: the closing receipt'),
          reason: AuthorityMessage.nullable(),
          reported_at: Timestamp.nullable(),
        }),
      )
      .describe('Outage reports (after 48 hours, § 17 RKSV), their ends, and the decommission, oldest first'),
  })
  .meta({ id: 'FinanzOnlineRegistration' });

export const RksvFiscalization = z
  .object({
    driver: z.enum(['software', 'atrust_asign_online']).describe('The signature creation unit: the service’s software unit, or A-Trust a.sign RK online'),
    cash_register_id: z.string().describe('The Kassen-ID, field 2 of every receipt; register it in FinanzOnline'),
    suite: z.string().describe('Field 1 of every receipt: R1-AT0 (software unit, closed system) or R1-<ZDA id> (R1-AT1 for A-Trust)'),
    signature_device_id: z
      .string()
      .describe('Field 11 of every receipt, equal to tse_serial: <Ordnungsbegriff>-<key id> (software unit) or the certificate serial in hex (a trust service’s unit)'),
    zda_id: z.string().optional().describe('atrust_asign_online: the trust service provider’s id (AT1)'),
    certificate_serial: z.string().optional().describe('atrust_asign_online: the certificate serial in hex, as A-Trust reports it; register it in FinanzOnline'),
    certificate_serial_decimal: z.string().optional().describe('atrust_asign_online: the same serial in decimal'),
    public_key: z.string().describe('Base64 DER SubjectPublicKeyInfo of the signature device (ES256, P-256; the certificate’s key for a trust service’s unit)'),
    aes_key_check_value: z.string().describe('Check value of the AES key for manual entry in FinanzOnline'),
    turnover_counter_size: z.number().int(),
    start_receipt: z
      .object({ receipt_number: z.string(), jws: z.string(), qr_data: z.string() })
      .describe('The signed start receipt (Startbeleg); FinanzOnline checks it after registration'),
    registration: FinanzOnlineRegistration.optional().describe('Registers fiscalized before FinanzOnline registration existed have none'),
  })
  .meta({ id: 'RksvFiscalization' });

/** The RT of an Italian register (DESIGN "Italy: RT"): the simulator, or an Epson printer reached over HTTP. */
const RtFiscalizeOptions = z
  .discriminatedUnion('driver', [
    z.strictObject({ driver: z.literal('simulator') }).meta({ id: 'RtSimulatorOptions' }),
    z
      .strictObject({
      driver: z.literal('epson_fpmate'),
      url: z.url({ protocol: /^https?$/ }).describe('The printer’s base URL; the driver posts to <url>/cgi-bin/fpmate.cgi'),
      device_id: z.string().min(1).max(100).optional().describe('The printer’s devid (default local_printer)'),
      serial: z.string().regex(/^[0-9A-Z]{11}$/, 'must be the 11-character matricola').describe('The printer’s matricola'),
      departments: z
        .record(z.string().regex(/^(0\.(22|10|05|04)|N[1-7](\.[1-9])?)$/), z.number().int().min(1).max(99))
        .optional()
        .describe('The printer’s department for each VAT rate ("0.22") or natura ("N4"); defaults 0.22:1, 0.10:2, 0.05:3, 0.04:4, N1..N7: 5..11'),
      })
      .meta({ id: 'RtEpsonFpmateOptions' }),
  ])
  .meta({ id: 'RtFiscalizeOptions', discriminator: { propertyName: 'driver' } });

/** The TSE of a German register (DESIGN "Production drivers"): the software TSE, or a certified cloud TSE. */
const TseFiscalizeOptions = z
  .discriminatedUnion('driver', [
    z.strictObject({ driver: z.literal('software') }).meta({ id: 'TseSoftwareOptions' }),
    z
      .strictObject({
        driver: z.literal('fiskaly_sign_de'),
        api_key: z.string().min(1).max(200).describe('The API key of the fiskaly organization that owns the TSS; sealed at rest, never shown again'),
        api_secret: z.string().min(1).max(200).describe('Its API secret; sealed at rest, never shown again'),
        tss_id: z.guid().describe('The TSS (fiskaly _id), state INITIALIZED'),
        client_id: z.guid().describe('The register’s client at the TSS (fiskaly _id), state REGISTERED; its serial_number becomes the register’s client_id'),
        base_url: z
          .url({ protocol: /^https?$/ })
          .optional()
          .describe('fiskaly SIGN DE’s base URL; default https://kassensichv-middleware.fiskaly.com (test and live TSSs alike: the API key decides)'),
      })
      .meta({ id: 'TseFiskalySignDeOptions' }),
  ])
  .meta({ id: 'TseFiscalizeOptions', discriminator: { propertyName: 'driver' } });

/** The signature creation unit of an Austrian register (DESIGN "Production drivers"): the software unit, or a trust service's online unit. */
const RksvFiscalizeOptions = z
  .discriminatedUnion('driver', [
    z.strictObject({ driver: z.literal('software') }).meta({ id: 'RksvSoftwareOptions' }),
    z
      .strictObject({
        driver: z.literal('atrust_asign_online'),
        username: z
          .string()
          .min(1)
          .max(100)
          .regex(/^[A-Za-z0-9._-]+$/, 'must be the a.sign RK online username (letters, digits, . _ -)')
          .describe('The a.sign RK online account’s username (e.g. u123456789); sealed at rest, never shown again'),
        password: z.string().min(1).max(200).describe('Its password; sealed at rest, never shown again'),
        base_url: z
          .url({ protocol: /^https?$/ })
          .optional()
          .describe(
            'a.sign RK online’s base URL; /RegistrierkasseMobile/v2 is appended unless it names that path. Default https://hs.a-trust.at in production, the acceptance system https://hs-abnahme.a-trust.at in the sandbox',
          ),
      })
      .meta({ id: 'RksvAtrustAsignOnlineOptions' }),
  ])
  .meta({ id: 'RksvFiscalizeOptions', discriminator: { propertyName: 'driver' } });

/** Optional: the block of the register's regime (DEU: tse, AUT: rksv, ITA: rt). */
export const FiscalizeBody = z
  .strictObject({ tse: TseFiscalizeOptions.optional(), rksv: RksvFiscalizeOptions.optional(), rt: RtFiscalizeOptions.optional() })
  .nullish();
export type FiscalizeBodyInput = z.infer<typeof FiscalizeBody>;

/** The `fiscalization.rt` block of an Italian register. */
export const RtFiscalization = z
  .object({
    driver: z.enum(['simulator', 'epson_fpmate']),
    serial: z.string().describe('The RT’s matricola, equal to tse_serial'),
    fiscal_day: z.number().int().describe('The open fiscal day: the last closure’s number + 1'),
  })
  .meta({ id: 'RtFiscalization' });

/** The `fiscalization.tse` block of a German register: which TSE signs, by its public identifiers only. */
export const TseFiscalization = z
  .object({
    driver: z.enum(['software', 'fiskaly_sign_de']),
    serial: z.string().optional().describe('The TSE serial (SHA-256 of its public key, hex), equal to tse_serial'),
    signature_algorithm: z.string().optional(),
    tss_id: z.string().optional().describe('fiskaly_sign_de: the TSS'),
    client_id: z.string().optional().describe('fiskaly_sign_de: fiskaly’s id of the register’s client (the top-level client_id is its serial_number)'),
    public_key: z.string().optional().describe('fiskaly_sign_de: base64 of the TSS’s uncompressed public key point'),
    bsi_certification_id: z.string().optional().describe('fiskaly_sign_de: the BSI certification id the TSS reports (for the § 146a (4) AO notification)'),
  })
  .meta({ id: 'TseFiscalization' });

export const Fiscalization = z
  .object({
    regime: z.enum(['KassenSichV', 'RKSV', 'RT']),
    fiscalized_at: Timestamp,
    tse_serial: z.string().nullable().describe('KassenSichV: the TSE serial; RKSV: the signature device id (field 11)'),
    client_id: z.string().nullable().describe('KassenSichV: the TSE client id; RKSV: the Kassen-ID'),
    tse: TseFiscalization.optional().describe('KassenSichV registers only'),
    rksv: RksvFiscalization.optional().describe('RKSV registers only'),
    rt: RtFiscalization.optional().describe('RT registers only'),
  })
  .meta({ id: 'RegisterFiscalization' });

export const Register = z
  .object({
    id: z.string(),
    merchant_id: z.string(),
    location_id: z.string(),
    name: z.string(),
    status: RegisterStatus,
    fiscalization_status: FiscalizationStatus,
    fiscalization: Fiscalization.nullable(),
    external_id: z.string().nullable(),
    current_session_id: z.string().nullable(),
    resource_version: z.number().int(),
    created_at: Timestamp,
    updated_at: Timestamp,
    decommissionedAt: Timestamp.nullable(),
  })
  .meta({ id: 'Register' });

export type RegisterView = z.infer<typeof Register>;
