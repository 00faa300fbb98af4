/**
 * Texts of the admin console. They are not in SPEC.md (the console is issue #23), so they
 * live with the feature rather than in config/messages.ts.
 */
export const adminMessages = {
  title: 'Admin',
  subtitle: 'Moderate submissions, watch the crawler, hide labels, manage members and invites',
  forbidden: 'This page is for admins. Ask an admin to run `labelbase user admin <your email>`, then sign in again.',
  loadFailed: (what: string) => `Failed to load ${what}.`,
  empty: {
    queue: (status: string | null) => (status ? `No ${status} submissions.` : 'No submissions yet.'),
    runs: 'No crawl passes yet.',
    failures: 'No label failed to parse on its latest visit.',
    labels: (search: string) => (search ? `No label matches “${search}”.` : 'No labels yet.'),
    members: (search: string) => (search ? `No member matches “${search}”.` : 'No members yet.'),
    invites: 'No invite codes yet.',
    storage: 'No storage buckets yet.',
  },
  /** Shown under a list that came back as long as the console asks for (ADMIN_LIST_LIMIT). */
  limited: {
    labels: (n: number) => `Showing the first ${n} labels by name. Search by name or URL to find the others.`,
    members: (n: number) => `Showing the ${n} newest members. Search by email to find the others.`,
  },
  queue: {
    retried: 'Queued again: the next crawl tick processes it.',
    rejected: 'Submission rejected.',
    reasonLabel: 'Reason for rejecting',
    reasonRequired: 'Give a reason (the submitter sees the submission refused).',
  },
  crawls: {
    requested: 'Crawl requested: it starts within a few seconds on a gateway with crawling on.',
    labelRequested: (name: string) => `Crawl of ${name} requested.`,
  },
  labels: {
    hidden: (name: string) => `${name} is hidden from members.`,
    shown: (name: string) => `${name} is visible to members again.`,
  },
  members: {
    banned: (email: string) => `${email} is banned.`,
    unbanned: (email: string) => `${email} is no longer banned.`,
    madeAdmin: (email: string) => `${email} is an admin from their next sign-in.`,
    revokedAdmin: (email: string) => `${email} is no longer an admin.`,
    resetSent: (email: string) => `A password-reset link was mailed to ${email}.`,
  },
  invites: {
    created: 'Invite created.',
    revoked: 'Invite revoked.',
    usesInvalid: 'Uses must be a whole number from 1 to 10000.',
    expiryInvalid: 'Expiry must be a whole number of hours from 1 to 87600, or empty for none.',
    noteTooLong: 'The note may have at most 200 characters.',
  },
}
