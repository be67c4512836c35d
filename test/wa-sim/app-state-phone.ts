import type { proto } from "@whiskeysockets/baileys"
import type { AccountAppState, CollectionName } from "./app-state"

/**
 * The account's app state as its phone sees it: a change made in the WhatsApp app (written as a
 * patch under the phone's key, then announced to the linked devices with `server_sync`), and a read
 * of what the server holds, so a test can assert what a client's `chatModify` wrote.
 *
 * Each change is the mutation WhatsApp's clients write for it: the index, collection and action
 * version of Baileys 7.0.0-rc14 `chatModificationToAppPatch` (lib/Utils/chat-utils.js) and
 * whatsmeow appstate/encode.go (`BuildMute`, `BuildPin`, `BuildArchive`, `BuildMarkChatAsRead`,
 * `BuildLabelEdit`, `BuildLabelChat`, `BuildSettingPushName`); contacts are `["contact", jid]` in
 * critical_unblock_low with a `contactAction` (whatsmeow's `IndexContact`).
 */

/** A contact in the phone's address book. */
export interface AddressBookEntry {
  fullName?: string
  firstName?: string
  /** The contact's LID jid, when the phone knows it. */
  lidJid?: string
  /** The contact's number jid, when the index is its LID. */
  pnJid?: string
}

/** A chat's settings as the server holds them. */
export interface ChatSettings {
  archived: boolean
  pinned: boolean
  /** Milliseconds since the epoch (-1: for ever); null when not muted. */
  mutedUntil: number | null
  /** The last `markChatAsRead` (false: marked unread); undefined when never set. */
  read: boolean | undefined
  /** Ids of the labels on the chat. */
  labels: string[]
}

export interface LabelEntry {
  id: string
  name: string
  color: number
  deleted: boolean
}

export class PhoneAppState {
  constructor(
    private readonly state: AccountAppState,
    private readonly announce: (name: CollectionName, version: number) => void,
    private readonly nowMs: () => number,
  ) {}

  archive(chatJid: string, archived = true): number {
    return this.change("regular_low", ["archive", chatJid], { archiveChatAction: { archived, messageRange: { lastMessageTimestamp: Math.floor(this.nowMs() / 1000) } } }, 3)
  }

  pin(chatJid: string, pinned = true): number {
    return this.change("regular_low", ["pin_v1", chatJid], { pinAction: { pinned } }, 5)
  }

  /** Mutes until `untilMs` (-1: for ever), or unmutes with null. */
  mute(chatJid: string, untilMs: number | null): number {
    return this.change("regular_high", ["mute", chatJid], { muteAction: untilMs === null ? { muted: false } : { muted: true, muteEndTimestamp: untilMs } }, 2)
  }

  markRead(chatJid: string, read = true): number {
    return this.change("regular_low", ["markChatAsRead", chatJid], { markChatAsReadAction: { read, messageRange: { lastMessageTimestamp: Math.floor(this.nowMs() / 1000) } } }, 3)
  }

  /** Saves a contact in the address book under a name (or the full entry); null deletes it. */
  contact(jid: string, entry: string | AddressBookEntry | null): number {
    if (entry === null) return this.change("critical_unblock_low", ["contact", jid], { contactAction: {} }, 2, true)
    const contactAction = typeof entry === "string" ? { fullName: entry, firstName: entry.split(" ")[0] } : entry
    return this.change("critical_unblock_low", ["contact", jid], { contactAction: { ...contactAction, saveOnPrimaryAddressbook: true } }, 2)
  }

  /** Creates or edits a label (WhatsApp Business); `deleted` removes it. */
  label(id: string, name: string, color: number, options: { deleted?: boolean } = {}): number {
    return this.change("regular", ["label_edit", id], { labelEditAction: { name, color, deleted: options.deleted ?? false } }, 3)
  }

  labelChat(labelId: string, chatJid: string, labeled = true): number {
    return this.change("regular", ["label_jid", labelId, chatJid], { labelAssociationAction: { labeled } }, 3)
  }

  pushName(name: string): number {
    return this.change("critical_block", ["setting_pushName"], { pushNameSetting: { name } }, 1)
  }

  /** What the server holds for a chat. */
  chat(chatJid: string): ChatSettings {
    const mute = this.state.current(["mute", chatJid])?.value.muteAction
    const labels = this.state
      .records("regular")
      .filter((stored) => stored.index[0] === "label_jid" && stored.index[2] === chatJid && stored.value.labelAssociationAction?.labeled)
      .map((stored) => stored.index[1]!)
    return {
      archived: !!this.state.current(["archive", chatJid])?.value.archiveChatAction?.archived,
      pinned: !!this.state.current(["pin_v1", chatJid])?.value.pinAction?.pinned,
      mutedUntil: mute?.muted ? Number(mute.muteEndTimestamp ?? -1) : null,
      read: this.state.current(["markChatAsRead", chatJid])?.value.markChatAsReadAction?.read ?? undefined,
      labels,
    }
  }

  /** The address book entry of a jid, or undefined. */
  contactOf(jid: string): proto.SyncActionValue.IContactAction | undefined {
    return this.state.current(["contact", jid])?.value.contactAction ?? undefined
  }

  labels(): LabelEntry[] {
    return this.state
      .records("regular")
      .filter((stored) => stored.index[0] === "label_edit")
      .map((stored) => {
        const edit = stored.value.labelEditAction ?? {}
        return { id: stored.index[1]!, name: edit.name ?? "", color: edit.color ?? 0, deleted: !!edit.deleted }
      })
  }

  pushNameSetting(): string | undefined {
    return this.state.current(["setting_pushName"])?.value.pushNameSetting?.name ?? undefined
  }

  version(name: CollectionName): number {
    return this.state.collection(name).version
  }

  /** Patches the server refused (bad MAC, stale version), oldest first. */
  get refusals(): AccountAppState["refusals"] {
    return this.state.refusals
  }

  private change(name: CollectionName, index: string[], value: proto.ISyncActionValue, apiVersion: number, remove = false): number {
    const version = this.state.phoneChange(name, index, { ...value, timestamp: this.nowMs() }, apiVersion, remove)
    this.announce(name, version)
    return version
  }
}
