// Mock rule shapes: what is stored for a sandbox, in list order.

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
}
