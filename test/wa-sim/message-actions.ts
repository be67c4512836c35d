import { proto, type BinaryNode } from "@whiskeysockets/baileys"

/*
 * Reactions, edits and revokes as a contact's app reads them from a decrypted message, and the
 * stanza attributes WhatsApp's server routes them by. Sources (README.md, "Reactions, edits and
 * revokes"): Baileys 7.0.0-rc14 lib/Utils/messages.js (`react` → `reactionMessage`, `edit` →
 * `protocolMessage` MESSAGE_EDIT with `editedMessage`, `delete` → `protocolMessage` REVOKE) and
 * lib/Socket/messages-send.js (`type="reaction"`, `edit="1"` for an edit, `edit="7"` for the
 * sender's revoke, `edit="8"` for an admin's), and whatsmeow's send.go in tulir/whatsmeow
 * (`getEditAttribute`: the same values, and `edit="7"` also on a removed reaction, which Baileys
 * does not send: the simulator reads a reaction by its content and `type` alone).
 */

/** What a contact sees a message do to an earlier one. */
export type MessageAction =
  /** `emoji` is `""` when the reaction is taken back. `targetFromMe` is from the sender's side: true for the sender's own message. */
  | { kind: "reaction"; targetId: string; targetFromMe: boolean; emoji: string }
  | { kind: "edit"; targetId: string; text: string }
  | { kind: "revoke"; targetId: string }

/**
 * The action a decrypted message carries, if any, and what is wrong with it as WhatsApp would
 * see it: a stanza whose `type`/`edit` attribute does not match its content is not routed as one.
 */
export function readAction(message: proto.IMessage | undefined, stanza: BinaryNode): { action?: MessageAction; errors: string[] } {
  const errors: string[] = []
  const expect = (attr: "type" | "edit", value: string | undefined) => {
    if (stanza.attrs[attr] !== value) errors.push(`the stanza's ${attr} is ${JSON.stringify(stanza.attrs[attr])}, WhatsApp expects ${JSON.stringify(value)}`)
  }
  const reaction = message?.reactionMessage
  if (reaction) {
    expect("type", "reaction")
    if (!reaction.key?.id) errors.push("the reaction names no message")
    return { action: { kind: "reaction", targetId: reaction.key?.id ?? "", targetFromMe: reaction.key?.fromMe === true, emoji: reaction.text ?? "" }, errors }
  }
  const protocol = message?.protocolMessage
  if (protocol?.type === proto.Message.ProtocolMessage.Type.MESSAGE_EDIT) {
    expect("edit", "1")
    const edited = protocol.editedMessage
    const text = edited?.conversation ?? edited?.extendedTextMessage?.text
    if (!protocol.key?.id || !protocol.key.fromMe) errors.push("an edit must name one of the sender's own messages")
    if (typeof text !== "string") errors.push("the edit carries no text")
    return { action: { kind: "edit", targetId: protocol.key?.id ?? "", text: text ?? "" }, errors }
  }
  if (protocol?.type === proto.Message.ProtocolMessage.Type.REVOKE) {
    expect("edit", "7")
    if (!protocol.key?.id || !protocol.key.fromMe) errors.push("a revoke must name one of the sender's own messages")
    return { action: { kind: "revoke", targetId: protocol.key?.id ?? "" }, errors }
  }
  return { errors }
}

/** The chat a message belongs to, as the simulator knows it. */
export interface ChatOf {
  contact?: unknown
  group?: unknown
}

/**
 * Why the contact's app could not apply the action, or undefined when it can: the target must be
 * a message of the same chat, written by the sender (edits, revokes, reactions to its own) or by
 * someone else in it (reactions to a received message), as WhatsApp's apps find it by key.
 */
export function targetProblem(
  action: MessageAction,
  chat: ChatOf,
  ours: (id: string) => ChatOf | undefined,
  theirs: (id: string) => ChatOf | undefined,
): string | undefined {
  const fromMe = action.kind !== "reaction" || action.targetFromMe
  const target = fromMe ? ours(action.targetId) : theirs(action.targetId)
  const sameChat = target !== undefined && (chat.group !== undefined ? target.group === chat.group : target.group === undefined && target.contact === chat.contact)
  if (sameChat) return undefined
  return `the ${action.kind} names ${fromMe ? "a message of the sender" : "a received message"} ${action.targetId} the chat does not have`
}
