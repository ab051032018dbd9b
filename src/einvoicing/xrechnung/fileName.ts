/** The document's file name: the invoice number with every character a file name cannot safely hold ("/" first of all) as "-", then ".xml". */
export function xrechnungFileName(invoiceNumber: string): string {
  return `${invoiceNumber.replace(/[^A-Za-z0-9._-]/g, '-')}.xml`;
}
