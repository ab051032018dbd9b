/**
 * FinanzOnline as the RKSV lifecycle talks to it (reference rksv.md §8, the
 * BMF's Registrierkassen web service): every call is one request of the
 * `rkdb` operation, made after a session login with the participant's web
 * service user. The sandbox answers with a simulation, production with the
 * BMF's web service; both behind this one port.
 */

/** A FinanzOnline web service user: Teilnehmer-ID (tid), Benutzer-ID (benid) and PIN. */
export interface FinanzOnlineLogin {
  participantId: string;
  userId: string;
  pin: string;
}

/**
 * How FinanzOnline knows a signature unit: by a trust service's certificate
 * (registrierung_se: VDA id and certificate serial), or, for the service's
 * own closed system, by the Ordnungsbegriff and key id of field 11 with the
 * public key (registrierung_ggs).
 */
export type RegisteredUnit =
  | {
      kind: 'certificate';
      /** The trust service: AT1 A-Trust, AT2 GlobalTrust, AT9 test only. */
      vdaId: string;
      /** art_se: a.sign RK online is a trust service's HSM (HSM_DIENSTLEISTER). */
      unitType: 'SIGNATURKARTE' | 'EIGENES_HSM' | 'HSM_DIENSTLEISTER';
      /** Hexadecimal, as field 11 of the receipts carries it. */
      certificateSerialHex: string;
    }
  | {
      kind: 'closed_system';
      /** art_ob: UID for a VAT id, FASTNR for a tax number, GLN. */
      identifierType: 'UID' | 'GLN' | 'FASTNR';
      /** ob: the identifier itself, without field 11's `U:`/`S:`/`G:` prefix. */
      identifier: string;
      /** zusatz_ob: the key id that follows the identifier in field 11. */
      keyId: string;
      /** art_se_ggs: the service's software unit is SW_GGS. */
      unitType: 'SW_GGS' | 'EIGENES_HSM';
      /** Base64 DER SubjectPublicKeyInfo. */
      publicKey: string;
    };

/** One request to FinanzOnline. */
export type FinanzOnlineRequest =
  | { type: 'register_unit'; unit: RegisteredUnit }
  | { type: 'register_cash_register'; cashRegisterId: string; /** base64 of the 32-byte AES key (44 characters) */ aesKey: string }
  /**
   * belegpruefung of the start receipt's machine-readable code. `publicKey`
   * (base64 DER SubjectPublicKeyInfo) is what the sandbox checks the signature
   * with; the BMF finds the key itself and is not sent it.
   */
  | { type: 'check_receipt'; qrCode: string; publicKey: string }
  /** ausfall_se / ausfall_ggs with reason 2 (signing impossible), from `since` (not in the future). */
  | { type: 'report_unit_outage'; unit: RegisteredUnit; since: Date }
  /** wiederinbetriebnahme_se / _ggs: the outage ended at `at`. */
  | { type: 'report_unit_recovery'; unit: RegisteredUnit; at: Date }
  /** ausfall_kasse with ausserbetriebnahme, reason 6 (planned). */
  | { type: 'decommission_cash_register'; cashRegisterId: string }
  /** ausfall_se / ausfall_ggs with ausserbetriebnahme, reason 6 (planned). */
  | { type: 'decommission_unit'; unit: RegisteredUnit };

/** A message as FinanzOnline words it: its return code (rc, a string: "0", "B1", "-4") and text. */
export interface FinanzOnlineMessage {
  code: string;
  message: string;
}

/** What a check_receipt found: each verification FinanzOnline ran, and whether all passed. */
export interface ReceiptCheck {
  passed: boolean;
  results: { id: string; name: string; state: 'PASS' | 'FAIL' | 'NOT_EXECUTED'; message: string | null }[];
}

/**
 * FinanzOnline's answer to one request:
 * - `accepted`: rc 0, or a code saying it was already done (a repeat after a lost answer);
 * - `rejected`: a business return code; sending it again will not help;
 * - `login_refused`: the session login was refused (rc -4 to -8): the credential must change first;
 * - `unavailable`: no usable answer (network, timeout, HTTP 5xx, SOAP fault, maintenance -2, technical -3): retried.
 */
export type FinanzOnlineAnswer =
  | ({ outcome: 'accepted'; check: ReceiptCheck | null } & FinanzOnlineMessage)
  | ({ outcome: 'rejected' | 'login_refused' | 'unavailable' } & FinanzOnlineMessage);

export interface SubmissionContext {
  /** paket_nr: unique per participant; the caller's job keeps it across retries. */
  packageNumber: number;
  /** The sandbox's authority simulation of the register (ok, reject, unreachable, timeout, credential_error). */
  simulation: string;
  /** Ends the call; its answer is then `unavailable`. */
  signal: AbortSignal;
}

/** Where the RKSV lifecycle's requests go. `login` is null when the merchant stored no finanz_online credential. */
export interface FinanzOnlineAuthority {
  submit(login: FinanzOnlineLogin | null, request: FinanzOnlineRequest, context: SubmissionContext): Promise<FinanzOnlineAnswer>;
  /** Ends what the authority holds open (the web service's sessions) when the worker stops. */
  close?(): Promise<void>;
}
