// Which IP addresses an outbound fetch may reach: public unicast only, so a client_id URL cannot aim us inward.
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

// DNS64 resolvers synthesise 64:ff9b::/96 addresses for IPv4-only hosts, so those are judged by the IPv4 inside.
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
// ipaddr.js calls anything outside its special ranges "unicast", which would pass ::7f00:1 (IPv4-compatible)
// and other unassigned space; IANA allocates public IPv6 only from 2000::/3.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

const RANGE_WORDS: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT (100.64.0.0/10) address',
  private: 'a private address',
  reserved: 'a reserved address',
  uniqueLocal: 'a unique-local address',
  deprecatedSiteLocal: 'a site-local address',
  rfc6145: 'an IPv4-translated address',
  rfc6052: 'a local-use NAT64 address',
  '6to4': 'a 6to4 tunnel address',
  teredo: 'a Teredo tunnel address',
};

/**
 * Undefined when `address` is a public unicast address; otherwise words for what it is ("a loopback address").
 * IPv4-mapped IPv6 forms are judged as the IPv4 address they carry.
 */
export function nonPublicAddress(address: string): string | undefined {
  // isIP first: ipaddr.js also takes classful shorthand ("1.2.3"), which is not what a socket is handed.
  if (isIP(address) === 0 || !ipaddr.isValid(address)) return 'not an IP address';
  let ip = ipaddr.process(address);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.match(NAT64_WELL_KNOWN)) {
      ip = ipaddr.fromByteArray(v6.toByteArray().slice(12));
    } else {
      const range = v6.range();
      if (range !== 'unicast') return describeRange(range);
      return v6.match(GLOBAL_UNICAST_V6) ? undefined : 'an address outside the public IPv6 range (2000::/3)';
    }
  }
  const range = ip.range();
  return range === 'unicast' ? undefined : describeRange(range);
}

function describeRange(range: string): string {
  return RANGE_WORDS[range] ?? `a special-purpose address (${range})`;
}
