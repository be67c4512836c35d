import { expect, setDefaultTimeout, test } from "bun:test"
import type { MessageSecret } from "../../../src/store/message-secrets"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { describeStores } from "./stores"

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const secret = (fill: number) => new Uint8Array(32).fill(fill)
const row = (over: Partial<MessageSecret> = {}): MessageSecret => ({
  phoneId: "ph_1",
  chatJid: "15550001111@s.whatsapp.net",
  waMessageId: "3EB0AA",
  senderJid: "15550001111@s.whatsapp.net",
  senderAltJid: "200000000000001@lid",
  secret: secret(1),
  createdAtMs: TEST_EPOCH_MS,
  ...over,
})

describeStores("message secrets", (open) => {
  test("a stored secret reads back byte-exact with its chat and both sender identities, for its phone only", async () => {
    const store = await open()
    await store.write((q) => q.saveMessageSecrets([row()]))
    expect(await store.findMessageSecrets("ph_1", "3EB0AA")).toEqual([row()])
    expect(await store.findMessageSecrets("ph_2", "3EB0AA")).toEqual([])
    expect(await store.findMessageSecrets("ph_1", "3EB0BB")).toEqual([])
  })

  test("the first secret stored for a chat, id and sender is kept: a message delivered again, or twice in one batch, cannot replace it", async () => {
    const store = await open()
    await store.write((q) => q.saveMessageSecrets([row()]))
    await store.write((q) => q.saveMessageSecrets([row({ secret: secret(9), createdAtMs: TEST_EPOCH_MS + 5 })]))
    expect((await store.findMessageSecrets("ph_1", "3EB0AA")).map((r) => r.secret)).toEqual([secret(1)])
    await store.write((q) => q.saveMessageSecrets([row({ waMessageId: "3EB0CC", secret: secret(3) }), row({ waMessageId: "3EB0CC", secret: secret(4) })]))
    expect((await store.findMessageSecrets("ph_1", "3EB0CC")).map((r) => r.secret)).toEqual([secret(3)])
    await store.write((q) => q.saveMessageSecrets([]))
  })

  test("the same WhatsApp id from two senders (a group and a 1:1 chat) keeps both rows, oldest first", async () => {
    const store = await open()
    const group = row({ chatJid: "120363000000000001@g.us", senderJid: "200000000000002@lid", senderAltJid: null, secret: secret(2), createdAtMs: TEST_EPOCH_MS + 1 })
    await store.write((q) => q.saveMessageSecrets([group, row()]))
    expect(await store.findMessageSecrets("ph_1", "3EB0AA")).toEqual([row(), group])
  })

  test("pruning deletes only secrets stored before the cutoff, oldest first, at most `limit` per call", async () => {
    const store = await open()
    const old = [0, 1, 2, 3, 4].map((i) => row({ waMessageId: `OLD${i}`, createdAtMs: TEST_EPOCH_MS + i }))
    await store.write((q) => q.saveMessageSecrets([...old, row({ waMessageId: "YOUNG", createdAtMs: TEST_EPOCH_MS + 100 })]))
    expect(await store.write((q) => q.pruneMessageSecrets(TEST_EPOCH_MS + 100, 3))).toBe(3)
    const kept = async (id: string) => (await store.findMessageSecrets("ph_1", id)).length === 1
    expect(await Promise.all(["OLD0", "OLD2", "OLD3", "OLD4"].map(kept))).toEqual([false, false, true, true])
    expect(await store.write((q) => q.pruneMessageSecrets(TEST_EPOCH_MS + 100, 3))).toBe(2)
    expect(await store.write((q) => q.pruneMessageSecrets(TEST_EPOCH_MS + 100, 3))).toBe(0)
    expect(await kept("YOUNG")).toBe(true)
  })
})
