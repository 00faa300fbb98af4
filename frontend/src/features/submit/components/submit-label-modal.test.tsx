import { act, fireEvent, screen, waitFor } from '@testing-library/react'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { extraMessages, messages } from '@/config/messages'
import { renderWithProviders, testUser } from '@/testing/test-utils'
import { followListedLabel, submitLabel } from '../api/submit-label'
import { SubmitLabelButton, SubmitLabelModal } from './submit-label-modal'

vi.mock('../api/submit-label', () => ({ submitLabel: vi.fn(), followListedLabel: vi.fn() }))
const submitMock = vi.mocked(submitLabel)
const followMock = vi.mocked(followListedLabel)

function openModal(status: 'signed-in' | 'signed-out' = 'signed-in') {
  const onClose = vi.fn()
  renderWithProviders(<SubmitLabelModal open onClose={onClose} />, status)
  return { onClose, input: screen.getByLabelText('Bandcamp label URL') as HTMLInputElement }
}

const type = (input: HTMLInputElement, value: string) => fireEvent.change(input, { target: { value } })
const submit = () => fireEvent.click(screen.getByRole('button', { name: 'Submit' }))

describe('SubmitLabelModal', () => {
  beforeEach(() => {
    submitMock.mockReset()
    followMock.mockReset()
  })

  it('shows each validation message while typing', () => {
    const { input } = openModal()
    type(input, 'https://example.com/x')
    expect(screen.getByRole('alert').textContent).toBe(messages.submit.notBandcamp)
    type(input, 'label.bandcamp.com')
    expect(screen.getByRole('alert').textContent).toBe(messages.submit.notAUrl)
    type(input, 'https://bandcamp.com/discover')
    expect(screen.getByRole('alert').textContent).toBe(messages.submit.badShape('https://labelname.bandcamp.com'))
    type(input, 'https://Label.bandcamp.com/music/')
    expect(screen.queryByRole('alert')).toBeNull()
    expect(screen.getByText('Will be submitted as https://label.bandcamp.com')).toBeTruthy()
  })

  it('refuses an invalid URL at submit time without calling the server', () => {
    const { input } = openModal()
    type(input, 'https://bandcamp.com')
    submit()
    expect(screen.getByText(messages.submit.invalidAtSubmit)).toBeTruthy()
    expect(submitMock).not.toHaveBeenCalled()
  })

  it('submits the normalised URL and closes on success', async () => {
    submitMock.mockResolvedValue({ kind: 'submitted' })
    const { input, onClose } = openModal()
    type(input, '  https://Label.Bandcamp.com/  ')
    submit()
    await screen.findByText(messages.submit.success)
    expect(submitMock).toHaveBeenCalledWith(testUser.id, 'https://label.bandcamp.com')
    expect(onClose).toHaveBeenCalled()
  })

  it('reports a URL that is already queued', async () => {
    submitMock.mockResolvedValue({ kind: 'already-queued' })
    const { input } = openModal()
    type(input, 'https://label.bandcamp.com')
    submit()
    const toast = await screen.findByText(messages.submit.alreadyQueued)
    expect(toast.closest('[role="status"]')).not.toBeNull()
  })

  it('reports a failed submission', async () => {
    submitMock.mockRejectedValue(new Error('boom'))
    const { input, onClose } = openModal()
    type(input, 'https://label.bandcamp.com')
    submit()
    const toast = await screen.findByText(messages.submit.failed)
    expect(toast.closest('[role="alert"]')).not.toBeNull()
    expect(onClose).not.toHaveBeenCalled()
  })

  it('requires a signed-in user', () => {
    const { input } = openModal('signed-out')
    type(input, 'https://label.bandcamp.com')
    submit()
    expect(screen.getByText(messages.submit.mustBeLoggedIn)).toBeTruthy()
    expect(submitMock).not.toHaveBeenCalled()
  })
})

describe('SubmitLabelButton dialog', () => {
  it('opens as a native modal dialog, closes on Escape and returns focus to the opener', async () => {
    renderWithProviders(<SubmitLabelButton />)
    const opener = screen.getByRole('button', { name: 'Submit a label' })
    opener.focus()
    fireEvent.click(opener)
    const dialog = screen.getByRole('dialog', { name: 'Submit a label' }) as HTMLDialogElement
    expect(dialog.tagName).toBe('DIALOG')
    expect(dialog.open).toBe(true)
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText('Bandcamp label URL')))
    // Escape makes the browser fire cancel on the open dialog.
    act(() => {
      fireEvent(dialog, new Event('cancel', { cancelable: true }))
    })
    expect(screen.queryByRole('dialog')).toBeNull()
    expect(document.activeElement).toBe(opener)
  })

  it('closes on a click on the backdrop but not inside', () => {
    renderWithProviders(<SubmitLabelButton />)
    fireEvent.click(screen.getByRole('button', { name: 'Submit a label' }))
    fireEvent.click(screen.getByLabelText('Bandcamp label URL'))
    const dialog = screen.getByRole('dialog', { name: 'Submit a label' })
    fireEvent.click(dialog)
    expect(screen.queryByRole('dialog')).toBeNull()
  })

  it('keeps Tab focus inside the dialog', () => {
    renderWithProviders(<SubmitLabelButton />)
    fireEvent.click(screen.getByRole('button', { name: 'Submit a label' }))
    const close = screen.getByRole('button', { name: 'Close dialog' })
    const input = screen.getByLabelText('Bandcamp label URL')
    fireEvent.change(input, { target: { value: 'https://label.bandcamp.com' } })
    const last = screen.getByRole('button', { name: 'Submit' })
    last.focus()
    fireEvent.keyDown(last, { key: 'Tab' })
    expect(document.activeElement).toBe(close)
    fireEvent.keyDown(close, { key: 'Tab', shiftKey: true })
    expect(document.activeElement).toBe(last)
  })
})

describe('SubmitLabelModal, a label already on Labelbase', () => {
  beforeEach(() => {
    submitMock.mockReset()
    followMock.mockReset()
  })

  it('says so instead of queueing it, and offers to follow it', async () => {
    submitMock.mockResolvedValue({ kind: 'already-listed', label: { id: 7, name: 'Ghostly Tapes', followed: false } })
    followMock.mockResolvedValue(undefined)
    const { input, onClose } = openModal()
    type(input, 'https://ghostlytapes.bandcamp.com')
    submit()
    expect(await screen.findByText(extraMessages.submitAlreadyListed('Ghostly Tapes'))).toBeTruthy()
    expect(screen.queryByText(messages.submit.success)).toBeNull()
    expect(onClose).not.toHaveBeenCalled()
    expect((screen.getByRole('button', { name: 'Submit' }) as HTMLButtonElement).disabled).toBe(true)
    fireEvent.click(screen.getByRole('button', { name: 'Follow Ghostly Tapes' }))
    expect(await screen.findByText(messages.follow.followed)).toBeTruthy()
    expect(followMock).toHaveBeenCalledWith(testUser.id, 7)
    expect(onClose).toHaveBeenCalled()
  })

  it('tells a member who follows it already, without a Follow button', async () => {
    submitMock.mockResolvedValue({ kind: 'already-listed', label: { id: 7, name: 'Ghostly Tapes', followed: true } })
    const { input } = openModal()
    type(input, 'https://ghostlytapes.bandcamp.com')
    submit()
    expect(await screen.findByText(extraMessages.submitAlreadyFollowed('Ghostly Tapes'))).toBeTruthy()
    expect(screen.queryByRole('button', { name: /^Follow/ })).toBeNull()
    // Another URL: the note goes, Submit is back.
    type(input, 'https://other.bandcamp.com')
    expect(screen.queryByText(extraMessages.submitAlreadyFollowed('Ghostly Tapes'))).toBeNull()
    expect((screen.getByRole('button', { name: 'Submit' }) as HTMLButtonElement).disabled).toBe(false)
  })

  it('reports a failed follow and stays open', async () => {
    submitMock.mockResolvedValue({ kind: 'already-listed', label: { id: 7, name: 'Ghostly Tapes', followed: false } })
    followMock.mockRejectedValue(new Error('permission denied'))
    const { input, onClose } = openModal()
    type(input, 'https://ghostlytapes.bandcamp.com')
    submit()
    fireEvent.click(await screen.findByRole('button', { name: 'Follow Ghostly Tapes' }))
    expect(await screen.findByText(messages.follow.failed)).toBeTruthy()
    expect(onClose).not.toHaveBeenCalled()
  })
})
