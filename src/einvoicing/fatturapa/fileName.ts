/**
 * `<IdPaese><IdCodice>_<progressivo>.xml` of the transmitter (reference §9.3). The service
 * sends as the seller itself, so the transmitter is the seller's partita IVA:
 * `IT01234567890_0000A.xml`.
 */
export function fatturaPaFileName(transmitterVatDigits: string, progressivo: string): string {
  return `IT${transmitterVatDigits}_${progressivo}.xml`;
}
