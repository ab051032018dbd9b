/**
 * Natura codes of a zero-rated line in force for invoices since 2021, each with the legal
 * ground DatiRiepilogo's RiferimentoNormativo states (String100Latin). N2, N3 and N6 without
 * a sub-code are still in the XSD but the SdI refuses them on invoices dated from 2021.
 */
const RIFERIMENTO_NORMATIVO: ReadonlyMap<string, string> = new Map([
  ['N1', 'Operazione esclusa, art. 15 DPR 633/72'],
  ['N2.1', 'Operazione non soggetta, artt. da 7 a 7-septies DPR 633/72'],
  ['N2.2', 'Operazione non soggetta, altri casi'],
  ['N3.1', 'Operazione non imponibile, esportazione, art. 8 DPR 633/72'],
  ['N3.2', 'Operazione non imponibile, cessione intracomunitaria, art. 41 DL 331/93'],
  ['N3.3', 'Operazione non imponibile, cessione verso San Marino, art. 71 DPR 633/72'],
  ['N3.4', 'Operazione non imponibile, assimilata alle esportazioni, art. 8-bis DPR 633/72'],
  ['N3.5', "Operazione non imponibile a seguito di dichiarazione d'intento, art. 8 c.1 lett. c DPR 633/72"],
  ['N3.6', 'Operazione non imponibile che non concorre alla formazione del plafond'],
  ['N4', 'Operazione esente, art. 10 DPR 633/72'],
  ['N5', 'Regime del margine, IVA non esposta in fattura'],
  ['N6.1', 'Inversione contabile, rottami e materiali di recupero, art. 74 c.7-8 DPR 633/72'],
  ['N6.2', 'Inversione contabile, oro e argento, art. 17 c.5 DPR 633/72'],
  ['N6.3', 'Inversione contabile, subappalto nel settore edile, art. 17 c.6 lett. a DPR 633/72'],
  ['N6.4', 'Inversione contabile, cessione di fabbricati, art. 17 c.6 lett. a-bis DPR 633/72'],
  ['N6.5', 'Inversione contabile, telefoni cellulari, art. 17 c.6 lett. b DPR 633/72'],
  ['N6.6', 'Inversione contabile, prodotti elettronici, art. 17 c.6 lett. c DPR 633/72'],
  ['N6.7', 'Inversione contabile, comparto edile e settori connessi, art. 17 c.6 lett. a-ter DPR 633/72'],
  ['N6.8', 'Inversione contabile, settore energetico, art. 17 c.6 lett. d-bis, d-ter, d-quater DPR 633/72'],
  ['N6.9', 'Inversione contabile, altri casi, art. 17 DPR 633/72'],
  ['N7', 'IVA assolta in altro Stato UE, art. 7-octies DPR 633/72 e art. 41 c.1 lett. b DL 331/93'],
]);

/** Codes the XSD still lists but the SdI refuses on invoices since 2021: the sub-code is required. */
const WITHOUT_SUB_CODE: ReadonlySet<string> = new Set(['N2', 'N3', 'N6']);

export const NATURA_CODES: readonly string[] = [...RIFERIMENTO_NORMATIVO.keys()];

export function isNaturaCode(code: string): boolean {
  return RIFERIMENTO_NORMATIVO.has(code);
}

export function needsSubCode(code: string): boolean {
  return WITHOUT_SUB_CODE.has(code);
}

export function riferimentoNormativoOf(code: string): string {
  const text = RIFERIMENTO_NORMATIVO.get(code);
  if (text === undefined) throw new RangeError(`not a natura code: ${JSON.stringify(code)}`);
  return text;
}
