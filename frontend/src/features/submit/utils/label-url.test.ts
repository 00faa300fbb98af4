import { describe, expect, it } from 'vitest'
import { messages } from '@/config/messages'
import { checkLabelUrl, normalizeLabelUrl } from './label-url'

describe('normalizeLabelUrl', () => {
  it.each([
    ['  https://GhostlyLabel.Bandcamp.com/  ', 'https://ghostlylabel.bandcamp.com'],
    ['https://label.bandcamp.com///', 'https://label.bandcamp.com'],
    ['https://label.bandcamp.com/music', 'https://label.bandcamp.com'],
    ['https://label.bandcamp.com/album/some-record?from=x#top', 'https://label.bandcamp.com'],
    ['http://label.bandcamp.com/artists', 'http://label.bandcamp.com'],
    ['https://bandcamp.com/label/Deep-Sea/', 'https://bandcamp.com/label/deep-sea'],
    ['https://bandcamp.com/label/deep-sea/releases?x=1', 'https://bandcamp.com/label/deep-sea'],
  ])('%j becomes %j', (input, expected) => {
    expect(normalizeLabelUrl(input)).toBe(expected)
  })
})

describe('checkLabelUrl', () => {
  it.each([
    ['https://label.bandcamp.com', 'https://label.bandcamp.com'],
    ['HTTPS://My-Label-42.BANDCAMP.COM/music/', 'https://my-label-42.bandcamp.com'],
    ['http://label.bandcamp.com', 'http://label.bandcamp.com'],
    ['https://bandcamp.com/label/some-label', 'https://bandcamp.com/label/some-label'],
  ])('accepts %j as %j', (input, url) => {
    expect(checkLabelUrl(input)).toEqual({ ok: true, url })
  })

  it.each([
    ['', messages.submit.notBandcamp],
    ['   ', messages.submit.notBandcamp],
    ['https://example.com/label/x', messages.submit.notBandcamp],
    ['https://soundcloud.com/some-label', messages.submit.notBandcamp],
    ['label.bandcamp.com', messages.submit.notAUrl],
    ['not a url bandcamp.com', messages.submit.notAUrl],
    ['https://bandcamp.com', messages.submit.badShape('https://labelname.bandcamp.com')],
    ['https://bandcamp.com/discover/ambient', messages.submit.badShape('https://labelname.bandcamp.com')],
    ['https://bandcamp.com/label/bad_name', messages.submit.badShape('https://labelname.bandcamp.com')],
    ['https://a.b.bandcamp.com', messages.submit.badShape('https://labelname.bandcamp.com')],
    ['https://label.bandcamp.com.evil.test', messages.submit.badShape('https://labelname.bandcamp.com')],
    ['ftp://label.bandcamp.com', messages.submit.badShape('https://labelname.bandcamp.com')],
  ])('rejects %j', (input, error) => {
    expect(checkLabelUrl(input)).toEqual({ ok: false, error })
  })

  it('uses the exact texts of the spec', () => {
    expect(messages.submit.notBandcamp).toBe('Please enter a valid Bandcamp label URL')
    expect(messages.submit.notAUrl).toBe('Please enter a valid URL')
    expect(messages.submit.badShape('https://bandcamp.com')).toBe(
      'The URL does not appear to be a valid Bandcamp label URL. Please provide a URL like "https://bandcamp.com" or "https://bandcamp.com/label/labelname".',
    )
  })
})
