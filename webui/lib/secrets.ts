/**
 * Webhook secrets the API returned in this page's lifetime (on creation and rotation it shows them
 * once). Kept in memory only, never in storage, so a reload forgets them like the API does.
 */
const shown = new Map<string, string>();

export const rememberSecret = (subscriptionId: string, secret: string) => shown.set(subscriptionId, secret);
export const shownSecret = (subscriptionId: string): string | null => shown.get(subscriptionId) ?? null;
