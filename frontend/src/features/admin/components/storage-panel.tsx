import { EmptyState } from '@/components/ui/empty-state'
import { QueryState } from '@/components/ui/query-state'
import { useStorageUse } from '../api/admin'
import { adminMessages } from '../messages'
import { Badge, Card, CardList, Facts, panelLoad } from './panel-state'

const units = ['B', 'KB', 'MB', 'GB', 'TB']

/** 1,536 → "1.5 KB": binary steps, one decimal below 10. */
export function formatBytes(bytes: number): string {
  let value = Math.max(0, bytes)
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${unit === 0 || value >= 10 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`
}

/** Storage use per bucket (members' avatars and any other bucket): objects and bytes. */
export function StoragePanel() {
  const query = useStorageUse()
  return (
    <QueryState query={query} {...panelLoad('storage use')} empty={<EmptyState message={adminMessages.empty.storage} />}>
      {(rows) => (
        <CardList label="Storage buckets">
          {rows.map((bucket) => (
            <Card key={bucket.bucket_id}>
              <div className="flex flex-wrap items-center gap-2">
                <h3 className="font-semibold text-zinc-900">{bucket.bucket_name}</h3>
                <Badge tone={bucket.public ? 'warn' : 'neutral'}>{bucket.public ? 'public' : 'private'}</Badge>
              </div>
              <Facts
                items={[
                  ['Objects', bucket.objects.toLocaleString('en')],
                  ['Size', formatBytes(bucket.bytes)],
                ]}
              />
            </Card>
          ))}
        </CardList>
      )}
    </QueryState>
  )
}
