import type { Chat, ChatUpdate, Contact, WASocket } from "@whiskeysockets/baileys"
import { ChangeSignal } from "./wait"

/** A label edit or association as Baileys emits it (`labels.edit`, `labels.association`). */
type LabelEdit = { id: string; name?: string; color?: number; deleted?: boolean }
type LabelAssociation = { type: "add" | "remove"; association: { type: string; chatId: string; labelId: string } }

/**
 * Records what Baileys makes of app-state sync (lib/Utils/chat-utils.js `processSyncAction`):
 * `chats.update`, `contacts.upsert`, `labels.edit`, `labels.association`, and the key id
 * `creds.update` sets when the key share arrives; waits on them instead of sleeping.
 */
export class AppStateEvents {
  readonly chatUpdates: ChatUpdate[] = []
  readonly contacts: Partial<Contact>[] = []
  readonly labelEdits: LabelEdit[] = []
  readonly labelAssociations: LabelAssociation[] = []
  private readonly changed = new ChangeSignal()

  constructor(private readonly sock: WASocket) {
    const record = <T>(list: T[], items: T[]) => {
      list.push(...items)
      this.changed.notify()
    }
    sock.ev.on("chats.update", (updates) => record(this.chatUpdates, updates))
    sock.ev.on("contacts.upsert", (contacts) => record(this.contacts, contacts))
    sock.ev.on("contacts.update", (contacts) => record(this.contacts, contacts))
    sock.ev.on("labels.edit", (label) => record(this.labelEdits, [label as LabelEdit]))
    sock.ev.on("labels.association", (association) => record(this.labelAssociations, [association as LabelAssociation]))
    sock.ev.on("creds.update", () => this.changed.notify())
  }

  /** Every update of one chat merged in order, as an app applying them would hold the chat. */
  chat(id: string): Partial<Chat> {
    return Object.assign({}, ...this.chatUpdates.filter((update) => update.id === id).map(({ conditional: _, ...update }) => update))
  }

  /** The newest name Baileys reported for a contact. */
  contactName(id: string): string | undefined {
    return this.contacts.filter((contact) => contact.id === id && contact.name).at(-1)?.name
  }

  /** The app-state key id Baileys stored from the phone's key share, once it did. */
  get keyId(): string | undefined {
    return this.sock.authState.creds.myAppStateKeyId
  }

  waitFor<T>(probe: () => T | undefined, what: string, timeoutMs = 5_000): Promise<T> {
    return this.changed.waitFor(probe, { timeoutMs, what })
  }
}
