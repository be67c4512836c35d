import { createHash } from "node:crypto"
import type { BusinessProfileInfo } from "../whatsapp/gateway"
import { SANDBOX_GROUPS } from "./sandbox"

/*
 * What test keys' profile lookups answer (docs/api.md § "Contact profiles", sandbox): the same
 * for every request, so a client's code can be tested against known values.
 */

/** The magic recipient that is not on WhatsApp: its profile and picture are 404, blocking it 404. */
export const SANDBOX_NOT_ON_WHATSAPP = "+12025550101"
/** A WhatsApp Business account with a business profile. */
export const SANDBOX_BUSINESS = "+12025550120"
/** An account whose privacy settings hide its about text and its picture from us. */
export const SANDBOX_PRIVATE = "+12025550121"

/** What WhatsApp would tell about a sandbox contact (null fields as privacy or absence leaves them). */
export interface SandboxProfile {
  name: string | null
  about: { text: string; setAtMs: number } | null
  business: BusinessProfileInfo | null
  hasPicture: boolean
}

/** When every sandbox about text was set: 2024-01-01T00:00:00Z. */
const ABOUT_SET_AT_MS = Date.UTC(2024, 0, 1)

/** A sandbox contact's profile; null for the number that is not on WhatsApp. */
export function sandboxProfile(contact: string): SandboxProfile | null {
  if (contact === SANDBOX_NOT_ON_WHATSAPP) return null
  const tail = contact.replace(/\D/g, "").slice(-4)
  if (contact === SANDBOX_PRIVATE) return { name: `Sandbox ${tail}`, about: null, business: null, hasPicture: false }
  if (contact === SANDBOX_BUSINESS) {
    return {
      name: "Sandbox Bakery",
      about: { text: "Fresh bread every morning", setAtMs: ABOUT_SET_AT_MS },
      business: { description: "A bakery that answers on WhatsApp", category: "Bakery", email: "hello@example.com", websites: ["https://example.com"], address: "1 Example Street" },
      hasPicture: true,
    }
  }
  return { name: `Sandbox ${tail}`, about: { text: "Hey there! I am using WhatsApp.", setAtMs: ABOUT_SET_AT_MS }, business: null, hasPicture: true }
}

/** Whether a sandbox group has a picture: the first sandbox group has one, every other has none. */
export function sandboxGroupHasPicture(groupId: string): boolean {
  return groupId === SANDBOX_GROUPS[0]!.id
}

/** The sandbox's picture: a 1 × 1 JPEG, the same bytes for every contact and group. */
export const SANDBOX_PICTURE_JPEG = Buffer.from(
  "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwSExIQEw8QEBD/yQALCAABAAEBAREA/8wABgAQEAX/2gAIAQEAAD8A0s8g/9k=",
  "base64",
)

/** A media-cache key for a picture (`pic_` and 26 base-36 characters of a hash of what names it). */
export function pictureCacheKey(...parts: string[]): string {
  const digest = createHash("sha256").update(parts.join("\u0000")).digest()
  let key = ""
  for (let i = 0; i < 26; i++) key += (digest[i]! % 36).toString(36)
  return `pic_${key}`
}
