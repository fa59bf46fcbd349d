// Ready-to-paste configuration for pointing an app (SMTP, a provider SDK, HTTP) at a sandbox, from its settings.
import type { Sandbox } from '../../api.ts';

export interface Snippet {
  id: string;
  label: string;
  file: string;
  code: string;
}

type SmtpSettings = Pick<
  Sandbox,
  | 'smtpHost'
  | 'smtpPort'
  | 'smtpUsername'
  | 'smtpPassword'
  | 'captureUrl'
  | 'emailAddress'
  | 'providerBaseUrls'
>;

export function snippets(s: SmtpSettings): Snippet[] {
  const host = s.smtpHost;
  const port = String(s.smtpPort);
  return [
    {
      id: 'nodemailer',
      label: 'nodemailer',
      file: 'Node.js',
      code: `const transport = nodemailer.createTransport({
  host: ${JSON.stringify(host)},
  port: ${port},
  secure: false,
  requireTLS: true, // STARTTLS before AUTH
  auth: { user: ${JSON.stringify(s.smtpUsername)}, pass: ${JSON.stringify(s.smtpPassword)} },
  tls: { rejectUnauthorized: false }, // self-signed development certificate
});

await transport.sendMail({
  from: 'app@example.com',
  to: ${JSON.stringify(s.emailAddress)},
  subject: 'Hello from my app',
  text: 'It works',
});`,
    },
    {
      id: 'django',
      label: 'Django',
      file: 'settings.py',
      code: `EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
EMAIL_HOST = ${JSON.stringify(host)}
EMAIL_PORT = ${port}
EMAIL_HOST_USER = ${JSON.stringify(s.smtpUsername)}
EMAIL_HOST_PASSWORD = ${JSON.stringify(s.smtpPassword)}
EMAIL_USE_TLS = True  # STARTTLS; Django does not verify the certificate by default`,
    },
    {
      id: 'rails',
      label: 'Rails',
      file: 'config/environments/development.rb',
      code: `config.action_mailer.delivery_method = :smtp
config.action_mailer.smtp_settings = {
  address: ${JSON.stringify(host)},
  port: ${port},
  user_name: ${JSON.stringify(s.smtpUsername)},
  password: ${JSON.stringify(s.smtpPassword)},
  authentication: :plain,
  enable_starttls: true,
  openssl_verify_mode: "none" # self-signed development certificate
}`,
    },
    {
      id: 'spring',
      label: 'Spring',
      file: 'application.properties',
      code: `spring.mail.host=${host}
spring.mail.port=${port}
spring.mail.username=${s.smtpUsername}
spring.mail.password=${s.smtpPassword}
spring.mail.properties.mail.smtp.auth=true
spring.mail.properties.mail.smtp.starttls.enable=true
spring.mail.properties.mail.smtp.starttls.required=true
spring.mail.properties.mail.smtp.ssl.trust=*`,
    },
    {
      id: 'laravel',
      label: 'Laravel',
      file: '.env',
      code: `MAIL_MAILER=smtp
MAIL_HOST=${host}
MAIL_PORT=${port}
MAIL_USERNAME=${s.smtpUsername}
MAIL_PASSWORD=${s.smtpPassword}
MAIL_ENCRYPTION=tls
# config/mail.php, mailers.smtp: 'stream' => ['ssl' => ['verify_peer' => false]] for the self-signed certificate`,
    },
    ...providerSnippets(s),
    {
      id: 'curl',
      label: 'curl',
      file: 'HTTP capture',
      code: `# Anything sent to the capture URL is recorded (and answered by the sandbox's mock rules)
curl -X POST ${shellQuote(`${s.captureUrl.replace(/\/$/, '')}/webhooks/test`)} \\
  -H 'Content-Type: application/json' \\
  -d '{"event":"ping"}'`,
    },
  ];
}

/**
 * Apps that send through a provider's HTTP API keep their SDK and point its base URL here (README "Mail sent
 * through provider APIs"); the sandbox's password is the provider's API key.
 */
function providerSnippets(s: SmtpSettings): Snippet[] {
  const urls = s.providerBaseUrls;
  const key = JSON.stringify(s.smtpPassword);
  const postmark = new URL(urls.postmark);
  return [
    {
      id: 'sendgrid',
      label: 'SendGrid',
      file: '@sendgrid/mail',
      code: `import { Client } from '@sendgrid/client';
import sgMail from '@sendgrid/mail';

const client = new Client();
client.setApiKey(${key});
client.setDefaultRequest('baseUrl', ${JSON.stringify(urls.sendgrid)}); // after setApiKey
sgMail.setClient(client);`,
    },
    {
      id: 'postmark',
      label: 'Postmark',
      file: 'postmark',
      code: `import { ServerClient } from 'postmark';

const postmark = new ServerClient(${key}, {
  useHttps: ${postmark.protocol === 'https:'},
  requestHost: ${JSON.stringify(postmark.host + postmark.pathname.replace(/\/$/, ''))},
});`,
    },
    {
      id: 'resend',
      label: 'Resend',
      file: 'resend',
      code: `# .env: the SDK reads its base URL from here (or pass { baseUrl } to new Resend)
RESEND_API_KEY=${s.smtpPassword}
RESEND_BASE_URL=${urls.resend}`,
    },
    {
      id: 'mailgun',
      label: 'Mailgun',
      file: 'mailgun.js',
      code: `import FormData from 'form-data';
import Mailgun from 'mailgun.js';

const mg = new Mailgun(FormData).client({
  username: 'api',
  key: ${key},
  url: ${JSON.stringify(urls.mailgun)},
});`,
    },
    {
      id: 'ses',
      label: 'Amazon SES',
      file: '@aws-sdk/client-sesv2',
      code: `# .env: every AWS SDK (and the AWS CLI) sends SES v2 calls to this endpoint; any region
AWS_ENDPOINT_URL_SESV2=${urls.ses}
AWS_ACCESS_KEY_ID=${s.smtpUsername}
AWS_SECRET_ACCESS_KEY=${s.smtpPassword}
AWS_REGION=us-east-1`,
    },
  ];
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
