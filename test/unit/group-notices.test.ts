import { describe, expect, test } from "bun:test"
import type { GroupNotice } from "../../src/whatsapp/gateway"
import type { NotificationNode } from "../../src/whatsapp/baileys/adv-rotation"
import { createNoticeOnce, mapGroupNotification, mapPictureNotification, withJoinedSubject } from "../../src/whatsapp/baileys/group-notices"

/*
 * The mapping of WhatsApp's group notifications (src/whatsapp/baileys/group-notices.ts), one row
 * per kind of child as Baileys 7.0.0-rc14 (messages-recv.js handleGroupNotification) and whatsmeow
 * (group.go parseGroupChange) read them: who acted, what changed, in wagate's words.
 */

const GROUP = "120363000000000042@g.us"
const SELF = { id: "15550001111:3@s.whatsapp.net", lid: "900000000001:3@lid" }
const LIDS: Record<string, string> = { "900000000002@lid": "15550002222@s.whatsapp.net" }
const ctx = { self: SELF, pnForLid: async (lid: string) => LIDS[lid] ?? null, nowMs: 1_000 }

const p = (attrs: Record<string, string>): NotificationNode => ({ tag: "participant", attrs })
const gp2 = (children: NotificationNode[], attrs: Record<string, string> = {}): NotificationNode => ({
  tag: "notification",
  attrs: { from: GROUP, type: "w:gp2", id: "n1", t: "1700000000", participant: "15550003333@s.whatsapp.net", ...attrs },
  content: children,
})
const body = (text: string): NotificationNode => ({ tag: "body", attrs: {}, content: Buffer.from(text) })

const ROWS: { name: string; node: NotificationNode; changes: GroupNotice["changes"]; by?: string | null }[] = [
  { name: "subject", node: gp2([{ tag: "subject", attrs: { subject: "New name" } }]), changes: [{ kind: "updated", changes: { subject: "New name" } }] },
  { name: "subject with a control character is escaped", node: gp2([{ tag: "subject", attrs: { subject: "A\u001b[31mB" } }]), changes: [{ kind: "updated", changes: { subject: "A\\x1b[31mB" } }] },
  { name: "description set keeps its newlines", node: gp2([{ tag: "description", attrs: { id: "d" }, content: [body("line 1\nline 2")] }]), changes: [{ kind: "updated", changes: { description: "line 1\nline 2" } }] },
  { name: "description removed", node: gp2([{ tag: "description", attrs: { id: "d" }, content: [{ tag: "delete", attrs: {} }] }]), changes: [{ kind: "updated", changes: { description: "" } }] },
  { name: "announcement on", node: gp2([{ tag: "announcement", attrs: {} }]), changes: [{ kind: "updated", changes: { announce: true } }] },
  { name: "announcement off", node: gp2([{ tag: "not_announcement", attrs: {} }]), changes: [{ kind: "updated", changes: { announce: false } }] },
  { name: "locked", node: gp2([{ tag: "locked", attrs: {} }]), changes: [{ kind: "updated", changes: { locked: true } }] },
  { name: "unlocked", node: gp2([{ tag: "unlocked", attrs: {} }]), changes: [{ kind: "updated", changes: { locked: false } }] },
  { name: "member add mode: all", node: gp2([{ tag: "member_add_mode", attrs: {}, content: Buffer.from("all_member_add") }]), changes: [{ kind: "updated", changes: { memberAddMode: "all" } }] },
  { name: "member add mode: admins", node: gp2([{ tag: "member_add_mode", attrs: {}, content: "admin_add" }]), changes: [{ kind: "updated", changes: { memberAddMode: "admins" } }] },
  { name: "approval mode off", node: gp2([{ tag: "membership_approval_mode", attrs: {}, content: [{ tag: "group_join", attrs: { state: "off" } }] }]), changes: [{ kind: "updated", changes: { approvalMode: false } }] },
  { name: "approval mode with no state (whatsmeow's reading: on)", node: gp2([{ tag: "membership_approval_mode", attrs: {} }]), changes: [{ kind: "updated", changes: { approvalMode: true } }] },
  { name: "ephemeral 7 days", node: gp2([{ tag: "ephemeral", attrs: { expiration: "604800" } }]), changes: [{ kind: "updated", changes: { ephemeralSeconds: 604800 } }] },
  { name: "ephemeral off", node: gp2([{ tag: "not_ephemeral", attrs: {} }]), changes: [{ kind: "updated", changes: { ephemeralSeconds: 0 } }] },
  {
    name: "add names numbers, a LID with its number, a LID known to the directory, and a hidden one",
    node: gp2([
      {
        tag: "add",
        attrs: {},
        content: [p({ jid: "15550004444@s.whatsapp.net", lid: "900000000004@lid" }), p({ jid: "900000000005@lid", phone_number: "15550005555@s.whatsapp.net" }), p({ jid: "900000000002@lid" }), p({ jid: "900000000009@lid" })],
      },
    ]),
    changes: [{ kind: "participants", action: "added", participants: ["+15550004444", "+15550005555", "+15550002222", "900000000009@lid"] }],
  },
  { name: "remove", node: gp2([{ tag: "remove", attrs: {}, content: [p({ jid: "15550004444@s.whatsapp.net" })] }]), changes: [{ kind: "participants", action: "removed", participants: ["+15550004444"] }] },
  { name: "remove of the actor alone is a leave", node: gp2([{ tag: "remove", attrs: {}, content: [p({ jid: "15550003333@s.whatsapp.net" })] }]), changes: [{ kind: "participants", action: "left", participants: ["+15550003333"] }] },
  { name: "leave", node: gp2([{ tag: "leave", attrs: {}, content: [p({ jid: "15550004444@s.whatsapp.net" })] }]), changes: [{ kind: "participants", action: "left", participants: ["+15550004444"] }] },
  { name: "promote", node: gp2([{ tag: "promote", attrs: {}, content: [p({ jid: "15550001111@s.whatsapp.net" })] }]), changes: [{ kind: "participants", action: "promoted", participants: ["+15550001111"] }] },
  { name: "demote", node: gp2([{ tag: "demote", attrs: {}, content: [p({ jid: "15550004444@s.whatsapp.net" })] }]), changes: [{ kind: "participants", action: "demoted", participants: ["+15550004444"] }] },
  {
    name: "a membership request names the requester",
    node: gp2([{ tag: "created_membership_requests", attrs: { request_method: "invite_link" }, content: [p({ jid: "900000000005@lid", phone_number: "15550005555@s.whatsapp.net" })] }]),
    changes: [{ kind: "participants", action: "requested", participants: ["+15550005555"] }],
  },
  {
    name: "this phone added (by LID) is a join whose subject is looked up",
    node: gp2([{ tag: "add", attrs: {}, content: [p({ jid: "900000000001@lid", phone_number: "15550001111@s.whatsapp.net" })] }]),
    changes: [{ kind: "participants", action: "added", participants: ["+15550001111"] }, { kind: "joined", subject: "Looked up" }],
  },
  {
    name: "create carries the subject",
    node: gp2([{ tag: "create", attrs: { reason: "create" }, content: [{ tag: "group", attrs: { id: "120363000000000042", subject: "Fresh group", creator: "15550003333@s.whatsapp.net" } }] }]),
    changes: [{ kind: "joined", subject: "Fresh group" }],
  },
  {
    name: "several settings in one notification become one update",
    node: gp2([{ tag: "announcement", attrs: {} }, { tag: "locked", attrs: {} }, { tag: "subject", attrs: { subject: "Both" } }]),
    changes: [{ kind: "updated", changes: { announce: true, locked: true, subject: "Both" } }],
  },
  {
    name: "an actor named by LID with its number is that number",
    node: gp2([{ tag: "locked", attrs: {} }], { participant: "900000000007@lid", participant_pn: "15550007777@s.whatsapp.net" }),
    changes: [{ kind: "updated", changes: { locked: true } }],
    by: "+15550007777",
  },
  {
    name: "a change made on the phone itself, named by our own LID alone, is by our number",
    node: gp2([{ tag: "unlocked", attrs: {} }], { participant: "900000000001@lid" }),
    changes: [{ kind: "updated", changes: { locked: false } }],
    by: "+15550001111",
  },
  { name: "an actor WhatsApp does not name", node: gp2([{ tag: "locked", attrs: {} }], { participant: "" }), changes: [{ kind: "updated", changes: { locked: true } }], by: null },
]

describe("group notifications in wagate's words", () => {
  for (const row of ROWS) {
    test(`${row.name}`, async () => {
      const mapped = await mapGroupNotification(row.node, ctx)
      expect(mapped).not.toBeNull()
      const notice = await withJoinedSubject(mapped!, async () => "Looked up")
      expect(notice).toEqual({ groupId: GROUP, by: row.by === undefined ? "+15550003333" : row.by, atMs: 1_700_000_000_000, changes: row.changes })
    })
  }

  test("a notification that is not a group's, or carries nothing wagate tells, is no notice", async () => {
    expect(await mapGroupNotification({ ...gp2([{ tag: "locked", attrs: {} }]), attrs: { from: "15550003333@s.whatsapp.net", type: "w:gp2" } }, ctx)).toBeNull()
    expect(await mapGroupNotification(gp2([{ tag: "invite", attrs: { code: "abc" } }, { tag: "modify", attrs: {} }]), ctx)).toBeNull()
    expect(await mapGroupNotification(gp2([{ tag: "add", attrs: {} }]), ctx)).toBeNull()
  })

  test("a join whose subject cannot be looked up still says the phone joined, with an empty subject", async () => {
    const mapped = await mapGroupNotification(gp2([{ tag: "add", attrs: {}, content: [p({ jid: "15550001111@s.whatsapp.net" })] }]), ctx)
    const notice = await withJoinedSubject(mapped!, async () => Promise.reject(new Error("item-not-found")))
    expect(notice.changes[1]).toEqual({ kind: "joined", subject: "" })
  })

  test("a group's picture set or removed is an update naming its author; a user's picture is no notice", async () => {
    const picture = (child: NotificationNode, from = GROUP): NotificationNode => ({ tag: "notification", attrs: { from, type: "picture", id: "p1", t: "1700000000" }, content: [child] })
    expect(await mapPictureNotification(picture({ tag: "set", attrs: { id: "1", author: "15550003333@s.whatsapp.net" } }), ctx)).toEqual({
      groupId: GROUP,
      by: "+15550003333",
      atMs: 1_700_000_000_000,
      changes: [{ kind: "updated", changes: { picture: "set" } }],
    })
    expect((await mapPictureNotification(picture({ tag: "delete", attrs: { author: "900000000002@lid" } }), ctx))?.changes).toEqual([{ kind: "updated", changes: { picture: "removed" } }])
    expect(await mapPictureNotification(picture({ tag: "set", attrs: {} }, "15550003333@s.whatsapp.net"), ctx)).toBeNull()
  })

  test("the same notification (type, group and id) is let through once; another id passes", () => {
    const once = createNoticeOnce(2)
    const node = gp2([{ tag: "locked", attrs: {} }])
    expect(once(node)).toBe(true)
    expect(once(node)).toBe(false)
    expect(once({ ...node, attrs: { ...node.attrs, id: "n2" } })).toBe(true)
    expect(once({ ...node, attrs: { ...node.attrs, type: "picture" } })).toBe(true)
    // Bounded: the oldest is forgotten past the limit.
    expect(once(node)).toBe(true)
  })
})
