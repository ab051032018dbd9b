/**
 * A postal address as merchants and locations store it (the Address of responses has this shape).
 * A type, not an interface, so that it is assignable to Prisma's JSON input.
 */
export type AddressValue = {
  line1: string;
  line2: string | null;
  city: string;
  postal_code: string;
  country_code: string;
};
