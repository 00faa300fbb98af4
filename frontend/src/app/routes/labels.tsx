import { LabelsPage } from '@/features/labels/components/labels-page'
import { SubmitLabelButton } from '@/features/submit/components/submit-label-modal'
import { useDocumentTitle } from '@/hooks/use-document-title'

export default function LabelsRoute() {
  useDocumentTitle('Labels')
  return <LabelsPage headerActions={<SubmitLabelButton />} />
}
