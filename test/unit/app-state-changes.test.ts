import { describe, expect, test } from "bun:test"
import { labelsAfter, realChange } from "../../src/domain/phone-app-state"
import { chatModificationOf, MUTED_FOREVER_MS } from "../../src/whatsapp/baileys/app-state"

describe("Baileys' chats.update read as the phone's chat changes", () => {
  test("archive, pin timestamp, mute end and read marks become the port's fields", () => {
    expect(chatModificationOf({ id: "x", archived: true })).toEqual({ archived: true })
    expect(chatModificationOf({ id: "x", pinned: 1_700_000_000 })).toEqual({ pinned: true })
    expect(chatModificationOf({ id: "x", pinned: null })).toEqual({ pinned: false })
    expect(chatModificationOf({ id: "x", muteEndTime: 1_800_000_000_000 })).toEqual({ mutedUntilMs: 1_800_000_000_000 })
    expect(chatModificationOf({ id: "x", muteEndTime: null })).toEqual({ mutedUntilMs: null })
    expect(chatModificationOf({ id: "x", unreadCount: 0 })).toEqual({ unread: false })
    expect(chatModificationOf({ id: "x", unreadCount: -1 })).toEqual({ unread: true })
  })

  test("a mute for ever (-1) is the last millisecond of year 9999", () => {
    expect(chatModificationOf({ id: "x", muteEndTime: -1 })).toEqual({ mutedUntilMs: MUTED_FOREVER_MS })
    expect(new Date(MUTED_FOREVER_MS).toISOString()).toBe("9999-12-31T23:59:59.999Z")
  })

  test("a message count or a timestamp alone is no app-state change", () => {
    expect(chatModificationOf({ id: "x", unreadCount: 3, conversationTimestamp: 1 })).toBeNull()
  })
})

describe("only what really changes on the phone is applied (one chat.updated per change)", () => {
  const stored = { archived: true, pinned: false, mutedUntilMs: null, unreadCount: 2 }

  test("fields equal to the stored chat are dropped; differing ones kept", () => {
    expect(realChange(stored, { archived: true, pinned: true, mutedUntilMs: null, unread: true })).toEqual({ pinned: true })
    expect(realChange(stored, { archived: false, unread: false, mutedUntilMs: 5 })).toEqual({ archived: false, unread: false, mutedUntilMs: 5 })
  })

  test("a replay of what is stored changes nothing", () => {
    expect(realChange(stored, { archived: true, pinned: false, mutedUntilMs: null, unread: true })).toEqual({})
  })

  test("a chat not known yet compares with WhatsApp's defaults", () => {
    expect(realChange(null, { archived: false, pinned: false, unread: false })).toEqual({})
    expect(realChange(null, { archived: true })).toEqual({ archived: true })
  })
})

describe("a label put on or taken off a chat on the phone", () => {
  test("adds or removes the label id, keeping the others in order", () => {
    expect(labelsAfter(["1"], "4", true)).toEqual(["1", "4"])
    expect(labelsAfter(["1", "4"], "1", false)).toEqual(["4"])
  })

  test("a label already on (or already off) changes nothing", () => {
    expect(labelsAfter(["4"], "4", true)).toBeNull()
    expect(labelsAfter([], "4", false)).toBeNull()
  })
})
