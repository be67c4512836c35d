import type { BinaryNode } from "@whiskeysockets/baileys"
import type { SimAccount } from "./accounts"
import type { IqHandler, IqRequest } from "./iq-handlers"
import { echoGroupPicture } from "./group-echo"
import { childrenByTag, userOf } from "./nodes"

/*
 * A linked device changing its own profile and a group's picture, as WhatsApp's server takes it:
 *
 * - `<iq xmlns="w:profile:picture" type="set" [target=<group jid>]><picture type="image">JPEG</picture></iq>`
 *   sets the picture, and the same IQ without a `<picture>` child removes it (Baileys' Socket/chats.js
 *   `updateProfilePicture` / `removeProfilePicture`; whatsmeow's user.go `SetGroupPhoto`
 *   sends the same node). The server answers with `<picture id=…>`, the new picture's id.
 * - `<iq xmlns="status" type="set"><status>text</status></iq>` sets the about text (chats.js
 *   `updateProfileStatus`; whatsmeow's user.go `SetStatusMessage`).
 * - `<presence type="available" name=…>` carries the push name peers see (chats.js `sendPresenceUpdate`).
 *
 * What was set is kept per account and per group, for a test to read through `profileOf`.
 */

/** What the server holds for one account's profile or one group's picture. */
export interface SimProfile {
  /** The JPEG last set, or null after a removal (and before any set). */
  picture: Uint8Array | null
  /** Increases with every set or removal, as WhatsApp's picture ids do. */
  pictureId: number
  about: string | null
  /** The push name of the latest `<presence name=…>`. */
  pushName: string | null
}

const profiles = new WeakMap<object, SimProfile>()

/** The profile the simulator keeps for an account, or the picture state of a group (by its id string's object). */
export function profileOf(owner: SimAccount | { id: string }): SimProfile {
  let profile = profiles.get(owner)
  if (!profile) {
    profile = { picture: null, pictureId: 0, about: null, pushName: null }
    profiles.set(owner, profile)
  }
  return profile
}

function loggedInAccount(request: IqRequest): SimAccount | undefined {
  const account = request.connection.login?.account
  if (!account) request.fail(401, "not-authorized")
  return account
}

/** The account's own profile, or the target group's; answers 404 for a group the server does not know. */
function targetProfile(request: IqRequest, account: SimAccount): SimProfile | undefined {
  const target = request.iq.attrs.target
  if (!target) return profileOf(account)
  const group = request.world.groupFor(userOf(target))
  if (!group) {
    request.fail(404, "item-not-found")
    return undefined
  }
  return profileOf(group)
}

function setPicture(request: IqRequest, picture: Uint8Array | null): void {
  const account = loggedInAccount(request)
  const profile = account && targetProfile(request, account)
  if (!profile) return
  profile.picture = picture
  profile.pictureId += 1
  request.reply(picture ? [{ tag: "picture", attrs: { id: String(profile.pictureId) } }] : undefined)
  const group = request.iq.attrs.target ? request.world.groupFor(userOf(request.iq.attrs.target)) : undefined
  if (group) echoGroupPicture(request, group, picture !== null)
}

function bytesOf(node: BinaryNode | undefined): Uint8Array | null {
  return node?.content instanceof Uint8Array ? node.content : null
}

export const PROFILE_IQ_HANDLERS: Record<string, IqHandler> = {
  "w:profile:picture/set/picture": (request) => {
    const jpeg = bytesOf(childrenByTag(request.iq, "picture")[0])
    if (!jpeg || jpeg.length === 0) return request.fail(400, "bad-request")
    setPicture(request, jpeg)
  },
  "w:profile:picture/set/-": (request) => setPicture(request, null),
  "status/set/status": (request) => {
    const account = loggedInAccount(request)
    if (!account) return
    const text = bytesOf(childrenByTag(request.iq, "status")[0])
    profileOf(account).about = text ? new TextDecoder().decode(text) : ""
    request.reply()
  },
}

/** Records the push name a logged-in device announces with `<presence name=…>`. */
export function onPresence(account: SimAccount, presence: BinaryNode): void {
  if (presence.attrs.name) profileOf(account).pushName = presence.attrs.name
}
