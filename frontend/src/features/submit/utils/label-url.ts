/**
 * Normalisation and validation of submitted label URLs (SPEC §5). Accepted shapes, after
 * normalisation: http(s)://{name}.bandcamp.com and http(s)://bandcamp.com/label/{name},
 * where {name} is letters, digits and hyphens.
 */
import { LABEL_SITE_DOMAIN } from '@/config/constants'
import { messages } from '@/config/messages'

/** The label URL the wrong-shape message gives as its example. */
export const LABEL_URL_EXAMPLE = `https://labelname.${LABEL_SITE_DOMAIN}`

export type LabelUrlCheck = { ok: true; url: string } | { ok: false; error: string }

const escapedDomain = LABEL_SITE_DOMAIN.replace(/\./g, '\\.')
const SUBDOMAIN_FORM = new RegExp(`^https?://[a-z0-9-]+\\.${escapedDomain}$`)
const LABEL_PATH_FORM = new RegExp(`^https?://${escapedDomain}/label/[a-z0-9-]+$`)
const LABEL_PATH = /^\/label\/([^/]+)/

/** Lowercases, trims and strips trailing slashes; then reduces to the label's canonical URL. */
export function normalizeLabelUrl(input: string): string {
  const text = input.trim().toLowerCase().replace(/\/+$/, '')
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return text
  }
  if (url.hostname.endsWith(`.${LABEL_SITE_DOMAIN}`)) return url.origin
  const labelPath = url.hostname === LABEL_SITE_DOMAIN ? LABEL_PATH.exec(url.pathname) : null
  if (labelPath) return `${url.origin}/label/${labelPath[1]}`
  return text
}

/** Checks a user's input; on success returns the normalised URL to submit. */
export function checkLabelUrl(input: string): LabelUrlCheck {
  const text = input.trim().toLowerCase()
  if (text === '' || !text.includes(LABEL_SITE_DOMAIN)) return { ok: false, error: messages.submit.notBandcamp }
  try {
    new URL(text)
  } catch {
    return { ok: false, error: messages.submit.notAUrl }
  }
  const url = normalizeLabelUrl(text)
  if (SUBDOMAIN_FORM.test(url) || LABEL_PATH_FORM.test(url)) return { ok: true, url }
  // The example is a real label URL's shape, never the host the member typed (which was wrong).
  return { ok: false, error: messages.submit.badShape(LABEL_URL_EXAMPLE) }
}
