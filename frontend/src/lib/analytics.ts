/** Loads the analytics script, deferred, once; does nothing when no URL is configured. */
export function loadAnalytics(src: string, doc: Document = document): void {
  if (!src || doc.querySelector('script[data-labelbase-analytics]')) return
  const script = doc.createElement('script')
  script.src = src
  script.defer = true
  script.dataset.labelbaseAnalytics = ''
  doc.head.appendChild(script)
}
