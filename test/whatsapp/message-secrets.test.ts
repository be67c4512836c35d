import { storeOver } from "../helpers/sqlite-store"
import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { proto } from "@whiskeysockets/baileys"
import { silentLogger } from "../../src/lib/logger"
import { Counter } from "../../src/lib/metrics"
import { migrate, openDatabase } from "../../src/store/sqlite/db"
import { createWriter } from "../../src/store/sqlite/writer"
import { mapInboundActions } from "../../src/whatsapp/baileys/inbound-actions"
import { mapInboundUpsert, type UpsertLike } from "../../src/whatsapp/baileys/mapping"
import { createMessageSecrets, openEditPayload } from "../../src/whatsapp/baileys/message-secrets"
import { TestClock } from "../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { encryptedEdit, newMessageSecret, sealWithMessageSecret } from "../wa-sim/message-secret"

/*
 * Encrypted edits (docs/live-whatsapp.md, "Encrypted edits"): the payload WhatsApp's apps seal
 * with the edited message's secret (test/wa-sim/message-secret.ts plays the sender) opens with
 * the stored secret under the sender's LID or number, and nothing else opens it.
 */

// Uses the simulator's sealing code: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const PN = "15550002222@s.whatsapp.net"
const LID = "200000000000007@lid"
const TARGET = "3EB0ORIGINAL0001"
const ME = "15550001111@s.whatsapp.net"

const plainEdit = (text: string): proto.Message.IProtocolMessage => ({
  key: { remoteJid: ME, fromMe: true, id: TARGET },
  type: proto.Message.ProtocolMessage.Type.MESSAGE_EDIT,
  editedMessage: { conversation: text },
  timestampMs: 1_700_000_000_000,
})

describe("opening an encrypted edit's payload", () => {
  const secret = newMessageSecret()
  const plain = proto.Message.encode({ protocolMessage: plainEdit("fixed") }).finish()
  const sealedAs = (jid: string, key = secret) => sealWithMessageSecret({ secret: key, targetId: TARGET, senderJid: jid, useCase: "Message Edit", plain })
  const flip = (bytes: Uint8Array, at: number) => bytes.map((b, i) => (i === at ? b ^ 1 : b))
  const cases: { name: string; sealed: { encPayload: Uint8Array; encIv: Uint8Array }; secret: Uint8Array; identities: string[]; opens: boolean }[] = [
    { name: "sealed under the LID, the edit named by its LID", sealed: sealedAs(LID), secret, identities: [LID, PN], opens: true },
    { name: "sealed under the number, the edit named by its LID (the other identity is tried)", sealed: sealedAs(PN), secret, identities: [LID, PN], opens: true },
    { name: "sealed under the number, the edit named by its number", sealed: sealedAs(PN), secret, identities: [PN], opens: true },
    { name: "sealed with a device suffix on the JID: JIDs are compared without device", sealed: sealedAs(PN), secret, identities: ["15550002222:3@s.whatsapp.net"], opens: true },
    { name: "sealed under an identity wagate does not know for the sender", sealed: sealedAs(LID), secret, identities: [PN], opens: false },
    { name: "another message's secret", sealed: sealedAs(LID), secret: newMessageSecret(), identities: [LID, PN], opens: false },
    { name: "a tampered ciphertext byte", sealed: { ...sealedAs(LID), encPayload: flip(sealedAs(LID).encPayload, 3) }, secret, identities: [LID, PN], opens: false },
    { name: "a tampered tag", sealed: (() => { const s = sealedAs(LID); return { ...s, encPayload: flip(s.encPayload, s.encPayload.length - 1) } })(), secret, identities: [LID, PN], opens: false },
    { name: "an IV of the wrong length", sealed: { ...sealedAs(LID), encIv: new Uint8Array(16) }, secret, identities: [LID, PN], opens: false },
    { name: "a secret of the wrong length", sealed: sealedAs(LID), secret: secret.subarray(0, 16), identities: [LID, PN], opens: false },
  ]
  for (const c of cases) {
    test(`${c.opens ? "opens" : "refuses"}: ${c.name}`, () => {
      const opened = openEditPayload({ origMessageId: TARGET, ...c.sealed }, c.secret, c.identities)
      if (c.opens) expect(proto.Message.decode(opened!).protocolMessage?.editedMessage?.conversation).toBe("fixed")
      else expect(opened).toBeNull()
    })
  }

  test("a payload sealed for another message id does not open", () => {
    const other = sealWithMessageSecret({ secret, targetId: "3EB0SOMEOTHER", senderJid: LID, useCase: "Message Edit", plain })
    expect(openEditPayload({ origMessageId: TARGET, ...other }, secret, [LID, PN])).toBeNull()
  })
})

describe("encrypted edits in an upsert", () => {
  function world() {
    const db = openDatabase(":memory:")
    const clock = new TestClock()
    migrate(db, clock.nowMs())
    const warnings: { message: string; fields: Record<string, unknown> }[] = []
    const logger = { ...silentLogger, warn: (message: string, fields?: Record<string, unknown>) => void warnings.push({ message, fields: fields ?? {} }) }
    const counter = new Counter("wagate_encrypted_edits_total", "test", {})
    const store = storeOver(db, createWriter(db))
    const secrets = createMessageSecrets({ store, clock, logger, encryptedEdits: counter }, "ph_1", (b) => proto.Message.decode(b))
    return { secrets, warnings, counter, clock, store }
  }
  const original = (secret: Uint8Array): UpsertLike => ({
    type: "notify",
    messages: [{ key: { remoteJid: LID, remoteJidAlt: PN, fromMe: false, id: TARGET }, message: { conversation: "teh text", messageContextInfo: { messageSecret: secret } }, messageTimestamp: 1_700_000_000 }],
  })
  const editUpsert = (message: proto.IMessage, key: { remoteJid: string; remoteJidAlt?: string }): UpsertLike => ({
    type: "notify",
    messages: [{ key: { ...key, fromMe: false, id: "3EB0THEEDIT00001" }, message, messageTimestamp: 1_700_000_060 }],
  })
  const pnForLid = async () => PN
  const mapped = async (upsert: UpsertLike) => ({
    inbound: await mapInboundUpsert(upsert, { pnForLid, nowMs: 1_800_000_000_000 }),
    actions: await mapInboundActions(upsert, { pnForLid, nowMs: 1_800_000_000_000 }),
  })

  test("an edit sealed with the stored secret maps exactly like a plain edit, whichever identity the sender derived with", async () => {
    for (const identity of [LID, PN]) {
      const { secrets, counter } = world()
      const secret = newMessageSecret()
      await secrets.rememberUpsert(original(secret), { id: ME })
      // The edit may name the sender by its number only, though the original named its LID.
      const encrypted = await secrets.openEdits(editUpsert(encryptedEdit(plainEdit("the text"), secret, identity), { remoteJid: PN }))
      const plain = editUpsert({ protocolMessage: plainEdit("the text") }, { remoteJid: PN })
      expect(await mapped(encrypted)).toEqual(await mapped(plain))
      expect((await mapped(encrypted)).actions).toEqual([{ kind: "edit", targetWaMessageId: TARGET, from: "+15550002222", content: "the text", atMs: 1_700_000_000_000 }])
      expect(counter.render()).toContain('wagate_encrypted_edits_total{result="decrypted"} 1')
    }
  })

  test("without a stored secret the edit is dropped with one warning naming the phone and the message, and counted", async () => {
    const { secrets, warnings, counter } = world()
    const opened = await secrets.openEdits(editUpsert(encryptedEdit(plainEdit("the text"), newMessageSecret(), LID), { remoteJid: LID, remoteJidAlt: PN }))
    expect(await mapped(opened)).toEqual({ inbound: [], actions: [] })
    expect(warnings).toHaveLength(1)
    expect(warnings[0]!.message).toContain("no secret is stored")
    expect(warnings[0]!.fields).toMatchObject({ phoneId: "ph_1", waMessageId: "3EB0THEEDIT00001", targetWaMessageId: TARGET })
    expect(counter.render()).toContain('wagate_encrypted_edits_total{result="no_secret"} 1')
  })

  test("a store that cannot be read loses only the edit, with one warning saying so, and counts it; the batch's other messages still map", async () => {
    const { store, clock, warnings, counter } = world()
    const failing = { ...store, findMessageSecrets: async () => Promise.reject(new Error("database is locked")) } as typeof store
    const secrets = createMessageSecrets({ store: failing, clock, logger: { ...silentLogger, warn: (message: string, fields?: Record<string, unknown>) => void warnings.push({ message, fields: fields ?? {} }) }, encryptedEdits: counter }, "ph_1", (b) => proto.Message.decode(b))
    const edit = editUpsert(encryptedEdit(plainEdit("the text"), newMessageSecret(), LID), { remoteJid: LID, remoteJidAlt: PN })
    const batch: UpsertLike = { type: "notify", messages: [...edit.messages, ...original(newMessageSecret()).messages] }
    const { inbound, actions } = await mapped(await secrets.openEdits(batch))
    expect(actions).toEqual([])
    expect(inbound.map((m) => m.content)).toEqual(["teh text"])
    expect(warnings.map((w) => w.message)).toEqual(["an encrypted edit was dropped: reading the stored secret of the message it edits failed"])
    expect(counter.render()).toContain('wagate_encrypted_edits_total{result="undecryptable"} 1')
  })

  test("an edit that does not authenticate with the stored secret is dropped with one warning and counted", async () => {
    const { secrets, warnings, counter } = world()
    await secrets.rememberUpsert(original(newMessageSecret()), { id: ME })
    const opened = await secrets.openEdits(editUpsert(encryptedEdit(plainEdit("the text"), newMessageSecret(), LID), { remoteJid: LID, remoteJidAlt: PN }))
    expect((await mapped(opened)).actions).toEqual([])
    expect(warnings.map((w) => w.message)).toEqual(["an encrypted edit was dropped: it did not decrypt with the stored secret"])
    expect(counter.render()).toContain('wagate_encrypted_edits_total{result="undecryptable"} 1')
  })

  test("another contact's secret for the same message id is not used: an edit decrypts only with its author's", async () => {
    const { secrets, counter } = world()
    const secret = newMessageSecret()
    await secrets.rememberUpsert(original(secret), { id: ME })
    const opened = await secrets.openEdits(editUpsert(encryptedEdit(plainEdit("the text"), secret, "15550009999@s.whatsapp.net"), { remoteJid: "15550009999@s.whatsapp.net" }))
    expect((await mapped(opened)).actions).toEqual([])
    expect(counter.render()).toContain('wagate_encrypted_edits_total{result="no_secret"} 1')
  })

  test("an encrypted edit is never recorded as a message of its own, even undecrypted", async () => {
    const envelope = editUpsert(encryptedEdit(plainEdit("the text"), newMessageSecret(), LID), { remoteJid: LID })
    expect(await mapInboundUpsert(envelope, { pnForLid, nowMs: 0 })).toEqual([])
  })

  test("the secret of a message we sent is stored under our number and LID", async () => {
    const { secrets, store, clock } = world()
    const secret = newMessageSecret()
    await secrets.rememberSent({ key: { remoteJid: PN, id: "3EB0OURS", fromMe: true }, message: { conversation: "hi", messageContextInfo: { messageSecret: secret } } }, { id: "15550001111:4@s.whatsapp.net", lid: "100000000000001:4@lid" })
    expect(await store.findMessageSecrets("ph_1", "3EB0OURS")).toEqual([
      { phoneId: "ph_1", chatJid: PN, waMessageId: "3EB0OURS", senderJid: ME, senderAltJid: "100000000000001@lid", secret, createdAtMs: clock.nowMs() },
    ])
  })
})
