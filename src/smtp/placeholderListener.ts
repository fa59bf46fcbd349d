// Until SMTP capture lands, the mail ports answer every connection with a clear 421 and close,
// so senders fail fast with a reason instead of hanging.
import { createServer, type Server } from 'node:net';

export function createPlaceholderSmtpServer(): Server {
  return createServer((socket) => {
    socket.on('error', () => socket.destroy());
    socket.end('421 4.3.2 sandtrap: SMTP capture is not enabled in this build; nothing was stored\r\n');
  });
}
