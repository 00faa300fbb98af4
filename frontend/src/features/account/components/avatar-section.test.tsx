import { fireEvent, screen, waitFor } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { AVATAR_MAX_BYTES } from '@/config/constants'
import { extraMessages } from '@/config/messages'
import { RequestError } from '@/lib/errors'
import * as supabase from '@/lib/supabase'
import { renderPage } from '@/testing/render-page'
import { testUser } from '@/testing/test-utils'
import { avatarProblem } from '../api/avatar'
import { AvatarSection } from './avatar-section'

vi.mock('@/lib/supabase', async (original) => ({
  ...(await original<typeof import('@/lib/supabase')>()),
  signedImageUrl: vi.fn(),
  uploadObject: vi.fn(),
  removeObjects: vi.fn(),
}))

const signed = vi.mocked(supabase.signedImageUrl)
const upload = vi.mocked(supabase.uploadObject)
const remove = vi.mocked(supabase.removeObjects)

const png = (bytes = 1000, type = 'image/png') => new File([new Uint8Array(bytes)], 'me.png', { type })
const choose = (file: File) => fireEvent.change(screen.getByLabelText('Choose a picture'), { target: { files: [file] } })

beforeEach(() => {
  signed.mockReset()
  upload.mockReset()
  remove.mockReset()
})

describe('avatar', () => {
  it('checks type and size before any request', () => {
    expect(avatarProblem({ type: 'image/gif', size: 10 })).toBe(extraMessages.avatar.wrongType)
    expect(avatarProblem({ type: 'image/png', size: AVATAR_MAX_BYTES + 1 })).toBe(extraMessages.avatar.tooLarge)
    expect(avatarProblem({ type: 'image/png', size: 0 })).toBe(extraMessages.avatar.wrongType)
    expect(avatarProblem({ type: 'image/webp', size: AVATAR_MAX_BYTES })).toBeNull()
  })

  it('uploads to the member’s own fixed key and shows the new rendered picture', async () => {
    signed.mockResolvedValueOnce(null).mockResolvedValue('http://x/render/image/sign/avatars/a?token=2')
    upload.mockResolvedValue()
    renderPage(<AvatarSection />)
    const button = await screen.findByRole('button', { name: 'Upload picture' })
    expect(signed).toHaveBeenCalledWith('avatars', `${testUser.id}/avatar`, expect.any(Number), { width: 192, height: 192, resize: 'cover' })
    expect(button).toBeTruthy()

    choose(png())
    expect(await screen.findByText(extraMessages.avatar.uploaded)).toBeTruthy()
    expect(upload).toHaveBeenCalledWith('avatars', `${testUser.id}/avatar`, expect.any(File), 'image/png')
    const img = await screen.findByRole('img', { name: 'Your avatar' })
    expect(img.getAttribute('src')).toContain('token=2')
    expect(screen.getByRole('button', { name: 'Replace picture' })).toBeTruthy()
  })

  it('shows a replacement even when storage signs the same URL again within the second', async () => {
    // A signed URL's token counts whole seconds: a re-sign right after an upload can be
    // byte-for-byte the old URL, which the browser would answer from its cache.
    signed.mockResolvedValue('http://x/render/image/sign/avatars/a?token=same')
    upload.mockResolvedValue()
    renderPage(<AvatarSection />)
    const before = (await screen.findByRole('img', { name: 'Your avatar' })).getAttribute('src')
    expect(before).toContain('token=same')
    await new Promise((resolve) => setTimeout(resolve, 2))
    choose(png())
    expect(await screen.findByText(extraMessages.avatar.uploaded)).toBeTruthy()
    await waitFor(() => expect(screen.getByRole('img', { name: 'Your avatar' }).getAttribute('src')).not.toBe(before))
    expect(screen.getByRole('img', { name: 'Your avatar' }).getAttribute('src')).toContain('token=same')
  })

  it.each([
    ['a GIF', png(10, 'image/gif'), extraMessages.avatar.wrongType],
    ['a 3 MB picture', png(3 * 1024 * 1024), extraMessages.avatar.tooLarge],
  ])('refuses %s with its message and uploads nothing', async (_name, file, message) => {
    signed.mockResolvedValue(null)
    renderPage(<AvatarSection />)
    await screen.findByRole('button', { name: 'Upload picture' })
    choose(file)
    expect((await screen.findByRole('alert')).textContent).toBe(message)
    expect(upload).not.toHaveBeenCalled()
  })

  it('says the upload failed when storage refuses it, and keeps the old picture', async () => {
    signed.mockResolvedValue('http://x/old')
    upload.mockRejectedValue(new RequestError('new row violates row-level security policy', 403))
    renderPage(<AvatarSection />)
    await screen.findByRole('img', { name: 'Your avatar' })
    choose(png())
    expect((await screen.findByRole('alert')).textContent).toBe(extraMessages.avatar.uploadFailed)
    expect(screen.getByRole('img', { name: 'Your avatar' }).getAttribute('src')).toContain('http://x/old')
  })

  it('removes the picture', async () => {
    signed.mockResolvedValueOnce('http://x/old').mockResolvedValue(null)
    remove.mockResolvedValue()
    renderPage(<AvatarSection />)
    fireEvent.click(await screen.findByRole('button', { name: 'Remove' }))
    await waitFor(() => expect(remove).toHaveBeenCalledWith('avatars', [`${testUser.id}/avatar`]))
    await screen.findByRole('button', { name: 'Upload picture' })
    expect(screen.queryByRole('img', { name: 'Your avatar' })).toBeNull()
  })
})
