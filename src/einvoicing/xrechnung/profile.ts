/** BT-24: the specification identifier of XRechnung 3.0 in its CII syntax. */
export const XRECHNUNG_CUSTOMIZATION_ID = 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0';

/** BT-23: the business process XRechnung 3.0 prescribes (Peppol billing). */
export const XRECHNUNG_BUSINESS_PROCESS = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';

/** The value of `fiscal.jurisdiction_data.format`. */
export const XRECHNUNG_FORMAT = 'xrechnung-cii';

/** Namespaces of the UN/CEFACT Cross Industry Invoice D16B. */
export const CII_NAMESPACES = {
  rsm: 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
  ram: 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
  qdt: 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100',
  udt: 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
} as const;
