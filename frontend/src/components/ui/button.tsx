import type { ButtonHTMLAttributes } from 'react'
import { cn } from '@/lib/cn'

export type ButtonVariant = 'primary' | 'secondary' | 'ghost' | 'success'

const variants: Record<ButtonVariant, string> = {
  primary: 'bg-zinc-900 text-white hover:bg-zinc-700 disabled:bg-zinc-400',
  secondary: 'border border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-100 disabled:text-zinc-400',
  ghost: 'text-zinc-700 hover:bg-zinc-100 disabled:text-zinc-400',
  success: 'bg-emerald-700 text-white hover:bg-emerald-800 disabled:bg-emerald-300',
}

export const focusRing = 'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-violet-600'

export function buttonClasses(variant: ButtonVariant = 'primary', size: 'sm' | 'md' = 'md'): string {
  return cn(
    'inline-flex items-center justify-center gap-2 rounded-lg font-medium transition-colors disabled:cursor-not-allowed',
    size === 'sm' ? 'px-3 py-1.5 text-sm' : 'px-4 py-2 text-sm',
    variants[variant],
    focusRing,
  )
}

interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant
  size?: 'sm' | 'md'
}

export function Button({ variant = 'primary', size = 'md', className, type = 'button', ...rest }: ButtonProps) {
  return <button type={type} className={cn(buttonClasses(variant, size), className)} {...rest} />
}
