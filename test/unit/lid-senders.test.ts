import { describe, expect, test } from "bun:test"
import { pushNameFromOutside, usernameFromOutside, USERNAME_MAX_CHARS } from "../../src/lib/wa-username"
import { mapInboundUpsert, type KeyLike, type PnForLid } from "../../src/whatsapp/baileys/mapping"
import type { InboundSender } from "../../src/whatsapp/gateway"

/*
 * Senders WhatsApp names only by LID, with or without a number anywhere (WhiskeySockets/Baileys#2742),
 * and the usernames stanzas carry (WhiskeySockets/Baileys#2480): docs/live-whatsapp.md §
 * "Usernames and LID-only senders".
 */

const NOW_MS = 1_795_325_200_000
const LID = "200000000000042@lid"
const GROUP = "120363000000000042@g.us"

describe("usernames from stanzas are kept only when they are usernames", () => {
  const cases: { name: string; raw: unknown; kept: string | null }[] = [
    { name: "letters, digits, periods and underscores", raw: "ada.lovelace_1815", kept: "ada.lovelace_1815" },
    { name: "a leading @ is dropped, surrounding space too", raw: " @ada ", kept: "ada" },
    { name: "absent", raw: undefined, kept: null },
    { name: "not text", raw: 42, kept: null },
    { name: "empty", raw: "", kept: null },
    { name: "a terminal escape", raw: "ada\u001b[31m", kept: null },
    { name: "markup", raw: "<script>alert(1)</script>", kept: null },
    { name: "a space inside", raw: "ada lovelace", kept: null },
    { name: "a line break", raw: "ada\nroot", kept: null },
    { name: "longer than the bound (refused, never cut)", raw: "a".repeat(USERNAME_MAX_CHARS + 1), kept: null },
    { name: "exactly the bound", raw: "a".repeat(USERNAME_MAX_CHARS), kept: "a".repeat(USERNAME_MAX_CHARS) },
  ]
  for (const c of cases) test(c.name, () => expect(usernameFromOutside(c.raw)).toBe(c.kept))
})

describe("push names are made safe", () => {
  test("control characters are escaped, long names bounded, empty ones dropped", () => {
    expect(pushNameFromOutside("Ada\u001b[2J")).toBe("Ada\\x1b[2J")
    expect(pushNameFromOutside("x".repeat(500))!.length).toBe(128)
    expect(pushNameFromOutside("  ")).toBeNull()
    expect(pushNameFromOutside(undefined)).toBeNull()
  })
})

describe("who sent it: from, and what WhatsApp told about the sender", () => {
  const knows = (pairs: Record<string, string>): PnForLid => async (lid) => pairs[lid] ?? null
  const cases: { name: string; key: KeyLike; pnForLid?: PnForLid; pushName?: string; from: string; sender: InboundSender }[] = [
    {
      name: "1:1, a LID-only sender no one knows a number of: from is its LID, no number",
      key: { remoteJid: LID },
      from: LID,
      sender: { lid: LID, phoneNumber: null, username: null, pushName: null },
    },
    {
      name: "1:1, a LID-only sender with a username and a device part",
      key: { remoteJid: "200000000000042:3@lid", remoteJidUsername: "ada.l" },
      pushName: "Ada",
      from: LID,
      sender: { lid: LID, phoneNumber: null, username: "ada.l", pushName: "Ada" },
    },
    {
      name: "1:1, LID with its number beside it (sender_pn): from is the E.164, the LID kept",
      key: { remoteJid: LID, remoteJidAlt: "15550004242@s.whatsapp.net" },
      from: "+15550004242",
      sender: { lid: LID, phoneNumber: "+15550004242", username: null, pushName: null },
    },
    {
      name: "1:1, LID whose number wagate learned before",
      key: { remoteJid: LID },
      pnForLid: knows({ [LID]: "15550004242:0@s.whatsapp.net" }),
      from: "+15550004242",
      sender: { lid: LID, phoneNumber: "+15550004242", username: null, pushName: null },
    },
    {
      name: "group, a participant with only a LID and no participant_pn: from is its LID",
      key: { remoteJid: GROUP, participant: LID, participantUsername: "ada.l" },
      from: LID,
      sender: { lid: LID, phoneNumber: null, username: "ada.l", pushName: null },
    },
    {
      name: "group, the 1:1 username attribute does not name a group's author",
      key: { remoteJid: GROUP, participant: LID, remoteJidUsername: "the.group" },
      from: LID,
      sender: { lid: LID, phoneNumber: null, username: null, pushName: null },
    },
    {
      name: "group, a PN participant with its LID beside it",
      key: { remoteJid: GROUP, participant: "15550004242@s.whatsapp.net", participantAlt: LID },
      from: "+15550004242",
      sender: { lid: LID, phoneNumber: "+15550004242", username: null, pushName: null },
    },
    {
      name: "a hostile username is dropped, the message kept",
      key: { remoteJid: LID, remoteJidUsername: "ada\u001b]8;;http://x\u0007" },
      from: LID,
      sender: { lid: LID, phoneNumber: null, username: null, pushName: null },
    },
  ]
  for (const c of cases) {
    test(c.name, async () => {
      const upsert = { type: "notify", messages: [{ key: { id: "3EB0LID", fromMe: false, ...c.key }, pushName: c.pushName, messageTimestamp: 1_795_325_100, message: { conversation: "hi" } }] }
      const [m] = await mapInboundUpsert(upsert, { pnForLid: c.pnForLid ?? (async () => null), nowMs: NOW_MS })
      expect(m).toMatchObject({ from: c.from, isGroup: c.key.remoteJid === GROUP, content: "hi" })
      expect(m!.sender).toEqual(c.sender)
    })
  }
})
