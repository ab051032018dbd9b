import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Where webhooks may go. In production only to public addresses: an endpoint
 * URL must not reach the service's own network (SSRF). The sandbox allows
 * any address, so integrators can receive on their own machines.
 */
export type DestinationPolicy = 'any' | 'public_only';

export const destinationPolicyFor = (environment: 'sandbox' | 'production'): DestinationPolicy =>
  environment === 'production' ? 'public_only' : 'any';

/** An endpoint's host is, or resolves to, an address the policy refuses. */
export class RefusedDestinationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedDestinationError';
  }
}

type Family = 'ipv4' | 'ipv6';

/** The ranges no webhook may reach in production, by what they are (IPv4 rules also match IPv4-mapped IPv6). */
const NON_PUBLIC_RANGES: [kind: string, network: string, prefix: number, family: Family][] = [
  ['unspecified', '0.0.0.0', 8, 'ipv4'],
  ['unspecified', '::', 128, 'ipv6'],
  ['loopback', '127.0.0.0', 8, 'ipv4'],
  ['loopback', '::1', 128, 'ipv6'],
  ['private', '10.0.0.0', 8, 'ipv4'],
  ['private', '172.16.0.0', 12, 'ipv4'],
  ['private', '192.168.0.0', 16, 'ipv4'],
  ['private', '100.64.0.0', 10, 'ipv4'],
  ['link-local', '169.254.0.0', 16, 'ipv4'],
  ['link-local', 'fe80::', 10, 'ipv6'],
  ['unique-local', 'fc00::', 7, 'ipv6'],
  ['multicast', '224.0.0.0', 4, 'ipv4'],
  ['multicast', 'ff00::', 8, 'ipv6'],
  ['reserved', '240.0.0.0', 4, 'ipv4'],
];

const RANGES_BY_KIND = new Map<string, BlockList>();
for (const [kind, network, prefix, family] of NON_PUBLIC_RANGES) {
  const list = RANGES_BY_KIND.get(kind) ?? new BlockList();
  list.addSubnet(network, prefix, family);
  RANGES_BY_KIND.set(kind, list);
}

/** What kind of non-public address `address` is (loopback, private, ...), or null for a public one. */
export function nonPublicKind(address: string): string | null {
  const family: Family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  for (const [kind, list] of RANGES_BY_KIND) if (list.check(address, family)) return kind;
  return null;
}

/** The URL's host as an address when it is one (brackets of an IPv6 literal removed), else null. */
function literalAddress(url: URL): string | null {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) ? host : null;
}

function refuse(host: string, address: string, kind: string): never {
  const what = host === address ? host : `${host} resolves to ${address}, which`;
  throw new RefusedDestinationError(`${what} is not a public address (${kind}); webhooks go to public addresses only`);
}

function assertPublic(host: string, addresses: readonly string[]): void {
  for (const address of addresses) {
    const kind = nonPublicKind(address);
    if (kind) refuse(host, address, kind);
  }
}

/**
 * At registration: the URL's host, an address or every address its name
 * resolves to now, must be public under `public_only`. A name that does not
 * resolve is refused too: nothing says where it would lead.
 */
export async function checkDestination(url: URL, policy: DestinationPolicy): Promise<void> {
  if (policy === 'any') return;
  const literal = literalAddress(url);
  if (literal) return assertPublic(literal, [literal]);
  const addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
    dnsLookup(url.hostname, { all: true }, (error, found) => (error ? reject(new RefusedDestinationError(`${url.hostname} does not resolve (${error.code ?? error.message})`)) : resolve(found))),
  );
  assertPublic(url.hostname, addresses.map((entry) => entry.address));
}

/**
 * At delivery, for a URL whose host is an address (a name is checked as it is
 * resolved for the connection, by publicOnlyLookup).
 */
export function checkLiteralDestination(url: URL, policy: DestinationPolicy): void {
  const literal = literalAddress(url);
  if (policy === 'public_only' && literal) assertPublic(literal, [literal]);
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for the connections of `public_only` deliveries: the name is
 * resolved once and the connection goes to what was checked, so a name that
 * resolves to a public address at registration and to an internal one later
 * (DNS rebinding) is refused at connect time. One non-public answer refuses the host.
 */
export function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    try {
      assertPublic(hostname, addresses.map((entry) => entry.address));
    } catch (refused) {
      return callback(refused as NodeJS.ErrnoException, []);
    }
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    return callback(null, first.address, first.family);
  });
}
