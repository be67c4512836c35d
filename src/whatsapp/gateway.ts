/*
 * The WhatsApp boundary in wagate's own vocabulary. The domain drives phones through these
 * interfaces and hears from them through callbacks wired at the composition root; nothing
 * outside src/whatsapp/baileys/ knows Baileys exists, and tests plug in a fake.
 */

import type { GroupChangeAction, GroupMemberAddMode, GroupParticipantAction, InboundType, MessageErrorCode, PresenceState, ReceiptKind } from "../lib/vocabulary"
import type { ConnectionFailure } from "./failures"

/**
 * How long opening a connection and WhatsApp's handshake may take unless configured
 * (WAGATE_WA_CONNECT_TIMEOUT_MS). Under Baileys' 20 s, so that with the version lookup (3 s) a
 * host with no route to WhatsApp reports why within 20 s.
 */
export const DEFAULT_CONNECT_TIMEOUT_MS = 15_000

/**
 * How long after the connection opens wagate waits for `<ib><offline>` before it releases the
 * held events itself (WAGATE_WA_OFFLINE_MARKER_WAIT_MS; docs/live-whatsapp.md § "Receiving
 * stalls"). WhatsApp sends the marker right after the last queued stanza (Baileys asks for the
 * queue in batches of 100), so on a healthy connection it comes within seconds of the login; the
 * connections in WhiskeySockets/Baileys#2810 had it on time or never. A marker that is merely late
 * costs little when the watchdog fires first: the rest of the backlog is handed over unbatched,
 * and wagate maps `append` and `notify` upserts alike, so nothing is lost. 10 s is a third of
 * Baileys' own 30 s fallback.
 */
export const DEFAULT_OFFLINE_MARKER_WAIT_MS = 10_000

/**
 * How many phones may be opening a connection at once unless configured
 * (WAGATE_WA_CONNECT_CONCURRENCY); see docs/live-whatsapp.md § "Connect concurrency and boot stagger".
 */
export const DEFAULT_CONNECT_CONCURRENCY = 8

/** Why a connection ended, decided by the adapter from WhatsApp's close code. */
export type DisconnectReason =
  /** The device was unlinked (from the phone, or by us): credentials are void. */
  | "logged_out"
  /** The same credentials connected elsewhere. */
  | "replaced"
  /** WhatsApp refuses this account (banned). */
  | "forbidden"
  /** WhatsApp refused the client version (configure WAGATE_WA_VERSION). */
  | "outdated_version"
  /** The multi-device protocol does not match. */
  | "multidevice_mismatch"
  /** WhatsApp asks for a new socket at once (after pairing, and sometimes later). */
  | "restart_required"
  /** The pairing QR codes or the pairing code expired unused. */
  | "pairing_expired"
  /** WhatsApp asked for a passkey to link the device (passkey-gate.ts): no attempt can answer it. */
  | "passkey_required"
  /** The network or the server dropped us: reconnect. */
  | "connection_lost"
  /** A session error WhatsApp may recover from. */
  | "bad_session"
  /** We closed it. */
  | "closed_by_us"

/**
 * Why WhatsApp refused one of our parts, in wagate's vocabulary: the adapter maps WhatsApp's
 * error codes to the message error code an API client sees, so nothing past the port decides
 * anything on a WhatsApp number.
 */
export interface PartRejection {
  code: Extract<MessageErrorCode, "account_restricted" | "privacy_token_missing" | "whatsapp_rejected">
  /** WhatsApp's own word for it ("479"), only quoted in the message's errorMessage for support. */
  detail: string
  /**
   * For WhatsApp's error 463: whether the part carried the contact's privacy token (true), carried
   * none because wagate holds none (false), or wagate cannot tell (absent, e.g. sent before a restart).
   */
  privacyTokenAttached?: boolean
}

/** A WhatsApp-side media kind; one media URL becomes one part of this kind. */
export type MediaKind = "image" | "video" | "audio" | "document"

/** The message a part replies to, as WhatsApp's quoted context names it. */
export interface QuotedPart {
  /** The quoted message's WhatsApp id. */
  waMessageId: string
  /** True for one of the phone's own parts, false for a message the phone received. */
  fromMe: boolean
  /** Who wrote a received message: E.164, or the `…@lid` JID when WhatsApp hid the number. */
  from?: string
  /** The quoted message's text as wagate recorded it, shown by apps that lack the original. */
  text: string
}

/** One WhatsApp message of a wagate message (text, one media with an optional caption, a location or a contact card). */
export interface OutboundPart {
  /** Derived from the msg_ id, so a part re-sent after a crash keeps its WhatsApp id. */
  waMessageId: string
  /** The JID to send to: `<digits>@s.whatsapp.net` from the number check, or `…@g.us`. */
  toJid: string
  text?: string
  /** A file wagate downloaded itself; the adapter streams it from disk and never deletes it. */
  media?: { kind: MediaKind; path: string; sizeBytes: number; mimetype: string; fileName?: string; caption?: string; voiceNote?: boolean }
  location?: { latitude: number; longitude: number; name?: string; address?: string }
  /** A contact card: the name shown and the vCard wagate built. */
  contact?: { displayName: string; vcard: string }
  /** A poll; a voter picks one option unless `multipleAnswers`. */
  poll?: { question: string; options: string[]; multipleAnswers: boolean }
  /** The message this part replies to. */
  quote?: QuotedPart
  /** E.164 numbers mentioned in the text or caption. */
  mentions?: string[]
}

/**
 * Which WhatsApp message a reaction, an edit, a revoke or a read receipt is about: WhatsApp
 * names a message by its chat, its id and whether this phone wrote it (in a group, someone
 * else's message also by its author).
 */
export interface WaMessageRef {
  /** The chat: `<digits>@s.whatsapp.net`, a `…@lid` JID, or `…@g.us`. */
  chatJid: string
  waMessageId: string
  /** True for a message this phone sent. */
  fromMe: boolean
  /** In a group, the JID of the author of someone else's message. */
  authorJid?: string
}

/** A group as WhatsApp reports it, seen from the connected phone. */
export interface GroupInfo {
  id: string
  name: string
  /** Only admins may post (announcement group, or a community's announcement group). */
  announcementOnly: boolean
  selfIsMember: boolean
  selfIsAdmin: boolean
}

/** An inbound message, already mapped to the spec's types. */
export interface InboundMessage {
  waMessageId: string
  /** The sender as E.164, or the raw JID (…@lid) when WhatsApp hides the number. */
  from: string
  isGroup: boolean
  groupId: string | null
  type: InboundType
  content: string
  receivedAtMs: number
  /** The richer fields (inbound-details.ts); absent on a plain text. */
  details?: InboundDetails
  /** What WhatsApp told about the sender beside `from`; absent when it told nothing more. */
  sender?: InboundSender
}

/** A message the phone (or another linked device of the account) sent itself, seen by wagate's device. */
export interface EchoMessage {
  waMessageId: string
  /** The chat: the contact as E.164 (or `…@lid` when WhatsApp hides the number), or the group JID. */
  chatId: string
  isGroup: boolean
  type: InboundType
  content: string
  /** When the phone sent it (WhatsApp's timestamp). */
  atMs: number
  details?: InboundDetails
}

/** Which part of a history sync a chunk belongs to, in WhatsApp's order (docs/admin.md § "History on pairing"). */
export type HistoryChunkKind = "bootstrap" | "push_names" | "recent" | "full" | "other"

/** A message of the phone's past, from a history chunk: one the phone sent (`fromMe`) or received. */
export interface HistoryMessage extends EchoMessage {
  fromMe: boolean
  /** The sender of a received message: E.164, or `…@lid` when WhatsApp hides the number; null for `fromMe`. */
  from: string | null
}

/** A contact a history chunk named: number and LID as far as WhatsApp told them, and its push name (raw text). */
export interface HistoryContact {
  /** E.164 when the number is known, else the `…@lid` JID. */
  contact: string
  phoneNumber: string | null
  lid: string | null
  pushName: string | null
}

/** One history chunk, downloaded and decoded by the adapter; `failed` when it could not be (expired, undecryptable). */
export interface HistoryChunk {
  kind: HistoryChunkKind
  /** WhatsApp's progress of this part of the sync, 0..100; null when it named none. */
  progress: number | null
  messages: HistoryMessage[]
  contacts: HistoryContact[]
  failed: boolean
}

/** A sender's identities and names as a received message named them, already made safe. */
export interface InboundSender {
  /** Its LID (`…@lid`), when WhatsApp named one. */
  lid: string | null
  /** Its number (E.164), when WhatsApp named it or wagate knew its LID's number. */
  phoneNumber: string | null
  /** Its WhatsApp username (letters, digits, `.` and `_`), when the stanza carried one. */
  username: string | null
  /** The name it gave itself, made safe. */
  pushName: string | null
}

/** A place on the map (a location message), in the shape sends use. */
export interface InboundLocation {
  latitude: number
  longitude: number
  name?: string
  address?: string
}

/** A contact card, read from its vCard, in the shape sends use. */
export interface InboundContact {
  name: string
  /** E.164 numbers; those the card names in another form are left out. */
  phoneNumbers: string[]
  organization?: string
  email?: string
}

/**
 * An inbound attachment: what the API shows, and the adapter's own descriptor (opaque to the
 * domain, stored with the inbound row) from which it can fetch the file again later.
 */
export interface InboundMedia {
  mimetype: string
  sizeBytes: number
  fileName: string | null
  /** The size cap that applies: image, video and audio 16 MiB, documents 100 MiB (stickers count as images). */
  capKind: MediaKind
  descriptor: string
}

/** A contact's poll: the question and options made safe, with the hash of each option as sent (what votes name). */
export interface InboundPoll {
  question: string
  options: string[]
  /** SHA-256 (hex) of each option's text as the poll carried it, in the options' order. */
  optionHashes: string[]
  multipleAnswers: boolean
}

/** What an inbound message carries beyond its type and text. */
export interface InboundDetails {
  /** The WhatsApp id of the message it quotes, when it quotes one. */
  quotedWaMessageId?: string | null
  media?: InboundMedia | null
  location?: InboundLocation | null
  contact?: InboundContact | null
  poll?: InboundPoll | null
}

/** A poll vote, decrypted: the poll's WhatsApp id, the voter and the SHA-256 (hex) of each option chosen. */
export interface PollVoteSeen {
  pollWaMessageId: string
  /** E.164 when WhatsApp told the number, else the `…@lid` JID. */
  voter: string
  /** None: the voter withdrew their vote. */
  optionHashes: string[]
  /** The vote's own time, which decides which of a voter's votes is the newest. */
  atMs: number
  /** Set when the vote had been kept undecrypted: its vote message's id, forgotten when the vote is recorded. */
  keptAs?: string
}

/** A reaction, an edit or a deletion for everyone, sent by a contact about an earlier message. */
export type InboundAction =
  | { kind: "reaction"; targetWaMessageId: string; targetFromMe: boolean; from: string; emoji: string; atMs: number }
  | { kind: "edit"; targetWaMessageId: string; from: string; content: string; atMs: number }
  | { kind: "revoke"; targetWaMessageId: string; from: string; atMs: number }

/** wagate holds no secret for a poll (it arrived before the phone was linked, or its secret was pruned), so it cannot vote on it. */
export class PollSecretMissingError extends Error {
  constructor() {
    super("no secret is stored for this poll")
    this.name = "PollSecretMissingError"
  }
}

/**
 * What happened to an incoming call, in wagate's words (src/whatsapp/baileys/calls.ts reads
 * WhatsApp's `<call>` stanzas): offered (it rings), accepted or rejected on another device of
 * the account, timed out unanswered, or terminated (the caller hung up, or the call ended).
 */
export type CallStage = "offered" | "accepted_elsewhere" | "rejected" | "timed_out" | "terminated"

/** One step of an incoming call. */
export interface CallSignal {
  callId: string
  stage: CallStage
  /** The caller: E.164 when WhatsApp told the number, else the `…@lid` JID. */
  from: string
  /** Where a reject goes: the call's creator as WhatsApp named it. */
  callerJid: string
  isVideo: boolean
  isGroup: boolean
  atMs: number
}

/** A group's settings that changed, by the names of `PATCH /v1/groups/{groupId}` (plus the picture). */
export interface GroupSettingsChanges {
  subject?: string
  /** `""` when the description was removed. */
  description?: string
  announce?: boolean
  locked?: boolean
  memberAddMode?: GroupMemberAddMode
  approvalMode?: boolean
  /** 0 when disappearing messages were turned off. */
  ephemeralSeconds?: number
  picture?: "set" | "removed"
}

/** One change to a group; participants are E.164 when WhatsApp tells the number, else `…@lid`. */
export type GroupChange =
  | { kind: "joined"; subject: string }
  | { kind: "participants"; action: GroupChangeAction; participants: string[] }
  | { kind: "updated"; changes: GroupSettingsChanges }

/** What one group notification of WhatsApp's said: who changed what in which group, and when. */
export interface GroupNotice {
  groupId: string
  /** Who made the changes: E.164, `…@lid`, or null when WhatsApp does not say. */
  by: string | null
  atMs: number
  changes: GroupChange[]
}

/** WhatsApp no longer has the file (its media host answered 404 or 410, or the phone refused to upload it again). */
export class MediaGoneError extends Error {
  constructor(readonly httpStatus: number | null) {
    super(httpStatus === null ? "WhatsApp no longer has this media" : `WhatsApp's media host answered ${httpStatus}`)
    this.name = "MediaGoneError"
  }
}

/** The file is larger than the cap it was downloaded under. */
export class MediaTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the media is larger than ${maxBytes} bytes`)
    this.name = "MediaTooLargeError"
  }
}

// ---- Groups this phone runs (docs/api.md § "Run groups: create, detail, settings, participants, invites, join, leave"): the port's group block. ----

/** Someone WhatsApp names in a group: the JID it lists, and the number and LID when it told them. */
export interface GroupPerson {
  jid: string
  /** E.164, when WhatsApp told the number. */
  phoneNumber: string | null
  /** The `…@lid` JID, when WhatsApp told it. */
  lid: string | null
}

export interface GroupMemberInfo extends GroupPerson {
  isAdmin: boolean
  /** The group's creator (WhatsApp's `superadmin`). */
  isSuperAdmin: boolean
}

/** A group's settings, as `PATCH /v1/groups/{groupId}` names them. */
export interface GroupSettingsInfo {
  /** Only admins may post. */
  announce: boolean
  /** Only admins may change the subject, description and picture. */
  locked: boolean
  memberAddMode: GroupMemberAddMode
  /** Admins approve who joins by link. */
  approvalMode: boolean
  /** The disappearing-messages timer, 0 when off. */
  ephemeralSeconds: number
}

/** A group as WhatsApp's metadata describes it, seen from the connected phone. */
export interface GroupDetailInfo extends GroupSettingsInfo {
  id: string
  subject: string
  description: string | null
  owner: GroupPerson | null
  createdAtMs: number | null
  isCommunityAnnounce: boolean
  participants: GroupMemberInfo[]
  /** People waiting for an admin to approve their join (empty when the phone may not see them). */
  pendingRequests: GroupPerson[]
  /** Whether WhatsApp has a picture for the group. */
  hasPicture: boolean
}

/** Changes to a group; absent fields stay. */
export type GroupChanges = Partial<GroupSettingsInfo & { subject: string; description: string }>

/** What WhatsApp answered for one participant of a create or an action, in wagate's words. */
export type GroupMemberOutcome =
  | { jid: string; outcome: "done" }
  /** Their privacy settings refused the add; WhatsApp handed back an invite the phone may send them. */
  | { jid: string; outcome: "privacy_refused"; invite: { code: string; expiresAtMs: number } }
  | { jid: string; outcome: "not_in_group" }
  | { jid: string; outcome: "not_on_whatsapp" }
  /** Anything else; `detail` is WhatsApp's word for it ("409"), quoted to clients as the result's errorCode. */
  | { jid: string; outcome: "failed"; detail: string }

/** Why WhatsApp refused a group request as a whole. */
export type GroupRefusal = "not_found" | "not_admin" | "invite_invalid" | "refused"

/** WhatsApp refused a group request; `reason` is the adapter's reading of WhatsApp's answer. */
export class GroupRefusedError extends Error {
  constructor(
    readonly reason: GroupRefusal,
    readonly detail: string,
  ) {
    super(`WhatsApp refused the group request (${reason}, ${detail})`)
    this.name = "GroupRefusedError"
  }
}

/** What joining by an invite code did: joined (the group's id), or asked the admins to approve. */
export type GroupJoinOutcome = { joined: true; groupJid: string } | { joined: false }

/** A phone's group requests. Every method rejects when not connected, and with GroupRefusedError when WhatsApp refuses. */
export interface WhatsAppGroups {
  create(subject: string, participantJids: string[]): Promise<{ detail: GroupDetailInfo; outcomes: GroupMemberOutcome[] }>
  detail(groupJid: string): Promise<GroupDetailInfo>
  /** Applies the changes one WhatsApp request each, in a fixed order; stops at the first refusal. */
  update(groupJid: string, changes: GroupChanges): Promise<void>
  participants(groupJid: string, action: GroupParticipantAction, jids: string[]): Promise<GroupMemberOutcome[]>
  inviteCode(groupJid: string): Promise<string>
  /** Revokes the invite code; resolves to the new one. */
  revokeInvite(groupJid: string): Promise<string>
  join(code: string): Promise<GroupJoinOutcome>
  leave(groupJid: string): Promise<void>
  /** Sends WhatsApp's group invite message (as the app does when privacy refuses an add). */
  sendInvite(toJid: string, invite: { groupJid: string; subject: string; code: string; expiresAtMs: number }): Promise<void>
}

// ---- end of the groups block ----

/** What a session reports. Every callback is synchronous from the adapter's point of view. */
export interface SessionEvents {
  /** The socket is being opened, announcing this WhatsApp Web version (x.y.z). */
  connecting(info: { waVersion: string }): void
  /** A QR code to show (the raw string to render). */
  qr(qr: string): void
  /** The 8-character code to type on the phone. */
  pairingCode(code: string): void
  /**
   * The QR was scanned or the code typed: WhatsApp accepted this device. The CPU-heavy part of
   * pairing (signature checks, then a fresh socket's login with the first pre-keys) runs next.
   */
  scanned(): void
  /** Logged in: `phoneNumber` is the E.164 of the WhatsApp account the device belongs to. */
  connected(info: { phoneNumber: string }): void
  /**
   * The session ended (once). `final` is the adapter's decision that reconnecting cannot help
   * (the device was unlinked, replaced, refused, or we closed it); `failure` says why in the
   * operator's vocabulary, null when nothing failed (we closed it, or WhatsApp asked for a fresh
   * socket).
   */
  disconnected(info: { reason: DisconnectReason; final: boolean; failure: ConnectionFailure | null }): void
  /** WhatsApp's server accepted a part (the success ack). */
  partAcked(waMessageId: string, atMs: number): void
  /** WhatsApp refused a part (an error ack), translated by the adapter. */
  partRejected(waMessageId: string, rejection: PartRejection, atMs: number): void
  /** A delivery or read receipt for one of our parts (1:1 or any group participant). */
  receipt(waMessageId: string, kind: ReceiptKind, atMs: number): void
  inbound(message: InboundMessage): void
  /** The phone or another linked device sent a message itself (optional: a listener that keeps no chats ignores it). */
  echo?(message: EchoMessage): void
  /** A contact reacted to, edited or deleted an earlier message (optional: a listener that records no inbound ignores it). */
  inboundAction?(action: InboundAction): void
  /**
   * A chunk of the phone's history landed (optional). The adapter waits for the returned promise
   * before it reads the next chunk, so a history is stored chunk by chunk, never held whole.
   */
  historyChunk?(chunk: HistoryChunk): Promise<void>
  /** A poll vote was decrypted (optional: a listener that records no inbound ignores it). */
  pollVote?(vote: PollVoteSeen): void
  /** A step of an incoming call (optional: a listener that keeps no calls ignores it). */
  call?(signal: CallSignal): void
  /** A group of this phone changed, or this phone joined one (optional: a listener that records no events ignores it). */
  groupChanged?(notice: GroupNotice): void
  /**
   * WhatsApp's end-of-offline-queue marker had not come in time after login, so the adapter
   * released the inbound events it was holding (docs/live-whatsapp.md § "Receiving stalls");
   * `held` says whether any were. Optional: a listener that keeps no phone state ignores it.
   */
  offlineMarkerMissed?(info: { atMs: number; waitMs: number; held: boolean }): void
  /**
   * WhatsApp announced when it expects to stop accepting the client version this socket announced
   * (`waVersion`); optional: a listener that keeps no phone state ignores it.
   */
  clientExpiration?(info: { expiresAtMs: number; waVersion: string }): void
  /** The block list changed (on the phone, or by us): these contacts (as fetchBlocklist names them) are now blocked or unblocked. Optional. */
  blocklistChanged?(change: { contacts: string[]; blocked: boolean }): void
  // App state from the phone (docs/api.md § "Chats and contacts"): what the phone's owner changed there.
  /** A chat was archived, pinned, muted or marked read/unread on the phone (or another linked device). Optional. */
  chatChangedOnPhone?(change: PhoneChatChange): void
  /** Contacts of the phone's address book were saved or renamed there. Optional. */
  addressBook?(contacts: AddressBookContact[]): void
  /** A WhatsApp Business label was put on a chat, or taken off it, on the phone. Optional. */
  chatLabelledOnPhone?(change: PhoneChatLabel): void
  /** A WhatsApp Business label was made, renamed, recoloured or deleted on the phone. Optional. */
  labelEditedOnPhone?(label: PhoneLabel): void
}

/** A label as the phone's app state tells it (`name` raw text: the domain bounds it). */
export interface PhoneLabel {
  labelId: string
  name: string
  color: number
  deleted: boolean
  atMs: number
}

/** A label put on (or taken off) a chat on the phone, from WhatsApp's app state. */
export interface PhoneChatLabel {
  /** As PhoneChatChange names it. */
  chat: string
  labelId: string
  labeled: boolean
  atMs: number
}

/** A chat change the phone made, from WhatsApp's app state. */
export interface PhoneChatChange {
  /** E.164 when the number is known, else the `…@lid` JID; a group's JID. */
  chat: string
  change: ChatModification
  atMs: number
}

/** A contact as the phone's address book (app state) names it. */
export interface AddressBookContact {
  /** E.164 when the number is known, else the `…@lid` JID. */
  contact: string
  phoneNumber: string | null
  lid: string | null
  /** Raw text from WhatsApp: the domain bounds it. */
  name: string
}

/** One phone's connection to WhatsApp. */
export interface WhatsAppSession {
  /** Opens the socket: logs in when paired, else starts pairing by QR or by code. */
  connect(pairing?: { method: "qr" } | { method: "code"; phoneNumber: string }): void
  /** Closes the socket and keeps the credentials. */
  close(): Promise<void>
  /** Unlinks the device from the phone (best effort) and wipes the credentials. */
  logout(): Promise<void>
  /** Writes one part to the socket; rejects when not connected. The ack comes later as an event. */
  sendPart(part: OutboundPart): Promise<void>
  /** Which numbers (E.164) are on WhatsApp, with the JID to send to; absent numbers map to null. */
  checkNumbers(phoneNumbers: string[]): Promise<Map<string, string | null>>
  /** Every group the phone participates in. */
  fetchGroups(): Promise<GroupInfo[]>
  /** Shows (or stops showing) typing or recording in a chat; rejects when not connected. */
  sendPresence(toJid: string, state: PresenceState): Promise<void>
  /** Reacts to a message with one emoji; `""` removes this phone's reaction. Rejects when not connected. */
  react(target: WaMessageRef, emoji: string): Promise<void>
  /** Replaces the text (or caption) of a message this phone sent. Rejects when not connected. */
  editText(target: WaMessageRef, text: string): Promise<void>
  /** Deletes a message this phone sent for everyone in the chat. Rejects when not connected. */
  revoke(target: WaMessageRef): Promise<void>
  /**
   * Votes on a contact's poll with the options whose SHA-256 (hex) is given (none withdraws the
   * vote), sealed with the poll's stored secret. Rejects when not connected or when no secret of
   * the poll is stored (PollSecretMissingError).
   */
  votePoll(target: WaMessageRef, optionHashes: string[]): Promise<void>
  /** Sends read receipts for received messages (any chats). Rejects when not connected. */
  markRead(targets: WaMessageRef[]): Promise<void>
  /**
   * Downloads an inbound attachment, decrypts and checks it, and streams it into `path` (created
   * with mode 0600). Throws MediaGoneError when WhatsApp no longer has it, MediaTooLargeError past
   * `maxBytes`; on any failure nothing is left at `path`. Returns the plaintext's size.
   */
  downloadMedia(descriptor: string, path: string, maxBytes: number): Promise<number>
  /** Rejects a ringing incoming call, as the app's decline button does. Rejects when not connected. */
  rejectCall(callId: string, callerJid: string): Promise<void>
  /** Asks the sender's phone to upload the file again; resolves to the new descriptor, or throws MediaGoneError. */
  reuploadMedia(descriptor: string): Promise<string>
  /** Creating and running groups. */
  readonly groups: WhatsAppGroups

  // Our own profile and group pictures (docs/api.md § "Pictures and the phone's own profile"). All reject when not connected.
  /** Sets this phone's picture (`groupJid` null) or a group's; `jpeg` is the converted 640 × 640 JPEG. */
  setPicture(groupJid: string | null, jpeg: Uint8Array): Promise<void>
  /** Removes this phone's picture (`groupJid` null) or a group's. */
  removePicture(groupJid: string | null): Promise<void>
  /** Sets the push name contacts see for this phone. */
  setProfileName(name: string): Promise<void>
  /** Sets this phone's about text. */
  setAbout(about: string): Promise<void>

  // Blocks and profiles (docs/api.md § "Blocking" and docs/api.md § "Contact profiles").
  /** The contacts this phone blocks: E.164 when WhatsApp or the LID mapping names the number, else the `…@lid` JID. */
  fetchBlocklist(): Promise<string[]>
  /** Blocks or unblocks a contact (a phone-number or LID JID); rejects when WhatsApp refuses. */
  setBlocked(jid: string, blocked: boolean): Promise<void>
  /** The contact's about text and when it was set; null when privacy hides it or there is none. */
  fetchAbout(jid: string): Promise<{ text: string; setAtMs: number | null } | null>
  /** The business profile of a WhatsApp Business account; null for an ordinary account. */
  fetchBusinessProfile(jid: string): Promise<BusinessProfileInfo | null>
  /** The contact's or group's picture: WhatsApp's expiring URL and its picture id; null when there is none or privacy hides it. */
  pictureOf(jid: string): Promise<{ url: string; pictureId: string } | null>
  /** Downloads a picture URL pictureOf named into `path` (mode 0600); past `maxBytes`, MediaTooLargeError. Returns its size. */
  downloadPicture(url: string, path: string, maxBytes: number): Promise<number>

  // Chats (docs/api.md § "Chats and contacts").
  /**
   * Writes a chat change to WhatsApp's app state, so the phone shows it: one patch per field
   * named. `last` is the chat's newest message, which archive and read marks name; rejects when
   * WhatsApp (or the missing app-state keys) refuses.
   */
  modifyChat(chatJid: string, change: ChatModification, last: { ref: WaMessageRef; atMs: number } | null): Promise<void>

  // Labels (docs/api.md § "Labels").
  /** True when the phone runs the WhatsApp Business app, as the pairing told it; labels exist only there. */
  isBusinessAccount(): Promise<boolean>
  /** Creates or edits a label in WhatsApp's app state (`label_edit`); rejects when WhatsApp refuses. */
  writeLabel(label: { labelId: string; name: string; color: number }): Promise<void>
  /** Puts a label on a chat, or takes it off, in WhatsApp's app state (`label_jid`); rejects when WhatsApp refuses. */
  labelChat(chatJid: string, labelId: string, labeled: boolean): Promise<void>
}

/** A chat change as the port takes it (docs/api.md § "Chats and contacts"). */
export interface ChatModification {
  archived?: boolean
  pinned?: boolean
  /** Epoch ms the chat stays muted until; null unmutes. */
  mutedUntilMs?: number | null
  /** false marks the chat read, true unread. */
  unread?: boolean
}

/** A WhatsApp Business account's profile, as WhatsApp tells it (raw text: the domain bounds it). */
export interface BusinessProfileInfo {
  description: string | null
  category: string | null
  email: string | null
  websites: string[]
  address: string | null
}

/** Makes sessions; one per phone id. */
export interface WhatsAppGateway {
  session(phoneId: string, events: SessionEvents): WhatsAppSession
  /** True when credentials are stored for the phone (it was paired and not logged out). */
  hasCredentials(phoneId: string): Promise<boolean>
  /** Forgets a phone's credentials and keys (removal, logout). */
  wipeCredentials(phoneId: string): void
}
