import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { proto, type BinaryNode } from "@whiskeysockets/baileys"
import { readAction, targetProblem } from "./message-actions"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Everything under test/wa-sim gets the simulator's timeout: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * How the simulator's contacts read reactions, edits and revokes (README.md, "Reactions, edits,
 * revokes and read receipts"): a stanza whose attributes do not match its content, or an action
 * naming a message the chat does not have, is an error of the message, so a test fails on it.
 */

const stanza = (attrs: { type?: string; edit?: string }): BinaryNode => ({ tag: "message", attrs: { id: "X", to: "1@s.whatsapp.net", ...(attrs as Record<string, string>) } })
const EDIT = proto.Message.ProtocolMessage.Type.MESSAGE_EDIT
const REVOKE = proto.Message.ProtocolMessage.Type.REVOKE

describe("reading an action", () => {
  test("a reaction, an edit and a revoke as Baileys sends them", () => {
    expect(readAction({ reactionMessage: { key: { id: "T", fromMe: true }, text: "👍" } }, stanza({ type: "reaction" }))).toEqual({
      action: { kind: "reaction", targetId: "T", targetFromMe: true, emoji: "👍" },
      errors: [],
    })
    expect(readAction({ protocolMessage: { type: EDIT, key: { id: "T", fromMe: true }, editedMessage: { conversation: "new" } } }, stanza({ type: "text", edit: "1" }))).toEqual({
      action: { kind: "edit", targetId: "T", text: "new" },
      errors: [],
    })
    expect(readAction({ protocolMessage: { type: REVOKE, key: { id: "T", fromMe: true } } }, stanza({ type: "text", edit: "7" }))).toEqual({
      action: { kind: "revoke", targetId: "T" },
      errors: [],
    })
    expect(readAction({ conversation: "plain" }, stanza({ type: "text" }))).toEqual({ errors: [] })
  })

  test.each([
    { name: "a reaction not typed as one", message: { reactionMessage: { key: { id: "T" }, text: "👍" } }, attrs: { type: "text" }, error: 'the stanza\'s type is "text", WhatsApp expects "reaction"' },
    { name: "an edit without edit=1", message: { protocolMessage: { type: EDIT, key: { id: "T", fromMe: true }, editedMessage: { conversation: "x" } } }, attrs: {}, error: 'the stanza\'s edit is undefined, WhatsApp expects "1"' },
    { name: "a revoke without edit=7", message: { protocolMessage: { type: REVOKE, key: { id: "T", fromMe: true } } }, attrs: { edit: "8" }, error: 'the stanza\'s edit is "8", WhatsApp expects "7"' },
    { name: "an edit of someone else's message", message: { protocolMessage: { type: EDIT, key: { id: "T", fromMe: false }, editedMessage: { conversation: "x" } } }, attrs: { edit: "1" }, error: "an edit must name one of the sender's own messages" },
  ])("$name is an error", ({ message, attrs, error }) => {
    expect(readAction(message as proto.IMessage, stanza(attrs)).errors).toContain(error)
  })
})

describe("finding the message an action names", () => {
  const alice = { name: "alice" }
  const team = { name: "team" }
  const ours = new Map([["MINE", { contact: alice }], ["INGROUP", { group: team }]])
  const theirs = new Map([["HERS", { contact: alice }]])
  const problem = (action: Parameters<typeof targetProblem>[0], chat: Parameters<typeof targetProblem>[1]) =>
    targetProblem(action, chat, (id) => ours.get(id), (id) => theirs.get(id))

  test("ours by fromMe, theirs otherwise, in the same chat only", () => {
    expect(problem({ kind: "edit", targetId: "MINE", text: "x" }, { contact: alice })).toBeUndefined()
    expect(problem({ kind: "reaction", targetId: "HERS", targetFromMe: false, emoji: "👍" }, { contact: alice })).toBeUndefined()
    expect(problem({ kind: "revoke", targetId: "INGROUP" }, { group: team })).toBeUndefined()
  })

  test.each([
    { name: "a message of another chat", action: { kind: "revoke" as const, targetId: "INGROUP" }, chat: { contact: alice } },
    { name: "an unknown message", action: { kind: "edit" as const, targetId: "NONE", text: "x" }, chat: { contact: alice } },
    { name: "their message named as ours", action: { kind: "reaction" as const, targetId: "HERS", targetFromMe: true, emoji: "👍" }, chat: { contact: alice } },
  ])("$name is a problem", ({ action, chat }) => {
    expect(problem(action, chat)).toMatch(/^the (edit|revoke|reaction) names .+ the chat does not have$/)
  })
})
