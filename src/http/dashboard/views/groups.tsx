import type { GroupDetail, GroupParticipant } from "../../../domain/group-model"
import type { Group } from "../../../domain/groups"
import { GROUP_EPHEMERAL_SECONDS } from "../../../lib/vocabulary"
import type { FormWords } from "../context"
import { href, type Scope } from "../scope"
import { CsrfField } from "./layout"
import { Clip, StackTable, type Column } from "./parts"

/** A group's address in the dashboard, under its phone. */
export function groupPath(phoneId: string, groupId?: string): string {
  const base = `/dashboard/phones/${encodeURIComponent(phoneId)}/groups`
  return groupId === undefined ? base : `${base}/${encodeURIComponent(groupId)}`
}

/** The groups of a phone, each a link to its page. */
export function GroupsTable(props: { groups: readonly Group[]; phoneId: string; scope: Scope }) {
  if (props.groups.length === 0) return <p class="muted">This phone is in no group.</p>
  const columns: Column<Group>[] = [
    {
      label: "Group",
      cell: (g) => (
        <a href={href(groupPath(props.phoneId, g.id), props.scope)}>
          <Clip text={g.name || g.id} />
        </a>
      ),
    },
    { label: "Id", cell: (g) => <Clip text={g.id} code /> },
    { label: "Kind", cell: (g) => (g.isCommunityAnnounce ? <span class="badge">community announcements</span> : "group") },
  ]
  return <StackTable columns={columns} rows={props.groups} />
}

/** A member's role, as WhatsApp's apps name it. */
export function roleOf(p: GroupParticipant): "Super admin" | "Admin" | "Member" {
  return p.isSuperAdmin ? "Super admin" : p.isAdmin ? "Admin" : "Member"
}

const ROLE_ORDER = { "Super admin": 0, Admin: 1, Member: 2 } as const

/** A member: its number, or its LID when WhatsApp hides the number; this phone marked. */
function MemberName(props: { p: GroupParticipant; self: string }) {
  const { p } = props
  if (p.phoneNumber === null) {
    return (
      <>
        <Clip text={p.lid ?? p.id} code /> <span class="muted">(number hidden)</span>
      </>
    )
  }
  return (
    <>
      <Clip text={p.phoneNumber} />
      {p.phoneNumber === props.self ? <span class="muted"> (this phone)</span> : null}
    </>
  )
}

/**
 * The members, super admin and admins first. Two short columns fit a phone's width, so the table
 * keeps its rows on a narrow screen instead of stacking each member into a card (a group of 200
 * would be a long scroll).
 */
export function MembersTable(props: { participants: readonly GroupParticipant[]; self: string }) {
  const rows = [...props.participants].sort((a, b) => ROLE_ORDER[roleOf(a)] - ROLE_ORDER[roleOf(b)] || a.id.localeCompare(b.id))
  return (
    <div class="table-wrap">
      <table class="members">
        <thead>
          <tr>
            <th scope="col">Member</th>
            <th scope="col">Role</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((p) => (
            <tr>
              <td>
                <MemberName p={p} self={props.self} />
              </td>
              <td>{roleOf(p) === "Member" ? <span class="muted">Member</span> : <span class="badge ok">{roleOf(p)}</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

const EPHEMERAL_WORDS: Record<number, string> = { 0: "Off", 86400: "24 hours", 604800: "7 days", 7776000: "90 days" }

/**
 * The timers WhatsApp offers, and the group's own when it is another (set by an app that offers
 * more): listed so that saving other settings does not turn it off.
 */
function timersWith(current: number): number[] {
  const offered: readonly number[] = GROUP_EPHEMERAL_SECONDS
  return offered.includes(current) ? [...offered] : [...offered, current]
}

/** The settings form's labels for the API's field names. */
export const GROUP_WORDS: FormWords = {
  subject: { label: "Subject" },
  description: { label: "Description" },
  ephemeralSeconds: { label: "Disappearing messages" },
}

/** The group's subject, description and settings, editable by an admin (greyed out otherwise). */
export function SettingsForm(props: { group: GroupDetail; action: string; csrfToken: string; isAdmin: boolean }) {
  const { group } = props
  const s = group.settings
  return (
    <form method="post" action={props.action} class="fields">
      <CsrfField token={props.csrfToken} />
      <fieldset disabled={!props.isAdmin} class="plain">
        <div>
          <label for="group-subject">Subject</label>
          <input id="group-subject" name="subject" type="text" required maxlength={100} value={group.name} />
        </div>
        <div>
          <label for="group-description">Description</label>
          <textarea id="group-description" name="description" rows={4} maxlength={2048}>
            {group.description ?? ""}
          </textarea>
        </div>
        <label>
          <input type="checkbox" name="announce" value="1" checked={s.announce} /> Only admins send messages
        </label>
        <label>
          <input type="checkbox" name="locked" value="1" checked={s.locked} /> Only admins edit the group's info
        </label>
        <label>
          <input type="checkbox" name="approvalMode" value="1" checked={s.approvalMode} /> Admins approve who joins by the link
        </label>
        <div>
          <label for="group-add-mode">Who may add members</label>
          <select id="group-add-mode" name="memberAddMode">
            <option value="admins" selected={s.memberAddMode === "admins"}>
              Admins only
            </option>
            <option value="all" selected={s.memberAddMode === "all"}>
              Every member
            </option>
          </select>
        </div>
        <div>
          <label for="group-ephemeral">Disappearing messages</label>
          <select id="group-ephemeral" name="ephemeralSeconds">
            {timersWith(s.ephemeralSeconds).map((seconds) => (
              <option value={String(seconds)} selected={s.ephemeralSeconds === seconds}>
                {EPHEMERAL_WORDS[seconds] ?? `${seconds} seconds (set in the app)`}
              </option>
            ))}
          </select>
        </div>
        <div>
          <button type="submit">Save settings</button>
        </div>
      </fieldset>
    </form>
  )
}
