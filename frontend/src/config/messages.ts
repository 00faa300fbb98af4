/**
 * Every user-facing message named in SPEC.md (§2, §5, §8), kept verbatim in one place.
 * Functions build the few messages that carry a value.
 */
export const messages = {
  auth: {
    loginSuccess: 'Successfully logged in!',
    loginNoUser: 'Login failed - no user returned',
    loginFailed: 'Failed to login',
    passwordsDoNotMatch: 'Passwords do not match',
    invalidInviteCode: 'Invalid invite code',
    signupNoUser: 'Signup failed - please try again',
    signupFailed: 'Failed to sign up',
    signupSignedIn: 'Account created successfully! You are now logged in.',
    signupSignInManually: 'Account created successfully! Please sign in with your credentials.',
    newPasswordsDoNotMatch: 'New passwords do not match',
    newPasswordTooShort: 'New password should be at least 6 characters',
    currentPasswordIncorrect: 'Current password is incorrect',
    passwordChanged: 'Password changed successfully!',
    changePasswordFailed: 'Failed to change password',
    recoveryEmailRequired: 'Please enter your email address',
    recoverySent: 'If an account exists for that email, a link to reset your password is on its way.',
    recoveryFailed: 'Failed to send the reset link. Please try again.',
    recoveryRateLimited: 'Too many reset requests. Please wait a while and try again.',
    recoveryLinkInvalid: 'This password reset link is invalid or has expired. Please request a new one.',
    passwordReset: 'Your password has been reset.',
  },
  toggle: {
    tooFast: "Please slow down, you're toggling too fast!",
  },
  listen: {
    rateLimited: "You're updating too quickly. Please wait a moment before trying again.",
    network: 'Network error. Please check your connection and try again.',
    failed: 'Failed to update. Please try again.',
    inlineFailed: 'Failed to update listen status',
    marked: 'Marked as listened',
    unmarked: 'Unmarked as listened',
  },
  follow: {
    failed: 'Failed to update. Please try again.',
    inlineFailed: 'Failed to update follow status',
    followed: 'Following label',
    unfollowed: 'Unfollowed label',
  },
  load: {
    labels: (tab: 'following' | 'discover') => `Error fetching ${tab} labels`,
    collectionLabels: 'Failed to load labels. Please try again.',
    listenedReleases: 'Failed to load listened releases',
    followedLabels: 'Failed to load followed labels. Please refresh the page.',
    releases: (message: string) => `Failed to load releases: ${message}`,
  },
  submit: {
    alreadyQueued: 'This label is already in the queue and is awaiting processing and validation. New submissions are processed every day.',
    success: 'Label submitted successfully! New label submissions are processed every day. Thank you for your submission!',
    mustBeLoggedIn: 'You must be logged in to submit a label',
    invalidAtSubmit: 'Invalid URL. Please provide a valid Bandcamp label URL.',
    failed: 'Failed to submit label. Please try again.',
    notBandcamp: 'Please enter a valid Bandcamp label URL',
    notAUrl: 'Please enter a valid URL',
    badShape: (host: string) => `The URL does not appear to be a valid Bandcamp label URL. Please provide a URL like "${host}" or "${host}/label/labelname".`,
  },
  empty: {
    feedNothingFollowed: 'Start following labels to see their latest releases here!',
    feedNoReleases: 'No new releases available. Try following more labels!',
    labelsFollowing: "You're not following any labels yet. Discover new labels in the Discover tab!",
    labelsDiscover: 'No labels found to discover. Try adjusting your filters.',
    explore: 'No releases found. Try adjusting your filters or shuffling.',
    collectionChecked: "You don't have any labels with all releases listened to yet.",
    collectionNothingFollowed: 'Start following labels in the Labels page to see content on this page!',
    collectionNoReleases: 'No releases available',
  },
  labels: {
    count: (n: number, tab: 'following' | 'discover') => (tab === 'following' ? `${n} followed labels` : `${n} available labels`),
  },
  collection: {
    subtitle: 'Browse all the labels you follow',
    page: (page: number, total: number) => `Page ${page} of ${total}`,
  },
  config: {
    missingAnonKey: 'Labelbase is not configured: no Supabase anon key was found (VITE_SUPABASE_ANON_KEY or the runtime config injected by the server).',
  },
} as const

/** Texts the spec does not name, kept here so every string lives in this module. */
export const extraMessages = {
  collectionNoSearchMatch: (query: string) => `No labels match “${query}”.`,
  noTagMatch: (query: string) => `No tag matches “${query}”.`,
  feedEnd: "You're all caught up",
  feedEndDetail: 'That is every release from the labels you follow.',
  collectionLoadFailed: 'Failed to load labels. Please try again.',
  exploreAllShown: 'You have seen every release that matches. Shuffle to start over.',
  submitAlreadyListed: (name: string) => `${name} is already on Labelbase.`,
  submitAlreadyFollowed: (name: string) => `${name} is already on Labelbase, and you follow it.`,
  notFound: "We couldn't find that page.",
  routeErrorTitle: 'Something went wrong',
  routeError: 'This page could not be shown. Reloading usually fixes it; if it does not, start again from the home page.',
  /** Two-factor authentication (the Security page and the sign-in code step). */
  mfa: {
    loadFailed: 'Failed to load your security settings. Please try again.',
    setupFailed: 'Failed to start the authenticator setup. Please try again.',
    enabled: 'Two-factor authentication is on.',
    removed: 'Authenticator app removed.',
    removeFailed: 'Failed to remove the authenticator app. Please try again.',
    removeNeedsCode: 'Sign in again with your authenticator code to remove it.',
    codeFormat: 'Enter the 6-digit code from your authenticator app.',
    codeInvalid: 'That code is not right, or was already used. Enter the newest code from your app.',
    codeRateLimited: 'Too many attempts. Please wait a minute and try again.',
    verifyFailed: 'Failed to check the code. Please try again.',
    levelsFailed: 'Failed to check your sign-in. Please try again.',
  },
  /** Live updates: new releases while the feed is open (issue #28). */
  newReleases: (count: number) => (count === 1 ? '1 new release' : `${count} new releases`),
  /** The avatar on the Security (account) page (issue #29). */
  avatar: {
    tooLarge: 'The picture must be 2 MB or smaller.',
    wrongType: 'Choose a JPEG, PNG or WebP picture.',
    uploaded: 'Your picture is updated.',
    uploadFailed: 'Failed to upload your picture. Please try again.',
    removed: 'Your picture is removed.',
    removeFailed: 'Failed to remove your picture. Please try again.',
  },
} as const
