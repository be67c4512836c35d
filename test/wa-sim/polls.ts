import { createCipheriv, createHash, hkdfSync, randomBytes } from "node:crypto"
import { proto } from "@whiskeysockets/baileys"
import { newMessageSecret } from "./message-secret"

/*
 * Polls as WhatsApp's apps write them (README.md, "Polls"). A poll is `pollCreationMessageV3`
 * (one answer) or `pollCreationMessage` (several), its options by name, with a fresh
 * `messageContextInfo.messageSecret` (Baileys 7.0.0-rc14 lib/Utils/messages.js). A vote is
 * `pollUpdateMessage { pollCreationMessageKey, vote: { encPayload, encIv }, senderTimestampMs }`:
 * a PollVoteMessage listing the SHA-256 of each option chosen, sealed with AES-256-GCM under
 * HKDF-SHA256(secret, info = poll id ‖ poll creator ‖ voter ‖ "Poll Vote") with the additional data
 * `<poll id>\0<voter>` (Baileys lib/Utils/process-message.js `decryptPollVote`, tulir/whatsmeow
 * msgsecret.go `EncryptPollVote`). Creator and voter are bare JIDs (no device), each the number's
 * or the LID's, as the voter's app chooses.
 */

/** A contact's poll, with the secret its votes are sealed with. */
export function pollMessage(poll: { question: string; options: string[]; multipleAnswers?: boolean }, secret: Uint8Array = newMessageSecret()): proto.IMessage {
  const creation = { name: poll.question, options: poll.options.map((optionName) => ({ optionName })), selectableOptionsCount: poll.multipleAnswers ? 0 : 1 }
  return {
    ...(poll.multipleAnswers ? { pollCreationMessage: creation } : { pollCreationMessageV3: creation }),
    messageContextInfo: { messageSecret: secret },
  }
}

/** The secret and options of a poll message (ours as a contact received it, or one a contact wrote). */
export function pollOf(message: proto.IMessage | undefined): { secret: Uint8Array; options: string[] } {
  const creation = message?.pollCreationMessage ?? message?.pollCreationMessageV2 ?? message?.pollCreationMessageV3
  const secret = message?.messageContextInfo?.messageSecret
  if (!creation || !secret) throw new Error("not a poll with a message secret")
  return { secret: new Uint8Array(secret), options: (creation.options ?? []).map((o) => o.optionName ?? "") }
}

export interface VoteInput {
  /** The poll's key as the voter names it: its chat, id, and whether the voter wrote it. */
  pollKey: proto.IMessageKey
  secret: Uint8Array
  /** The poll's author and the voter, bare JIDs, as the voter's app derives the key with. */
  creatorJid: string
  voterJid: string
  /** The options chosen, by name; none withdraws the vote. */
  chosen: string[]
  senderTimestampMs: number
}

/** The `pollUpdateMessage` a voter's app sends. */
export function voteMessage(input: VoteInput): proto.IMessage {
  const pollId = input.pollKey.id ?? ""
  const plain = proto.Message.PollVoteMessage.encode({ selectedOptions: input.chosen.map((o) => createHash("sha256").update(o).digest()) }).finish()
  const info = Buffer.from(`${pollId}${input.creatorJid}${input.voterJid}Poll Vote`, "utf8")
  const key = Buffer.from(hkdfSync("sha256", input.secret, Buffer.alloc(0), info, 32))
  const encIv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", key, encIv)
  cipher.setAAD(Buffer.from(`${pollId}\u0000${input.voterJid}`, "utf8"))
  const encPayload = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()])
  return {
    pollUpdateMessage: {
      pollCreationMessageKey: input.pollKey,
      vote: { encPayload, encIv },
      senderTimestampMs: input.senderTimestampMs,
    },
  }
}
