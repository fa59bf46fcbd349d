// The floor for HTTP capture on this machine: node:http (what the capture listener is built on) reading each
// body and answering 200 {}, storing and parsing nothing. Usage: node floor-http.ts <port>
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '2' });
    res.end('{}');
  });
}).listen(port, '127.0.0.1');
