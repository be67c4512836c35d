import { getBinaryNodeChild, S_WHATSAPP_NET, type BinaryNode } from "@whiskeysockets/baileys"
import type { SimAccount } from "./accounts"
import type { SimContact } from "./contact"
import type { IqHandler, IqRequest } from "./iq-handlers"
import type { MediaHost } from "./media-host"
import { userOf } from "./nodes"

/*
 * Block lists and contacts' profiles, as Baileys 7.0.0-rc14 (lib/Socket/chats.js: fetchBlocklist,
 * updateBlockStatus, getBusinessProfile, profilePictureUrl; lib/Socket/messages-recv.js: the
 * `account_sync` notification's `<blocklist>`; lib/WAUSync/Protocols/USyncStatusProtocol.js) and
 * whatsmeow (blocklist.go: GetBlocklist, UpdateBlocklist; user.go: GetProfilePictureInfo,
 * GetBusinessProfile, GetUserInfo's status) ask for them:
 *
 * - `<iq xmlns="blocklist" type="get">` → `<list><item jid=…/>…</list>`, one item per blocked LID;
 * - `<iq xmlns="blocklist" type="set"><item action="block|unblock" jid=LID pn_jid=…/>` → empty result;
 * - a block changed on the phone → `<notification type="account_sync"><blocklist><item jid action/></blocklist>`;
 * - `<iq xmlns="w:profile:picture" target=JID><picture type query="url"/>` → `<picture id url direct_path type/>`,
 *   404 item-not-found when there is none, 401 not-authorized when privacy hides it;
 * - `<iq xmlns="w:biz"><business_profile><profile jid/>` → `<business_profile><profile jid>` with
 *   description, email, website, address and categories, or an empty `<business_profile/>` for an
 *   ordinary account;
 * - usync's `status` protocol → `<status t=seconds>text</status>`, or `<status code="401"/>` when hidden.
 */

/** What a contact (or a group) shows of itself. */
export interface SimProfile {
  about?: { text: string; setAtS: number } | "hidden"
  business?: { description: string; category: string; email?: string; website?: string; address?: string }
  picture?: { id: string; url: string } | "hidden"
}

export class SimProfiles {
  /** Blocked LID JIDs per account, with the phone-number JID the block named when it named one. */
  private readonly blocklists = new Map<SimAccount, Map<string, string | undefined>>()
  private readonly profiles = new Map<string, SimProfile>()
  private nextPictureId = 1_700_000_001
  /** Every block list change a client asked for, in order. */
  readonly blockRequests: { action: string; jid: string; pnJid?: string }[] = []

  constructor(private readonly media: MediaHost) {}

  /** A contact's (by user, digits or LID digits) or a group's (by id) profile; fields left out stay as they were. */
  setProfile(user: string, profile: SimProfile): void {
    this.profiles.set(user, { ...this.profiles.get(user), ...profile })
  }

  /** Gives the contact or group a new picture, served by the media host; a new picture id each time. */
  setPicture(user: string, jpeg: Uint8Array): { id: string; url: string } {
    const picture = { id: String(this.nextPictureId++), url: this.media.put(jpeg).url }
    this.setProfile(user, { picture })
    return picture
  }

  /** The LIDs the account blocks now. */
  blocked(account: SimAccount): string[] {
    return [...(this.blocklists.get(account)?.keys() ?? [])]
  }

  /** Changes the block list as the phone's app does; returns the notification the server sends the account's devices. */
  changeOnPhone(account: SimAccount, contact: SimContact, blocked: boolean, nowMs: number): BinaryNode {
    this.apply(account, contact.lidJid, blocked, contact.jid("pn"))
    return {
      tag: "notification",
      attrs: { from: S_WHATSAPP_NET, type: "account_sync", id: `blocklist-${nowMs}`, t: String(Math.floor(nowMs / 1000)) },
      content: [{ tag: "blocklist", attrs: {}, content: [{ tag: "item", attrs: { jid: contact.lidJid, action: blocked ? "block" : "unblock" } }] }],
    }
  }

  private apply(account: SimAccount, lidJid: string, blocked: boolean, pnJid: string | undefined): void {
    const list = this.blocklists.get(account) ?? new Map<string, string | undefined>()
    if (blocked) list.set(lidJid, pnJid)
    else list.delete(lidJid)
    this.blocklists.set(account, list)
  }

  /** The usync `<status>` child for a user. */
  statusNode(user: string): BinaryNode {
    const about = this.profiles.get(user)?.about
    if (about === "hidden") return { tag: "status", attrs: { code: "401" } }
    if (!about) return { tag: "status", attrs: {} }
    return { tag: "status", attrs: { t: String(about.setAtS) }, content: Buffer.from(about.text, "utf8") }
  }

  /** The IQ handlers, keyed as IQ_HANDLERS keys them (PROFILE_IQ_HANDLERS hands each request to these). */
  handlers(): Record<string, IqHandler> {
    const account = (request: IqRequest) => {
      const login = request.connection.login
      if (!login) request.fail(401, "not-authorized")
      return login?.account
    }
    return {
      "blocklist/get/-": (request) => {
        const me = account(request)
        if (me) request.reply([{ tag: "list", attrs: {}, content: this.blocked(me).map((jid) => ({ tag: "item", attrs: { jid } })) }])
      },
      "blocklist/set/item": (request) => {
        const me = account(request)
        const item = getBinaryNodeChild(request.iq, "item")
        if (!me || !item) return
        const { action, jid, pn_jid: pnJid } = item.attrs
        if (!jid?.endsWith("@lid") || (action !== "block" && action !== "unblock") || (action === "block" && !pnJid)) return request.fail(400, "bad-request")
        this.blockRequests.push({ action, jid, ...(pnJid ? { pnJid } : {}) })
        this.apply(me, jid, action === "block", pnJid)
        request.reply()
      },
      "w:profile:picture/get/picture": (request) => {
        const picture = this.profiles.get(userOf(request.iq.attrs.target ?? ""))?.picture
        if (picture === "hidden") return request.fail(401, "not-authorized")
        if (!picture) return request.fail(404, "item-not-found")
        const type = getBinaryNodeChild(request.iq, "picture")?.attrs.type ?? "preview"
        request.reply([{ tag: "picture", attrs: { id: picture.id, type, url: picture.url, direct_path: new URL(picture.url).pathname } }])
      },
      "w:biz/get/business_profile": (request) => {
        const jid = getBinaryNodeChild(getBinaryNodeChild(request.iq, "business_profile"), "profile")?.attrs.jid ?? ""
        const business = this.profiles.get(userOf(jid))?.business
        if (!business) return request.reply([{ tag: "business_profile", attrs: {} }])
        const text = (tag: string, value: string | undefined): BinaryNode[] => (value === undefined ? [] : [{ tag, attrs: {}, content: Buffer.from(value, "utf8") }])
        const profile: BinaryNode = {
          tag: "profile",
          attrs: { jid },
          content: [
            ...text("description", business.description),
            ...text("email", business.email),
            ...text("website", business.website),
            ...text("address", business.address),
            { tag: "categories", attrs: {}, content: [{ tag: "category", attrs: { id: "1" }, content: Buffer.from(business.category, "utf8") }] },
          ],
        }
        request.reply([{ tag: "business_profile", attrs: {}, content: [profile] }])
      },
    }
  }
}

/** The block list and profile IQs, for IQ_HANDLERS: each answered by the world's SimProfiles. */
export const PROFILE_IQ_HANDLERS: Record<string, IqHandler> = Object.fromEntries(
  ["blocklist/get/-", "blocklist/set/item", "w:profile:picture/get/picture", "w:biz/get/business_profile"].map((key) => [
    key,
    (request: IqRequest) => request.world.profiles.handlers()[key]!(request),
  ]),
)
