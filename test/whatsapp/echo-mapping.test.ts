import { describe, expect, test } from "bun:test"
import { mapEchoUpsert } from "../../src/whatsapp/baileys/echo"
import { WA_STATUS } from "../../src/whatsapp/baileys/mapping"

/* Which fromMe upserts are the phone's own messages (src/whatsapp/baileys/echo.ts). */

const ctx = { pnForLid: async (lid: string) => (lid === "123456789012345@lid" ? "14155550199@s.whatsapp.net" : null), nowMs: 1_000 }
const upsert = (messages: object[], type = "notify") => ({ type, messages })

describe("echo mapping", () => {
  test("a text the phone sent maps to its chat by number, a LID chat resolves to the number, a group keeps its JID", async () => {
    const echoes = await mapEchoUpsert(
      upsert([
        { key: { remoteJid: "14155550188@s.whatsapp.net", fromMe: true, id: "A1" }, message: { conversation: "hi" }, messageTimestamp: 5, status: WA_STATUS.SERVER_ACK },
        { key: { remoteJid: "123456789012345@lid", fromMe: true, id: "A2" }, message: { conversation: "by lid" }, messageTimestamp: 6, status: WA_STATUS.SERVER_ACK },
        { key: { remoteJid: "120363000000000001@g.us", fromMe: true, id: "A3", participant: "14155550123@s.whatsapp.net" }, message: { conversation: "team" }, status: WA_STATUS.SERVER_ACK },
      ]),
      ctx,
    )
    expect(echoes.map((e) => [e.waMessageId, e.chatId, e.isGroup, e.content, e.atMs])).toEqual([
      ["A1", "+14155550188", false, "hi", 5_000],
      ["A2", "+14155550199", false, "by lid", 6_000],
      ["A3", "120363000000000001@g.us", true, "team", 1_000],
    ])
  })

  test("no echo: a contact's message, Baileys' pending copy of our own send, the history notification, a reaction, a status broadcast", async () => {
    const echoes = await mapEchoUpsert(
      upsert([
        { key: { remoteJid: "14155550188@s.whatsapp.net", fromMe: false, id: "B1" }, message: { conversation: "from a contact" } },
        { key: { remoteJid: "14155550188@s.whatsapp.net", fromMe: true, id: "B2" }, message: { conversation: "ours" }, status: WA_STATUS.PENDING },
        { key: { remoteJid: "14155550123@s.whatsapp.net", fromMe: true, id: "B3" }, message: { protocolMessage: { type: 5, historySyncNotification: {} } } },
        { key: { remoteJid: "14155550188@s.whatsapp.net", fromMe: true, id: "B4" }, message: { reactionMessage: { text: "👍" } } },
        { key: { remoteJid: "status@broadcast", fromMe: true, id: "B5" }, message: { conversation: "story" } },
      ]),
      ctx,
    )
    expect(echoes).toEqual([])
  })
})
