// HTML compatibility of a message's HTML part against caniemail's data (the `caniemail` package): which
// features each email client fails or only partly supports, where they occur in the source, and an overall
// support percentage over every (feature found, client) pair.
import { caniemail, rawData } from 'caniemail';

type Issues = ReturnType<typeof caniemail>['issues']['errors'];
type FeatureIssue = NonNullable<ReturnType<Issues['get']>>[number];

export type Support = 'partial' | 'none';

export interface ClientVerdict {
  /** caniemail's client id, `family.platform` (e.g. `outlook.windows`). */
  client: string;
  /** The client's display name, e.g. "Outlook Windows". */
  name: string;
  support: Support;
  /** The tested versions that fail (`none`) or only partly support (`partial`) the feature. */
  versions: string[];
  notes: string[];
}

export interface FeatureReport {
  title: string;
  /** caniemail's page for the feature, or null when the data has none. */
  url: string | null;
  category: string | null;
  /** Where the feature occurs in the HTML source, 1-based; empty when the data gives no position (e.g. @media). */
  positions: Array<{ line: number; column: number }>;
  clients: ClientVerdict[];
  /** Per cent of the clients checked that support it fully, partly, not at all (rounded). */
  score: { supported: number; partial: number; unsupported: number };
}

export interface HtmlCompatReport {
  /** False when the message has no HTML part (then nothing else is filled in). */
  hasHtml: boolean;
  clientsChecked: number;
  /** Clients the data set cannot judge for a feature this mail uses (caniemail gives no answer for them). */
  clientsSkipped: string[];
  /** Over every (feature found, client checked) pair, per cent supported, partial and unsupported. */
  total: { supported: number; partial: number; unsupported: number; features: number };
  features: FeatureReport[];
  /** caniemail's data date, so a reader knows how fresh the verdicts are. */
  dataDate: string;
}

interface RawFeature {
  title: string;
  url?: string;
  category?: string;
  stats?: Record<string, Record<string, Record<string, string>>>;
}

const ALL_CLIENTS = [
  'aol.android',
  'aol.desktop-webmail',
  'aol.ios',
  'apple-mail.ios',
  'apple-mail.macos',
  'fastmail.desktop-webmail',
  'free-fr.desktop-webmail',
  'gmail.android',
  'gmail.desktop-webmail',
  'gmail.ios',
  'gmail.mobile-webmail',
  'gmx.android',
  'gmx.desktop-webmail',
  'gmx.ios',
  'hey.desktop-webmail',
  'ionos-1and1.android',
  'ionos-1and1.desktop-webmail',
  'laposte.android',
  'laposte.desktop-webmail',
  'laposte.ios',
  'mail-ru.desktop-webmail',
  'orange.android',
  'orange.desktop-webmail',
  'orange.ios',
  'outlook.android',
  'outlook.ios',
  'outlook.macos',
  'outlook.outlook-com',
  'outlook.windows',
  'outlook.windows-mail',
  'protonmail.android',
  'protonmail.desktop-webmail',
  'protonmail.ios',
  'rainloop.desktop-webmail',
  'samsung-email.android',
  'sfr.android',
  'sfr.desktop-webmail',
  'sfr.ios',
  't-online-de.desktop-webmail',
  'thunderbird.macos',
  'thunderbird.windows',
  'web-de.android',
  'web-de.desktop-webmail',
  'web-de.ios',
  'wp-pl.desktop-webmail',
  'yahoo.android',
  'yahoo.desktop-webmail',
  'yahoo.ios',
] as const;
type Client = (typeof ALL_CLIENTS)[number];

// caniemail: its types close `stats` over the client families it knew when built; we index by the client names
// we hold as strings, so the data is restated in the open shape it has.
const data = rawData as unknown as {
  last_update_date: string;
  nicenames: { family: Record<string, string>; platform: Record<string, string> };
  data: RawFeature[];
};
const byTitle = new Map(data.data.map((f) => [f.title, f]));

function clientName(client: string): string {
  const [family = '', platform = ''] = client.split('.');
  return `${data.nicenames.family[family] ?? family} ${data.nicenames.platform[platform] ?? platform}`;
}

/** The tested versions whose verdict is `n` (none) or `a` (partial), as the data spells them. */
function failingVersions(feature: RawFeature | undefined, client: string, support: Support): string[] {
  const [family = '', platform = ''] = client.split('.');
  const stats = feature?.stats?.[family]?.[platform] ?? {};
  const mark = support === 'none' ? 'n' : 'a';
  return Object.entries(stats)
    .filter(([, verdict]) => verdict.trim().startsWith(mark))
    .map(([version]) => version);
}

const CLIENT_IN_ERROR = /not found on "([^"]+)"/;

/**
 * caniemail throws when one client has no entry for a feature the mail uses; that client is set aside (and
 * reported) and the rest are checked again, so one gap in the data does not hide every other verdict.
 */
function runCaniemail(html: string): {
  errors: Issues;
  warnings: Issues;
  checked: Client[];
  skipped: string[];
} {
  let clients: Client[] = [...ALL_CLIENTS];
  const skipped: string[] = [];
  for (;;) {
    try {
      const { issues } = caniemail({ clients, html });
      return { errors: issues.errors, warnings: issues.warnings, checked: clients, skipped };
    } catch (err) {
      const client = err instanceof RangeError ? CLIENT_IN_ERROR.exec(err.message)?.[1] : undefined;
      if (client === undefined || !clients.includes(client as Client)) throw err;
      clients = clients.filter((c) => c !== client);
      skipped.push(client);
    }
  }
}

const percent = (n: number, of: number) => (of === 0 ? 100 : Math.round((n * 1000) / of) / 10);

export function htmlCompatibility(html: string | null): HtmlCompatReport {
  const empty = { supported: 100, partial: 0, unsupported: 0, features: 0 };
  if (html === null || html.trim() === '') {
    return {
      hasHtml: false,
      clientsChecked: 0,
      clientsSkipped: [],
      total: empty,
      features: [],
      dataDate: data.last_update_date,
    };
  }
  const run = runCaniemail(html);
  const features = new Map<string, FeatureReport>();
  const add = (client: string, issue: FeatureIssue, support: Support) => {
    const raw = byTitle.get(issue.title);
    let report = features.get(issue.title);
    if (report === undefined) {
      report = {
        title: issue.title,
        url: raw?.url ?? null,
        category: raw?.category ?? null,
        positions: [],
        clients: [],
        score: { supported: 0, partial: 0, unsupported: 0 },
      };
      features.set(issue.title, report);
    }
    const at = issue.position?.start;
    if (at !== undefined && !report.positions.some((p) => p.line === at.line && p.column === at.column)) {
      report.positions.push({ line: at.line, column: at.column });
    }
    if (!report.clients.some((c) => c.client === client)) {
      const versions = failingVersions(raw, client, support);
      report.clients.push({ client, name: clientName(client), support, versions, notes: issue.notes });
    }
  };
  for (const [client, issues] of run.errors) for (const issue of issues) add(client, issue, 'none');
  for (const [client, issues] of run.warnings) for (const issue of issues) add(client, issue, 'partial');

  const checked = run.checked.length;
  let partial = 0;
  let unsupported = 0;
  for (const report of features.values()) {
    report.positions.sort((a, b) => a.line - b.line || a.column - b.column);
    report.clients.sort((a, b) =>
      a.support === b.support ? a.client.localeCompare(b.client) : a.support === 'none' ? -1 : 1,
    );
    const none = report.clients.filter((c) => c.support === 'none').length;
    const part = report.clients.length - none;
    report.score = {
      supported: percent(checked - none - part, checked),
      partial: percent(part, checked),
      unsupported: percent(none, checked),
    };
    partial += part;
    unsupported += none;
  }
  const pairs = checked * features.size;
  const list = [...features.values()].sort(
    (a, b) => a.score.supported - b.score.supported || a.title.localeCompare(b.title),
  );
  return {
    hasHtml: true,
    clientsChecked: checked,
    clientsSkipped: run.skipped,
    total: {
      supported: percent(pairs - partial - unsupported, pairs),
      partial: percent(partial, pairs),
      unsupported: percent(unsupported, pairs),
      features: features.size,
    },
    features: list,
    dataDate: data.last_update_date,
  };
}
