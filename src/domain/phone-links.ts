import type { WhatsAppSession } from "../whatsapp/gateway"

/** What the send queue does when a phone's link to WhatsApp changes. */
export interface PhoneLinkListener {
  /** The phone is connected and its status written: queued sends may go. */
  connected(phoneId: string): void
  /** The phone lost its connection and will be back (or not) later. */
  disconnected(phoneId: string): void
  /** The phone can no longer send (logged out or removed). */
  gone(phoneId: string): Promise<void>
}

/**
 * Which phones have a connected WhatsApp session right now, and who hears when that changes. The
 * connection lifecycle writes it and the send queue reads it, so neither holds the other: both
 * are given this one registry at the composition root.
 */
export interface PhoneLinks extends PhoneLinkListener {
  /** The phone's session while it is connected, else null. */
  sessionOf(phoneId: string): WhatsAppSession | null
  /** Records the phone's connected session (null once it is no longer connected). */
  attach(phoneId: string, session: WhatsAppSession | null): void
  /** Phones connected right now. */
  connectedPhones(): string[]
  /** Adds a listener to the connection changes. */
  listen(listener: PhoneLinkListener): void
}

export function createPhoneLinks(): PhoneLinks {
  const sessions = new Map<string, WhatsAppSession>()
  const listeners: PhoneLinkListener[] = []
  return {
    sessionOf: (phoneId) => sessions.get(phoneId) ?? null,
    attach(phoneId, session) {
      if (session) sessions.set(phoneId, session)
      else sessions.delete(phoneId)
    },
    connectedPhones: () => [...sessions.keys()],
    listen: (listener) => void listeners.push(listener),
    connected: (phoneId) => listeners.forEach((l) => l.connected(phoneId)),
    disconnected: (phoneId) => listeners.forEach((l) => l.disconnected(phoneId)),
    gone: async (phoneId) => void (await Promise.all(listeners.map((l) => l.gone(phoneId)))),
  }
}
