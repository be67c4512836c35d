import { describe, expect, test } from "bun:test"
import { LidRefresher, refreshLidPeer, type LidDirectory } from "../../src/whatsapp/baileys/lid-refresh"

/*
 * `<ack refresh_lid="true">`: the LID mapping held for a peer is stale (WhiskeySockets/Baileys PR
 * #2661, oxidezap/whatsapp-rust PR #1313); docs/live-whatsapp.md § "Stale LID mappings".
 */

const PN = "15550004545@s.whatsapp.net"
const OLD = "200000000000045@lid"
const NEW = "200000000000046@lid"

const ack = (attrs: Record<string, string>) => ({ tag: "ack", attrs: { class: "message", id: "3EB0ACK", ...attrs } })

describe("which acks call a mapping stale", () => {
  const cases: { name: string; node: { tag: string; attrs: Record<string, string> }; peer: string | null }[] = [
    { name: "a message ack from a number with refresh_lid", node: ack({ from: PN, refresh_lid: "true" }), peer: PN },
    { name: "from a LID with a device part", node: ack({ from: "200000000000045:2@lid", refresh_lid: "true" }), peer: OLD },
    { name: "a plain ack", node: ack({ from: PN }), peer: null },
    { name: "refresh_lid other than \"true\"", node: ack({ from: PN, refresh_lid: "false" }), peer: null },
    { name: "a group ack (no user to look up)", node: ack({ from: "120363000000000045@g.us", refresh_lid: "true" }), peer: null },
    { name: "another class of ack", node: { tag: "ack", attrs: { class: "receipt", from: PN, refresh_lid: "true" } }, peer: null },
  ]
  for (const c of cases) test(c.name, () => expect(refreshLidPeer(c.node)).toBe(c.peer))
})

/** A directory over maps, recording what it was asked. */
function directory(state: { mapping: Map<string, string>; server: Map<string, string | null>; fail?: boolean }) {
  const asked: string[] = []
  const stored: [string, string][] = []
  const dir: LidDirectory = {
    pnForLid: async (lid) => [...state.mapping].find(([, l]) => l === lid)?.[0] ?? null,
    storedLidFor: async (pn) => state.mapping.get(pn) ?? null,
    lookUpLid: async (pn) => {
      asked.push(pn)
      await Promise.resolve()
      if (state.fail) throw new Error("usync timed out")
      return state.server.get(pn) ?? null
    },
    storeMapping: async (lid, pn) => {
      stored.push([lid, pn])
      state.mapping.set(pn, lid)
    },
  }
  return { dir, asked, stored }
}

function recordingLog() {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = []
  return { lines, log: { info: (msg: string, fields?: Record<string, unknown>) => lines.push({ level: "info", msg, fields }), warn: (msg: string, fields?: Record<string, unknown>) => lines.push({ level: "warn", msg, fields }) } }
}

describe("a stale mapping is looked up again by number", () => {
  test("the number's new LID is stored, replacing the old, and said once at warn", async () => {
    const state = { mapping: new Map([[PN, OLD]]), server: new Map([[PN, NEW]]) }
    const { dir, asked, stored } = directory(state)
    const { lines, log } = recordingLog()
    const outcome = await new LidRefresher(dir, log).onAck(ack({ from: PN, refresh_lid: "true" }))
    expect(outcome).toEqual({ kind: "changed", phoneNumber: "+15550004545", from: OLD, to: NEW })
    expect(asked).toEqual([PN])
    expect(stored).toEqual([[NEW, PN]])
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatchObject({ level: "warn", fields: { kind: "changed", waMessageId: "3EB0ACK" } })
  })

  test("an ack naming the old LID is looked up by the number the mapping holds for it, never by that LID", async () => {
    const state = { mapping: new Map([[PN, OLD]]), server: new Map([[PN, NEW]]) }
    const { dir, asked, stored } = directory(state)
    const outcome = await new LidRefresher(dir, recordingLog().log).onAck(ack({ from: OLD, refresh_lid: "true" }))
    expect(outcome).toMatchObject({ kind: "changed", to: NEW })
    expect(asked).toEqual([PN])
    expect(stored).toEqual([[NEW, PN]])
  })

  test("a LID with no known number cannot be asked about: nothing is stored, a warning says what to do", async () => {
    const { dir, asked, stored } = directory({ mapping: new Map(), server: new Map() })
    const { lines, log } = recordingLog()
    expect(await new LidRefresher(dir, log).onAck(ack({ from: OLD, refresh_lid: "true" }))).toEqual({ kind: "no_number", lid: OLD })
    expect(asked).toEqual([])
    expect(stored).toEqual([])
    expect(lines.map((l) => l.level)).toEqual(["warn"])
    expect(lines[0]!.msg).toContain("send to the contact's number")
  })

  test("an unchanged answer stores nothing and is said at info", async () => {
    const { dir, stored } = directory({ mapping: new Map([[PN, OLD]]), server: new Map([[PN, OLD]]) })
    const { lines, log } = recordingLog()
    expect(await new LidRefresher(dir, log).onAck(ack({ from: PN, refresh_lid: "true" }))).toMatchObject({ kind: "unchanged" })
    expect(stored).toEqual([])
    expect(lines.map((l) => l.level)).toEqual(["info"])
  })

  test("several acks for one peer at once make one lookup and one log line; a failed lookup is said once at warn", async () => {
    const { dir, asked } = directory({ mapping: new Map([[PN, OLD]]), server: new Map([[PN, NEW]]), fail: true })
    const { lines, log } = recordingLog()
    const refresher = new LidRefresher(dir, log)
    const first = refresher.onAck(ack({ from: PN, refresh_lid: "true" }))
    const second = refresher.onAck(ack({ from: PN, refresh_lid: "true", id: "3EB0ACK2" }))
    expect(second).toBe(first)
    expect(await first).toMatchObject({ kind: "failed" })
    expect(asked).toEqual([PN])
    expect(lines.map((l) => l.level)).toEqual(["warn"])
    // Done: a later ack asks again.
    await refresher.onAck(ack({ from: PN, refresh_lid: "true" }))
    expect(asked).toEqual([PN, PN])
  })

  test("a plain ack starts nothing", () => {
    const { dir } = directory({ mapping: new Map(), server: new Map() })
    expect(new LidRefresher(dir, recordingLog().log).onAck(ack({ from: PN }))).toBeNull()
  })
})
