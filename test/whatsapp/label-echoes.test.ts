import { describe, expect, test } from "bun:test"
import { ALL_WA_PATCH_NAMES, type WASocket } from "@whiskeysockets/baileys"
import { appStateHandler, type AppStateListener } from "../../src/whatsapp/baileys/app-state"
import { labelChat, OwnLabelEchoes } from "../../src/whatsapp/baileys/labels"
import type { PhoneChatLabel } from "../../src/whatsapp/gateway"

/*
 * Baileys 7.0.0-rc14 tells a device its own app-state patches back (emitOwnEvents): the echo of a
 * chat label wagate wrote is dropped once (labels.ts), so the domain's one record of a PUT stays
 * the only one; the phone's own label changes still arrive.
 */

const JID = "14155550166@s.whatsapp.net"

function handlerWith(echoes: OwnLabelEchoes) {
  const told: PhoneChatLabel[] = []
  const listener: AppStateListener = {
    chatChanged: () => {},
    addressBook: () => {},
    chatLabelled: (change) => told.push(change),
    labelEdited: () => {},
    isOwnChatLabel: (chatJid, labelId, labeled) => echoes.isEcho(chatJid, labelId, labeled),
    failed: (what, err) => {
      throw new Error(`${what}: ${String(err)}`)
    },
  }
  const sock = { resyncAppState: async () => {}, signalRepository: {} } as unknown as Pick<WASocket, "ev" | "resyncAppState" | "signalRepository">
  const handle = appStateHandler(sock, { ALL_WA_PATCH_NAMES }, () => 1_000, listener)
  const association = (labelId: string, type: "add" | "remove") => handle({ "labels.association": { type, association: { type: "label_jid" as never, chatId: JID, labelId } } })
  return { told, association }
}

const settle = () => new Promise((r) => setImmediate(r))

describe("own chat-label echoes", () => {
  test("the echo of a chat label this session wrote is dropped once; the same change made on the phone later still arrives", async () => {
    const echoes = new OwnLabelEchoes()
    const sock = { addChatLabel: async () => {}, removeChatLabel: async () => {} } as unknown as Parameters<typeof labelChat>[0]
    await labelChat(sock, echoes, JID, "4", true)
    const { told, association } = handlerWith(echoes)
    association("4", "add")
    await settle()
    expect(told).toEqual([])
    association("4", "add")
    await settle()
    expect(told).toEqual([{ chat: "+14155550166", labelId: "4", labeled: true, atMs: 1_000 }])
  })

  test("an echo of another label, or the opposite change, is not taken for ours", async () => {
    const echoes = new OwnLabelEchoes()
    echoes.expect(JID, "4", true)
    expect(echoes.isEcho(JID, "5", true)).toBe(false)
    expect(echoes.isEcho(JID, "4", false)).toBe(false)
    expect(echoes.isEcho("14155550177@s.whatsapp.net", "4", true)).toBe(false)
    expect(echoes.isEcho(JID, "4", true)).toBe(true)
  })

  test("a write WhatsApp refused expects no echo, and past MAX_PENDING the oldest is forgotten", async () => {
    const echoes = new OwnLabelEchoes()
    const refusing = { addChatLabel: async () => Promise.reject(new Error("App state key not present!")) } as unknown as Parameters<typeof labelChat>[0]
    await expect(labelChat(refusing, echoes, JID, "4", true)).rejects.toThrow("App state key not present!")
    expect(echoes.isEcho(JID, "4", true)).toBe(false)
    for (let i = 0; i <= OwnLabelEchoes.MAX_PENDING; i++) echoes.expect(JID, String(i), true)
    expect(echoes.isEcho(JID, "0", true)).toBe(false)
    expect(echoes.isEcho(JID, String(OwnLabelEchoes.MAX_PENDING), true)).toBe(true)
  })
})
