import { open, rm } from "node:fs/promises"
import type { BinaryNode, WASocket } from "@whiskeysockets/baileys"
import type { Clock } from "../../lib/clock"
import { MediaTooLargeError, type BusinessProfileInfo } from "../gateway"

/*
 * Blocks and profiles on the socket (docs/api.md § "Blocking" and docs/api.md § "Contact profiles"): the
 * block list IQ (xmlns "blocklist"), the about text (usync's status protocol), the business
 * profile (xmlns "w:biz") and the picture (xmlns "w:profile:picture"), as Baileys 7.0.0-rc14's
 * lib/Socket/chats.js asks for them. The picture is asked for directly rather than through
 * profilePictureUrl, which drops the picture's id, the one thing that says the picture changed.
 */

/** A profile picture is at most 640 × 640 JPEG; anything past this is not one. */
export const PICTURE_MAX_BYTES = 2 * 1024 * 1024
/** A picture download that takes longer than this is abandoned. */
export const PICTURE_DOWNLOAD_TIMEOUT_MS = 30_000

type Sock = Pick<WASocket, "fetchBlocklist" | "updateBlockStatus" | "fetchStatus" | "getBusinessProfile" | "query" | "refreshMediaConn" | "signalRepository">

/** A JID as the API writes a contact: E.164 when the number is known (WhatsApp lists blocks by LID), else the `…@lid` JID. */
export async function contactOf(sock: Pick<Sock, "signalRepository">, jid: string): Promise<string> {
  const user = jid.split("@")[0]!.split(":")[0]!
  if (jid.endsWith("@s.whatsapp.net")) return `+${user}`
  if (!jid.endsWith("@lid")) return jid
  const pn = await sock.signalRepository.lidMapping.getPNForLID(`${user}@lid`).catch(() => null)
  return pn ? `+${pn.split("@")[0]!.split(":")[0]!}` : `${user}@lid`
}

export async function fetchBlocklist(sock: Sock): Promise<string[]> {
  const jids = (await sock.fetchBlocklist()).filter((jid): jid is string => typeof jid === "string" && jid.length > 0)
  return [...new Set(await Promise.all(jids.map((jid) => contactOf(sock, jid))))]
}

export async function setBlocked(sock: Sock, jid: string, blocked: boolean): Promise<void> {
  await sock.updateBlockStatus(jid, blocked ? "block" : "unblock")
}

export async function fetchAbout(sock: Sock, jid: string): Promise<{ text: string; setAtMs: number | null } | null> {
  const list = (await sock.fetchStatus(jid)) ?? []
  const status = (list[0] as { status?: { status?: string | null; setAt?: Date } } | undefined)?.status
  if (!status || typeof status.status !== "string" || status.status === "") return null
  const setAtMs = status.setAt ? status.setAt.getTime() : NaN
  return { text: status.status, setAtMs: Number.isFinite(setAtMs) && setAtMs > 0 ? setAtMs : null }
}

export async function fetchBusinessProfile(sock: Sock, jid: string): Promise<BusinessProfileInfo | null> {
  const profile = await sock.getBusinessProfile(jid)
  if (!profile) return null
  const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : null)
  return {
    description: text(profile.description),
    category: text(profile.category),
    email: text(profile.email),
    websites: (profile.website ?? []).filter((site): site is string => typeof site === "string" && site !== ""),
    address: text(profile.address),
  }
}

/** The picture's URL and id; null when WhatsApp answers that there is none or that privacy hides it (404/401). */
export async function pictureOf(sock: Sock, jid: string): Promise<{ url: string; pictureId: string } | null> {
  let result: BinaryNode
  try {
    result = await sock.query({
      tag: "iq",
      attrs: { target: jid, to: "s.whatsapp.net", type: "get", xmlns: "w:profile:picture" },
      content: [{ tag: "picture", attrs: { type: "image", query: "url" } }],
    })
  } catch (err) {
    // Baileys raises an IQ error as a Boom whose data is WhatsApp's code (lib/Utils/generics.js, assertNodeErrorFree).
    const code = (err as { data?: unknown }).data
    if (code === 404 || code === 401 || code === 403) return null
    throw err
  }
  const picture = Array.isArray(result.content) ? result.content.find((node) => node.tag === "picture") : undefined
  const url = picture?.attrs.url
  if (!url) return null
  return { url, pictureId: picture.attrs.id ?? url }
}

/**
 * Streams the picture into `path` (created 0600). Only an https URL on a host WhatsApp's server
 * named for media, or on whatsapp.net, is fetched: the URL comes from WhatsApp, never from a client.
 */
export async function downloadPicture(sock: Sock, clock: Clock, url: string, path: string, maxBytes: number): Promise<number> {
  const parsed = new URL(url)
  const hosts = (await sock.refreshMediaConn(false)).hosts.map((host) => host.hostname)
  if (parsed.protocol !== "https:" || !(hosts.includes(parsed.host) || parsed.hostname.endsWith(".whatsapp.net"))) {
    throw new Error("WhatsApp named a picture URL outside its media hosts")
  }
  const aborter = new AbortController()
  const timer = clock.setTimer(PICTURE_DOWNLOAD_TIMEOUT_MS, () => aborter.abort(new Error("the picture download timed out")))
  const file = await open(path, "wx", 0o600)
  let ok = false
  try {
    const response = await fetch(url, { signal: aborter.signal, redirect: "error" })
    if (!response.ok || !response.body) throw new Error(`WhatsApp's picture host answered ${response.status}`)
    let size = 0
    for await (const chunk of response.body) {
      size += chunk.byteLength
      if (size > maxBytes) throw new MediaTooLargeError(maxBytes)
      await file.write(chunk)
    }
    ok = true
    return size
  } finally {
    timer.cancel()
    await file.close()
    if (!ok) await rm(path, { force: true })
  }
}
