// Which addresses a webhook may be delivered to: WEBHOOK_TARGETS (hosts or CIDRs) when set; otherwise public
// addresses, and loopback too when the service itself is bound to loopback. Resolved once per check, so the
// sender connects to exactly the addresses judged here (post.ts pins them).
import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { nonPublicAddress } from '../oauth/addressPolicy.ts';

export interface TargetPolicy {
  /** WEBHOOK_TARGETS entries, lower case: host names (`*.example.com` for subdomains) or CIDRs / addresses. */
  targets: readonly string[];
  loopbackBound: boolean;
}

export type Vetted = { ok: true; addresses: LookupAddress[] } | { ok: false; reason: string };

const HOST_NAME = /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

/** Undefined when every WEBHOOK_TARGETS entry is a host name, an address or a CIDR; else the bad entry. */
export function invalidTargetEntry(entries: readonly string[]): string | undefined {
  return entries.find((e) => !(HOST_NAME.test(e) || ipaddr.isValid(e) || ipaddr.isValidCIDR(e)));
}

function cidrOf(entry: string): [ipaddr.IPv4 | ipaddr.IPv6, number] | undefined {
  if (ipaddr.isValidCIDR(entry)) return ipaddr.parseCIDR(entry);
  if (isIP(entry) !== 0) {
    const ip = ipaddr.process(entry);
    return [ip, ip.kind() === 'ipv4' ? 32 : 128];
  }
  return undefined;
}

function hostListed(host: string, entries: readonly string[]): boolean {
  return entries.some((e) => e === host || (e.startsWith('*.') && host.endsWith(e.slice(1))));
}

function addressListed(address: string, entries: readonly string[]): boolean {
  const ip = ipaddr.process(address);
  return entries.some((e) => {
    const cidr = cidrOf(e);
    return cidr !== undefined && cidr[0].kind() === ip.kind() && ip.match(cidr);
  });
}

const DEFAULT_RULE = (p: TargetPolicy) =>
  p.loopbackBound
    ? 'the default rule allows public and loopback addresses (the service is bound to loopback)'
    : 'the default rule allows public addresses only (the service is not bound to loopback)';

/** Why `address` is refused under `policy`, or undefined when it is allowed. */
function addressRefusal(address: string, policy: TargetPolicy): string | undefined {
  if (policy.targets.length > 0) {
    return addressListed(address, policy.targets) ? undefined : 'not in WEBHOOK_TARGETS';
  }
  const why = nonPublicAddress(address);
  if (why === undefined) return undefined;
  if (why === 'a loopback address' && policy.loopbackBound) return undefined;
  return `${why}; ${DEFAULT_RULE(policy)}, set WEBHOOK_TARGETS to allow others`;
}

/** The URL's scheme and shape, before any lookup: undefined when fine. */
export function urlRefusal(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
  if (url.hash !== '') return 'must not have a #fragment';
  return undefined;
}

/** Resolves the URL's host once and judges every address (one bad answer refuses the host). */
export async function vetTarget(raw: string, policy: TargetPolicy): Promise<Vetted> {
  const bad = urlRefusal(raw);
  if (bad !== undefined) return { ok: false, reason: bad };
  const url = new URL(raw);
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const byName = policy.targets.length > 0 && hostListed(host, policy.targets);
  let addresses: LookupAddress[];
  if (isIP(host) !== 0) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await dnsLookup(host, { all: true, order: 'verbatim' });
    } catch (err) {
      return {
        ok: false,
        reason: `the host ${host} does not resolve (${(err as NodeJS.ErrnoException).code})`,
      };
    }
    if (addresses.length === 0) return { ok: false, reason: `the host ${host} does not resolve` };
  }
  // A host listed by name in WEBHOOK_TARGETS is trusted wherever it resolves.
  if (byName) return { ok: true, addresses };
  for (const { address } of addresses) {
    const why = addressRefusal(address, policy);
    if (why !== undefined) {
      const named = address === host ? address : `${host} (${address})`;
      return { ok: false, reason: `the target ${named} is refused: ${why}` };
    }
  }
  return { ok: true, addresses };
}
