import { describe, expect, test } from "bun:test"
import { generateWAMessageContent, proto } from "@whiskeysockets/baileys"
import { isSingleEmoji } from "../../src/lib/emoji"
import { editContent, reactionContent, revokeContent, waKeyOf } from "../../src/whatsapp/baileys/message-actions"
import type { WaMessageRef } from "../../src/whatsapp/gateway"

/*
 * The pure parts of acting on a message (docs/api.md § "Act on a message"): what counts as one
 * emoji, and the WhatsApp message Baileys builds for a reaction, an edit and a revoke from the
 * key the port names.
 */

describe("one emoji", () => {
  test.each([
    ["👍", true],
    ["❤️", true],
    ["🇧🇷", true],
    ["1️⃣", true],
    ["#️⃣", true],
    ["👍🏽", true],
    ["👨‍👩‍👧", true],
    ["🏳️‍🌈", true],
    ["a", false],
    ["7", false],
    ["!", false],
    ["👍👍", false],
    ["👍 ", false],
    [" 👍", false],
    ["\u200d", false],
    ["", false],
    ["👍".repeat(40), false],
  ])("%j is one emoji: %p", (text, expected) => {
    expect(isSingleEmoji(text)).toBe(expected)
  })
})

const ours: WaMessageRef = { chatJid: "14155550199@s.whatsapp.net", waMessageId: "3EB0AAAA", fromMe: true }
const theirsInGroup: WaMessageRef = { chatJid: "120363111111111111@g.us", waMessageId: "ABCD", fromMe: false, authorJid: "14155550166@s.whatsapp.net" }

describe("the WhatsApp key of a message", () => {
  test("ours names the chat and fromMe; someone else's in a group names its author as participant", () => {
    expect(waKeyOf(ours)).toEqual({ remoteJid: "14155550199@s.whatsapp.net", id: "3EB0AAAA", fromMe: true })
    expect(waKeyOf(theirsInGroup)).toEqual({ remoteJid: "120363111111111111@g.us", id: "ABCD", fromMe: false, participant: "14155550166@s.whatsapp.net" })
  })
})

describe("what Baileys builds from each action", () => {
  const build = (content: Parameters<typeof generateWAMessageContent>[0]) => generateWAMessageContent(content, { upload: async () => ({ mediaUrl: "", directPath: "" }) } as never)

  test("a reaction is a reactionMessage with the target's key and the emoji; a removal has empty text", async () => {
    const message = await build(reactionContent(theirsInGroup, "❤️"))
    expect(message.reactionMessage?.key).toMatchObject({ remoteJid: "120363111111111111@g.us", id: "ABCD", fromMe: false, participant: "14155550166@s.whatsapp.net" })
    expect(message.reactionMessage?.text).toBe("❤️")
    expect((await build(reactionContent(ours, ""))).reactionMessage?.text).toBe("")
  })

  test("an edit is a MESSAGE_EDIT protocolMessage naming our message and carrying the new text", async () => {
    const message = await build(editContent(ours, "Hello again"))
    expect(message.protocolMessage?.type).toBe(proto.Message.ProtocolMessage.Type.MESSAGE_EDIT)
    expect(message.protocolMessage?.key).toMatchObject({ id: "3EB0AAAA", fromMe: true, remoteJid: "14155550199@s.whatsapp.net" })
    const edited = message.protocolMessage?.editedMessage
    expect(edited?.conversation ?? edited?.extendedTextMessage?.text).toBe("Hello again")
  })

  test("a revoke is a REVOKE protocolMessage naming our message", async () => {
    const message = await build(revokeContent(ours))
    expect(message.protocolMessage?.type).toBe(proto.Message.ProtocolMessage.Type.REVOKE)
    expect(message.protocolMessage?.key).toMatchObject({ id: "3EB0AAAA", fromMe: true })
  })
})
