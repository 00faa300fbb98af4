import { useEffect, useId } from 'react'
import { TextField } from '@/components/ui/text-field'
import { TOTP_CODE_LENGTH } from '@/config/constants'

/**
 * The 6-digit code input: numeric keypad on phones, and the browser may fill a one-time code.
 * focusOnMount puts the caret in it when the code is the only thing a step asks for.
 */
export function CodeField({ value, onChange, focusOnMount }: { value: string; onChange: (value: string) => void; focusOnMount?: boolean }) {
  const id = useId()
  useEffect(() => {
    if (focusOnMount) document.getElementById(id)?.focus()
  }, [focusOnMount, id])
  return (
    <TextField
      id={id}
      label="Authentication code"
      name="totp-code"
      inputMode="numeric"
      autoComplete="one-time-code"
      pattern="[0-9 ]*"
      maxLength={TOTP_CODE_LENGTH + 2}
      placeholder="123456"
      required
      className="[&_input]:font-mono [&_input]:tracking-[0.3em]"
      value={value}
      onChange={(event) => onChange(event.target.value)}
    />
  )
}
