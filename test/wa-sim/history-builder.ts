import { proto } from "@whiskeysockets/baileys"

/*
 * A realistic account history for history sync (history-sync.ts), made up deterministically and
 * streamed: `historyChunks` yields one `HistorySync` chunk at a time and builds nothing ahead, so
 * 50,000 messages in 500 chats never sit in memory together.
 *
 * The order WhatsApp sends them in (Baileys 7.0.0-rc14 lib/Utils/history.js and lib/Socket/chats.js;
 * tulir/whatsmeow message.go): INITIAL_BOOTSTRAP first (the chat list, each chat's newest message,
 * the number↔LID mappings), then PUSH_NAME, then RECENT chunks with rising `progress` up to 100,
 * then FULL chunks for older messages when the companion asked for full history
 * (`DeviceProps.requireFullSync`). A conversation's messages are newest first (Baileys keeps the
 * first as the chat's last message). 1:1 chats are named by number with `lidJid`, or by LID with
 * `pnJid` (or without, for a contact that hides its number); groups list their participants, every
 * other group by LID (the mappings in the bootstrap give their numbers).
 *
 * Inferred, not from a source: the chat list in one bootstrap chunk, the newest message of each chat
 * sent again in RECENT or FULL (a consumer must deduplicate on the message id, as it must for
 * re-syncs), and `chunkOrder` counted per sync type.
 */

export interface HistoryWorld {
  /** The account's number and LID, digits only. */
  me: { phoneNumber: string; lid: string }
  nowMs: number
  /** Default 500. */
  chats?: number
  /** Messages in all chats together. Default 50,000. */
  messages?: number
  /** Every Nth chat is a group (0: none). Default 10. */
  groupEvery?: number
  /** Every Nth 1:1 chat is named by LID. Default 3. */
  lidEvery?: number
  /** Every Nth LID chat hides the contact's number (0: none). Default 0. */
  hiddenNumberEvery?: number
  /** Messages per RECENT/FULL chunk. Default 1,000. */
  messagesPerChunk?: number
  /** How far back the history goes. Default 365 days. */
  spanDays?: number
  /** RECENT covers this many days; older messages are FULL. Default 90. */
  recentDays?: number
  /** Send FULL chunks. Default true. */
  full?: boolean
}

/** One made-up chat, as a test can check it against what a client stored. */
export interface HistoryChat {
  index: number
  id: string
  isGroup: boolean
  name: string
  pnJid?: string
  lidJid?: string
  /** Group participants (without the account itself). */
  participants: HistoryContact[]
  /** How a group names its participants: by LID (every other group) or by number. */
  addressing: "pn" | "lid"
  messageCount: number
  lastAtS: number
}

export interface HistoryContact {
  pnJid?: string
  lidJid: string
  pushName: string
}

const DAY_S = 86_400
const FIRST = ["Ana", "Ben", "Chloé", "Dmitri", "Emeka", "Fatima", "Gustav", "Hana", "Ivan", "Jun", "Kofi", "Léa", "Mateo", "Nour", "Olga", "Priya"]
const LAST = ["Silva", "Okafor", "Müller", "Tanaka", "Haddad", "Novak", "Rossi", "Kim", "Dubois", "Singh", "O'Brien", "García"]
const PHRASES = ["Hi! Are we still on for tomorrow?", "Sure, see you at 10", "Can you send me the invoice?", "Thanks 🙏", "On my way", "The delivery arrived, all good", "Could you call me back?", "👍", "What time do you open on Saturday?", "Great, thank you!"]

const defaults = (world: HistoryWorld) => ({
  chats: world.chats ?? 500,
  messages: world.messages ?? 50_000,
  groupEvery: world.groupEvery ?? 10,
  lidEvery: world.lidEvery ?? 3,
  hiddenNumberEvery: world.hiddenNumberEvery ?? 0,
  perChunk: world.messagesPerChunk ?? 1_000,
  spanS: (world.spanDays ?? 365) * DAY_S,
  cutoffS: Math.floor(world.nowMs / 1000) - (world.recentDays ?? 90) * DAY_S,
  full: world.full ?? true,
})

/** The contact behind 1:1 chat `index` (also drawn into groups). */
export function historyContact(world: HistoryWorld, index: number): HistoryContact {
  const d = defaults(world)
  const lidChat = d.lidEvery > 0 && index % d.lidEvery === d.lidEvery - 1
  const hidden = lidChat && d.hiddenNumberEvery > 0 && Math.floor(index / d.lidEvery) % d.hiddenNumberEvery === d.hiddenNumberEvery - 1
  return {
    ...(hidden ? {} : { pnJid: `${15_557_000_000 + index}@s.whatsapp.net` }),
    lidJid: `${210_000_000_000_000 + index}@lid`,
    pushName: `${FIRST[index % FIRST.length]} ${LAST[Math.floor(index / FIRST.length) % LAST.length]}`,
  }
}

/** Chat `index` of the world (0 is the most recently active). */
export function historyChat(world: HistoryWorld, index: number): HistoryChat {
  const d = defaults(world)
  const messageCount = Math.floor(d.messages / d.chats) + (index < d.messages % d.chats ? 1 : 0)
  const lastAtS = Math.floor(world.nowMs / 1000) - 60 - index * 7 * 60
  if (d.groupEvery > 0 && index % d.groupEvery === 0) {
    const size = 3 + (index % 6)
    const participants = Array.from({ length: size }, (_, k) => historyContact(world, (index * 7 + k * 13 + 1) % d.chats))
    const addressing = (index / d.groupEvery) % 2 === 1 ? "lid" : "pn"
    return { index, id: `120363${400_000_000_000 + index}@g.us`, isGroup: true, name: `Team ${index}`, participants, addressing, messageCount, lastAtS }
  }
  const contact = historyContact(world, index)
  const byLid = contact.pnJid === undefined || (d.lidEvery > 0 && index % d.lidEvery === d.lidEvery - 1)
  const addressing = byLid ? "lid" : "pn"
  return { index, id: byLid ? contact.lidJid : contact.pnJid!, isGroup: false, name: contact.pushName, pnJid: contact.pnJid, lidJid: contact.lidJid, participants: [], addressing, messageCount, lastAtS }
}

/** How a group names one participant: its LID in a LID group or when it hides its number, else its number. */
export function participantJid(chat: HistoryChat, contact: HistoryContact): string {
  return chat.addressing === "lid" || !contact.pnJid ? contact.lidJid : contact.pnJid
}

/** Seconds between two messages of a chat, so its history spans `spanDays`. */
function spacingS(world: HistoryWorld, chat: HistoryChat): number {
  return Math.max(1, Math.floor(defaults(world).spanS / Math.max(1, chat.messageCount)))
}

/** The id of message `j` (0 = oldest) of chat `c`, as stable across re-syncs as WhatsApp's. */
export function historyMessageId(chat: number, j: number): string {
  return `3A${chat.toString(16).padStart(8, "0")}${j.toString(16).padStart(10, "0")}`.toUpperCase()
}

/** Message `j` (0 = oldest) of a chat, as the phone stores it. */
export function historyMessage(world: HistoryWorld, chat: HistoryChat, j: number): proto.IWebMessageInfo {
  const atS = chat.lastAtS - (chat.messageCount - 1 - j) * spacingS(world, chat)
  const fromMe = (j * 7 + chat.index) % 3 === 0
  const author = chat.isGroup ? chat.participants[j % chat.participants.length] : undefined
  const participant = author ? participantJid(chat, author) : undefined
  const text = PHRASES[(j + chat.index) % PHRASES.length]!
  let message: proto.IMessage = { conversation: text }
  if (j % 20 === 19) {
    message = { extendedTextMessage: { text, contextInfo: { stanzaId: historyMessageId(chat.index, j - 1), participant: participant ?? chat.id, quotedMessage: { conversation: "…" } } } }
  } else if (j % 50 === 49) {
    const key = Buffer.alloc(32, (chat.index + j) % 256)
    message = { imageMessage: { mimetype: "image/jpeg", caption: text, fileLength: 48_213, directPath: `/v/t62.7118-24/hist-${chat.index}-${j}.enc`, mediaKey: key, fileSha256: key, fileEncSha256: key, mediaKeyTimestamp: atS } }
  }
  return {
    key: { remoteJid: chat.id, fromMe, id: historyMessageId(chat.index, j), ...(author && !fromMe ? { participant } : {}) },
    message,
    messageTimestamp: atS,
    ...(fromMe ? { status: proto.WebMessageInfo.Status.READ } : { pushName: author?.pushName ?? chat.name }),
    ...(author && !fromMe ? { participant } : {}),
    ...(fromMe && !chat.isGroup ? { userReceipt: [{ userJid: chat.pnJid ?? chat.id, receiptTimestamp: atS + 2, readTimestamp: atS + 30 }] } : {}),
  }
}

/** A chat's conversation record (without messages): what the chat list shows. */
function conversationOf(chat: HistoryChat, me: HistoryWorld["me"]): proto.IConversation {
  return {
    id: chat.id,
    conversationTimestamp: chat.lastAtS,
    lastMsgTimestamp: chat.lastAtS,
    unreadCount: chat.index % 4 === 1 ? 1 + (chat.index % 5) : 0,
    ...(chat.isGroup
      ? { name: chat.name, participant: [{ userJid: chat.addressing === "lid" ? `${me.lid}@lid` : `${me.phoneNumber}@s.whatsapp.net`, rank: proto.GroupParticipant.Rank.SUPERADMIN }, ...chat.participants.map((p) => ({ userJid: participantJid(chat, p) }))] }
      : { displayName: chat.name, ...(chat.id.endsWith("@lid") ? (chat.pnJid ? { pnJid: chat.pnJid } : {}) : { lidJid: chat.lidJid }) }),
    ...(chat.index % 25 === 5 ? { archived: true } : {}),
    ...(chat.index < 3 ? { pinned: chat.lastAtS } : {}),
    ...(chat.index % 30 === 7 ? { muteEndTime: chat.lastAtS + 8 * 3_600 } : {}),
  }
}

/** How many messages of a chat are at or after `cutoffS`. */
function recentCount(world: HistoryWorld, chat: HistoryChat): number {
  const cutoff = defaults(world).cutoffS
  if (chat.lastAtS < cutoff || chat.messageCount === 0) return 0
  return Math.min(chat.messageCount, Math.floor((chat.lastAtS - cutoff) / spacingS(world, chat)) + 1)
}

/** What the whole world holds, computed without building it (for assertions). */
export function historyTotals(world: HistoryWorld): { chats: number; groups: number; messages: number; recentMessages: number; fullMessages: number } {
  const d = defaults(world)
  let groups = 0
  let recent = 0
  let messages = 0
  for (let c = 0; c < d.chats; c++) {
    const chat = historyChat(world, c)
    if (chat.isGroup) groups++
    messages += chat.messageCount
    recent += recentCount(world, chat)
  }
  return { chats: d.chats, groups, messages, recentMessages: recent, fullMessages: messages - recent }
}

type SyncType = proto.HistorySync.HistorySyncType

/** The chunks of one sync type over message ranges of every chat, `perChunk` messages at a time. */
function* messageChunks(world: HistoryWorld, syncType: SyncType, range: (chat: HistoryChat) => [number, number], total: number): Generator<proto.IHistorySync> {
  const d = defaults(world)
  let conversations: proto.IConversation[] = []
  let inChunk = 0
  let sent = 0
  let chunkOrder = 0
  const flush = (): proto.IHistorySync => {
    sent += inChunk
    const chunk = { syncType, chunkOrder: chunkOrder++, progress: sent >= total ? 100 : Math.floor((100 * sent) / total), conversations }
    conversations = []
    inChunk = 0
    return chunk
  }
  for (let c = 0; c < d.chats; c++) {
    const chat = historyChat(world, c)
    const [from, end] = range(chat)
    let to = end
    while (from < to) {
      const take = Math.min(to - from, d.perChunk - inChunk)
      const messages: proto.IHistorySyncMsg[] = []
      for (let j = to - 1; j >= to - take; j--) messages.push({ message: historyMessage(world, chat, j), msgOrderId: j })
      conversations.push({ ...conversationOf(chat, world.me), messages })
      inChunk += take
      to -= take
      if (inChunk >= d.perChunk) yield flush()
    }
  }
  if (inChunk > 0 || sent === 0) yield flush()
}

/** The whole sync, one chunk at a time (see the file comment). */
export function* historyChunks(world: HistoryWorld): Generator<proto.IHistorySync> {
  const d = defaults(world)
  const Type = proto.HistorySync.HistorySyncType
  const bootstrap: proto.IConversation[] = []
  const mappings: proto.IPhoneNumberToLIDMapping[] = []
  for (let c = 0; c < d.chats; c++) {
    const chat = historyChat(world, c)
    const newest = chat.messageCount > 0 ? [{ message: historyMessage(world, chat, chat.messageCount - 1), msgOrderId: chat.messageCount - 1 }] : []
    bootstrap.push({ ...conversationOf(chat, world.me), messages: newest })
    const contact = historyContact(world, c)
    if (contact.pnJid) mappings.push({ pnJid: contact.pnJid, lidJid: contact.lidJid })
  }
  yield { syncType: Type.INITIAL_BOOTSTRAP, chunkOrder: 0, progress: 100, conversations: bootstrap, phoneNumberToLidMappings: mappings }
  const pushnames: proto.IPushname[] = []
  for (let c = 0; c < d.chats; c++) {
    const contact = historyContact(world, c)
    pushnames.push({ id: contact.pnJid ?? contact.lidJid, pushname: contact.pushName })
  }
  yield { syncType: Type.PUSH_NAME, chunkOrder: 0, progress: 100, pushnames }
  const totals = historyTotals(world)
  yield* messageChunks(world, Type.RECENT, (chat) => [chat.messageCount - recentCount(world, chat), chat.messageCount], totals.recentMessages)
  if (d.full && totals.fullMessages > 0) yield* messageChunks(world, Type.FULL, (chat) => [0, chat.messageCount - recentCount(world, chat)], totals.fullMessages)
}

/** What a companion's `DeviceProps` asks for, as world options: full history or not, and how many recent days. */
export function historyAskedFor(props: proto.IDeviceProps | undefined): Pick<HistoryWorld, "full" | "recentDays"> {
  const days = props?.historySyncConfig?.recentSyncDaysLimit
  return { full: props?.requireFullSync ?? false, ...(days ? { recentDays: days } : {}) }
}
