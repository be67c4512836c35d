import type { WASocket } from "@whiskeysockets/baileys"

/*
 * Our own profile and group pictures, on an open Baileys socket (docs/api.md § "Pictures and the phone's own profile").
 *
 * The picture IQ is sent here rather than through Baileys' `updateProfilePicture`, which
 * converts the image again (node_modules/@whiskeysockets/baileys/lib/Socket/chats.js): its sharp
 * path stretches a non-square picture to 640 × 640 instead of cropping it. wagate has already
 * made the centre-cropped JPEG (src/lib/profile-picture.ts), so the node is the same
 * `<iq xmlns="w:profile:picture" type="set" [target]>` with the bytes as they are.
 */

/** The picture IQ's attributes: `target` names the group; our own picture has none. */
function pictureAttrs(groupJid: string | null): Record<string, string> {
  return { to: "s.whatsapp.net", type: "set", xmlns: "w:profile:picture", ...(groupJid ? { target: groupJid } : {}) }
}

export async function setPicture(sock: WASocket, groupJid: string | null, jpeg: Uint8Array): Promise<void> {
  await sock.query({ tag: "iq", attrs: pictureAttrs(groupJid), content: [{ tag: "picture", attrs: { type: "image" }, content: Buffer.from(jpeg) }] })
}

export async function removePicture(sock: WASocket, groupJid: string | null): Promise<void> {
  await sock.query({ tag: "iq", attrs: pictureAttrs(groupJid) })
}

export async function setAbout(sock: WASocket, about: string): Promise<void> {
  await sock.updateProfileStatus(about)
}

/**
 * The push name contacts see travels in `<presence type="available" name=…>`, which Baileys'
 * `sendPresenceUpdate` builds from `creds.me.name`: the name is stored in the credentials first
 * (the auth state saves `creds.update`), then announced. Baileys' `updateProfileName` would also
 * write the name into the phone's app state, which needs app-state keys from the phone and is
 * left to the phone's own settings.
 */
export async function setProfileName(sock: WASocket, name: string): Promise<void> {
  const me = sock.authState.creds.me
  if (!me) throw new Error("the socket has no logged-in identity")
  sock.ev.emit("creds.update", { me: { ...me, name } })
  await sock.sendPresenceUpdate("available")
}
