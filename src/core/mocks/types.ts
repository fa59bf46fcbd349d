// Mock rule shapes: what is stored for a sandbox, in list order.

/** What a rule does to the connection instead of (or while) sending its reply; the request is recorded first. */
export interface MockFault {
  type: 'reset' | 'empty' | 'malformed' | 'slow';
  /** `slow` only (and always there): the reply's body goes out in pieces spread over this. */
  durationMs?: number;
}

export type MockDelay = number | { min: number; max: number };

/**
 * How a callback is signed: Standard Webhooks (webhook-id/-timestamp/-signature), or one HMAC-SHA256 header
 * (`header`, `encoding` and `prefix` are always set for that scheme when saved).
 */
export interface CallbackSigning {
  scheme: 'standard-webhooks' | 'hmac-sha256';
  secret: string;
  header?: string | null;
  encoding?: 'hex' | 'base64' | null;
  prefix?: string | null;
}

/** An outbound request a rule schedules after it answers; url, headers and body are templates. */
export interface MockCallback {
  delayMs: number;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | null;
  signing: CallbackSigning | null;
}

export interface StoredMockRule {
  id: string;
  name: string;
  /** Upper-case HTTP method, or `ANY`. */
  method: string;
  pattern: string;
  statusCode: number;
  headers: Record<string, string>;
  body: string | null;
  isFallback: boolean;
  /** Additive (issue 40); absent on rules saved before, and when unset. */
  delayMs?: MockDelay;
  fault?: MockFault;
  /** The rule answers its next `times` matches (counted per save of the rules), then falls through. */
  times?: number;
  scenario?: string;
  requiredState?: string;
  newState?: string;
  /** Where the scenario's correlation key comes from: `path.<name>`, `header.<name>`, `query.<name>`, `body.<path>`. */
  stateKey?: string;
  callbacks?: MockCallback[];
}
