export type TransmissionFormat = 'FPA12' | 'FPR12';

/** The recipient code's shape: [A-Z0-9]{6,7} (CodiceDestinatarioType). */
export const CODICE_DESTINATARIO = /^[A-Z0-9]{6,7}$/;

/** The code of a recipient without one: delivery through PECDestinatario or the reserved area. */
export const NO_RECIPIENT_CODE = '0000000';

/**
 * FormatoTrasmissione (and the root's `versione`) follows from the recipient code: six
 * characters are a public administration's IPA office code (FPA12), seven a private
 * recipient's channel or 0000000 (FPR12). The SdI rejects a mismatch (00427).
 */
export function transmissionFormatOf(codiceDestinatario: string): TransmissionFormat {
  if (!CODICE_DESTINATARIO.test(codiceDestinatario)) throw new RangeError(`not a CodiceDestinatario: ${JSON.stringify(codiceDestinatario)}`);
  return codiceDestinatario.length === 6 ? 'FPA12' : 'FPR12';
}
