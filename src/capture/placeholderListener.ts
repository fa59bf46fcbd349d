// Until HTTP capture lands, the capture port answers 503 problem+json (and sets no cookie), so a sender
// sees at once that nothing was recorded.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';

export function createPlaceholderCaptureServer(): Server {
  return createServer((req, res) => {
    const requestId = randomUUID();
    req.resume();
    res.writeHead(503, {
      'Content-Type': 'application/problem+json',
      'X-Request-Id': requestId,
      'X-Content-Type-Options': 'nosniff',
    });
    res.end(
      JSON.stringify({
        type: 'urn:sandtrap:problem:unavailable',
        title: 'Service unavailable',
        status: 503,
        detail: 'HTTP capture is not enabled in this build; nothing was recorded.',
        requestId,
      }),
    );
  });
}
