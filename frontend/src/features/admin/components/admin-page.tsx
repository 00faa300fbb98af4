import { PageHeader } from '@/components/ui/page-header'
import { panelId, tabId, Tabs } from '@/components/ui/tabs'
import { oneOf, useSearchParamState } from '@/hooks/use-search-param-state'
import { useLiveAdmin } from '../hooks/use-live-admin'
import { adminMessages } from '../messages'
import { CrawlsPanel } from './crawls-panel'
import { InvitesPanel } from './invites-panel'
import { LabelsPanel } from './labels-panel'
import { MembersPanel } from './members-panel'
import { QueuePanel } from './queue-panel'
import { StoragePanel } from './storage-panel'

const TABS = [
  { value: 'queue', label: 'Queue' },
  { value: 'crawls', label: 'Crawls' },
  { value: 'labels', label: 'Labels' },
  { value: 'members', label: 'Members' },
  { value: 'invites', label: 'Invites' },
  { value: 'storage', label: 'Storage' },
] as const
type AdminTab = (typeof TABS)[number]['value']
const TAB_VALUES = TABS.map((t) => t.value)

const PANELS: Record<AdminTab, () => React.JSX.Element> = {
  queue: QueuePanel,
  crawls: CrawlsPanel,
  labels: LabelsPanel,
  members: MembersPanel,
  invites: InvitesPanel,
  storage: StoragePanel,
}

/**
 * The admin console (/admin?tab=...). Each tab's filters live in the URL too (?status=, ?q=);
 * a tab switch drops them. What an admin may do is decided by the database: a member who opens
 * this page gets the procedures' refusal, shown as "for admins".
 */
export function AdminPage() {
  // The page renders for admins only (the route checks); the queue and crawl views follow the database live.
  useLiveAdmin(true)
  const [params, setParams] = useSearchParamState()
  const tab: AdminTab = oneOf(params.get('tab'), TAB_VALUES, 'queue')
  const Panel = PANELS[tab]
  return (
    <section>
      <PageHeader title={adminMessages.title} subtitle={adminMessages.subtitle} />
      <div className="mb-5 max-w-full overflow-x-auto">
        <Tabs
          label="Admin sections"
          idPrefix="admin"
          items={TABS}
          value={tab}
          onChange={(next) => setParams({ tab: next === 'queue' ? null : next, q: null, status: null })}
        />
      </div>
      <div id={panelId('admin')} role="tabpanel" aria-labelledby={tabId('admin', tab)}>
        <h2 className="sr-only">{TABS.find((t) => t.value === tab)?.label}</h2>
        <Panel />
      </div>
    </section>
  )
}
