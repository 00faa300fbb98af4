/**
 * The member's avatar: one object per member at avatars/<uid>/avatar, replaced in place
 * (upsert to a fixed key, so a replacement leaves nothing behind), shown through the render
 * endpoint cropped to a square. The bucket is private: members read avatars through signed
 * URLs (policy avatars_read_members), and each member writes only their own folder.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { AVATAR_BUCKET, AVATAR_MAX_BYTES, AVATAR_MIME_TYPES, AVATAR_RENDER_SIZE, AVATAR_URL_TTL_SECONDS } from '@/config/constants'
import { extraMessages } from '@/config/messages'
import { UserError } from '@/lib/errors'
import type { MutationConfig } from '@/lib/query-client'
import { queryKeys } from '@/lib/query-keys'
import { removeObjects, signedImageUrl, uploadObject } from '@/lib/supabase'

export const avatarPath = (userId: string) => `${userId}/avatar`

/** Why a chosen file cannot be an avatar, or null when it can (the bucket enforces the same limits). */
export function avatarProblem(file: Pick<File, 'size' | 'type'>): string | null {
  if (!(AVATAR_MIME_TYPES as readonly string[]).includes(file.type)) return extraMessages.avatar.wrongType
  if (file.size > AVATAR_MAX_BYTES) return extraMessages.avatar.tooLarge
  if (file.size === 0) return extraMessages.avatar.wrongType
  return null
}

/**
 * The avatar's rendered URL (square, cropped), or null when the member has none.
 *
 * Each signing is stamped with the time it was made (`v`, which storage ignores). A signed URL's
 * token counts time in whole seconds, so a replacement signed within the second of the old
 * picture's URL would get that same URL back, and the browser would keep showing the old
 * picture from its cache (renders are cacheable for an hour). Every signing already yields a
 * new URL after that second, so the stamp costs no cache hits.
 */
export async function getAvatarUrl(userId: string): Promise<string | null> {
  const signed = await signedImageUrl(AVATAR_BUCKET, avatarPath(userId), AVATAR_URL_TTL_SECONDS, {
    width: AVATAR_RENDER_SIZE,
    height: AVATAR_RENDER_SIZE,
    resize: 'cover',
  })
  if (signed === null) return null
  const url = new URL(signed)
  url.searchParams.set('v', String(Date.now()))
  return url.toString()
}

/**
 * The avatar URL for the header and the account page. Refreshed at half the URL's lifetime;
 * a failure shows no picture (the initial stays) rather than an error in the header.
 */
export function useAvatarUrl(userId: string | null) {
  return useQuery({
    queryKey: queryKeys.avatar(userId ?? ''),
    queryFn: () => getAvatarUrl(userId ?? ''),
    enabled: userId !== null,
    staleTime: (AVATAR_URL_TTL_SECONDS * 1000) / 2,
    refetchInterval: (AVATAR_URL_TTL_SECONDS * 1000) / 2,
    retry: false,
  })
}

/** Uploads a new avatar over the old one. Throws a UserError with the message to show. */
export async function uploadAvatar(userId: string, file: File): Promise<void> {
  const problem = avatarProblem(file)
  if (problem) throw new UserError(problem)
  try {
    await uploadObject(AVATAR_BUCKET, avatarPath(userId), file, file.type)
  } catch {
    throw new UserError(extraMessages.avatar.uploadFailed)
  }
}

export async function removeAvatar(userId: string): Promise<void> {
  try {
    await removeObjects(AVATAR_BUCKET, [avatarPath(userId)])
  } catch {
    throw new UserError(extraMessages.avatar.removeFailed)
  }
}

export function useUploadAvatar(userId: string, config: MutationConfig<File> = {}) {
  const client = useQueryClient()
  return useMutation({
    ...config,
    mutationFn: (file: File) => uploadAvatar(userId, file),
    onSettled: (...args) => {
      void client.invalidateQueries({ queryKey: queryKeys.avatar(userId) })
      config.onSettled?.(...args)
    },
  })
}

export function useRemoveAvatar(userId: string, config: MutationConfig<void> = {}) {
  const client = useQueryClient()
  return useMutation({
    ...config,
    mutationFn: () => removeAvatar(userId),
    onSettled: (...args) => {
      void client.invalidateQueries({ queryKey: queryKeys.avatar(userId) })
      config.onSettled?.(...args)
    },
  })
}
