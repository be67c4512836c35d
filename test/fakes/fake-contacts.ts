import { writeFileSync } from "node:fs"
import { MediaTooLargeError, type BusinessProfileInfo } from "../../src/whatsapp/gateway"

/** A contact's or group's profile as the fake WhatsApp tells it. */
export interface FakeProfile {
  about?: { text: string; setAtMs: number | null } | null
  business?: BusinessProfileInfo | null
  picture?: { pictureId: string; bytes: Uint8Array } | null
}

/**
 * WhatsApp's side of blocks and profiles for FakeGateway: block lists per phone (contacts as the
 * adapter names them), profiles by JID, and every call asked, so a test sees what reached WhatsApp.
 */
export class FakeContacts {
  readonly blocklists = new Map<string, Set<string>>()
  readonly profiles = new Map<string, FakeProfile>()
  readonly calls: { phoneId: string; op: string; arg: string }[] = []
  /** When set, the next calls fail with it (WhatsApp did not answer). */
  error: Error | null = null

  private record(phoneId: string, op: string, arg: string): void {
    this.calls.push({ phoneId, op, arg })
    if (this.error) throw this.error
  }

  /** The methods of one phone's session. */
  sessionPart(phoneId: string, connected: () => boolean) {
    const ready = (op: string, arg: string) => {
      if (!connected()) throw new Error("not connected")
      this.record(phoneId, op, arg)
    }
    const contactOf = (jid: string) => (jid.endsWith("@s.whatsapp.net") ? `+${jid.split("@")[0]}` : jid)
    return {
      fetchBlocklist: async (): Promise<string[]> => {
        ready("blocklist", "")
        return [...(this.blocklists.get(phoneId) ?? [])]
      },
      setBlocked: async (jid: string, blocked: boolean): Promise<void> => {
        ready(blocked ? "block" : "unblock", jid)
        const list = this.blocklists.get(phoneId) ?? new Set<string>()
        if (blocked) list.add(contactOf(jid))
        else list.delete(contactOf(jid))
        this.blocklists.set(phoneId, list)
      },
      fetchAbout: async (jid: string) => {
        ready("about", jid)
        return this.profiles.get(jid)?.about ?? null
      },
      fetchBusinessProfile: async (jid: string) => {
        ready("business", jid)
        return this.profiles.get(jid)?.business ?? null
      },
      pictureOf: async (jid: string) => {
        ready("picture", jid)
        const picture = this.profiles.get(jid)?.picture
        return picture ? { url: `https://pps.whatsapp.net/fake/${picture.pictureId}`, pictureId: picture.pictureId } : null
      },
      downloadPicture: async (url: string, path: string, maxBytes: number): Promise<number> => {
        ready("download", url)
        const picture = [...this.profiles.values()].find((p) => p.picture && url.endsWith(`/${p.picture.pictureId}`))?.picture
        if (!picture) throw new Error("WhatsApp's picture host answered 404")
        if (picture.bytes.length > maxBytes) throw new MediaTooLargeError(maxBytes)
        writeFileSync(path, picture.bytes, { mode: 0o600, flag: "wx" })
        return picture.bytes.length
      },
    }
  }
}
