import type { Principal } from "../../../domain/api-keys"
import type { GroupChangesCommand, GroupDetail } from "../../../domain/group-model"
import { createGroupService, type GroupInvite, type GroupService } from "../../../domain/group-service"
import { listGroups } from "../../../domain/groups"
import { findPhoneAnywhere } from "../../../domain/phones"
import { AppError } from "../../../lib/errors"
import type { GroupMemberAddMode } from "../../../lib/vocabulary"
import type { PhoneRow } from "../../../store/phones"
import type { DashboardApp } from "../base"
import { action, formFailure, page, type Dashboard, type PageContext } from "../context"
import { htmlResponse } from "../respond"
import { href, type Scope } from "../scope"
import { Layout } from "../views/layout"
import { ConfirmAction, ErrorList, Notice, Time } from "../views/parts"
import { GROUP_WORDS, GroupsTable, groupPath, MembersTable, SettingsForm } from "../views/groups"
import { errorPage } from "./errors"

/*
 * A phone's groups and one group's page (docs/dashboard.md § "Groups"): members and their roles,
 * the invite link (shown on request, revoked behind a confirmation), the settings and leaving, on
 * the same group service as `/v1/groups` (src/domain/group-service.ts). The scope's environment
 * decides which groups: test shows the account's sandbox groups, live asks the connected phone.
 */

/** The phone of the URL, with the scope moved to its account, and who acts: the operator, for that account and environment. */
async function phoneInScope(c: PageContext): Promise<{ phone: PhoneRow; scope: Scope; operator: Principal }> {
  const phone = await findPhoneAnywhere(c.dash.deps.ctx, c.params.phoneId!)
  const account = c.scope.accounts.find((a) => a.id === phone.accountId) ?? c.scope.account!
  const scope = { ...c.scope, account, unknownAccount: false }
  // The group service reads only the account and the environment of who asks; the operator
  // signed in with the admin token may do what any key of the account may.
  const operator: Principal = { keyId: "dashboard", accountId: account.id, env: c.scope.env, scopes: [], account }
  return { phone, scope, operator }
}

async function groupsPage(c: PageContext, notice: string | null = null): Promise<Response> {
  const { phone, scope, operator } = await phoneInScope(c)
  let groups: Awaited<ReturnType<typeof listGroups>> = []
  let problem: readonly string[] | undefined
  try {
    groups = await listGroups(c.dash.deps.ctx, c.dash.deps.liveGroups, operator, phone.id)
  } catch (err) {
    if (!(err instanceof AppError)) throw err
    problem = err.publicMessages
  }
  return htmlResponse(
    <Layout title={`Groups of ${phone.displayName}`} section="Phones" scope={scope} csrfToken={c.session.csrfToken} path="/dashboard/phones">
      <p>
        <a href={href(`/dashboard/phones/${encodeURIComponent(phone.id)}`, scope)}>← {phone.phoneNumber}</a>
      </p>
      <Notice text={notice} />
      <section aria-labelledby="groups">
        <h2 id="groups">{scope.env === "test" ? "Sandbox groups" : "Groups on WhatsApp"}</h2>
        <ErrorList errors={problem} />
        {problem ? null : <GroupsTable groups={groups} phoneId={phone.id} scope={scope} />}
      </section>
    </Layout>,
  )
}

interface GroupPageOptions {
  notice?: string
  errors?: string[]
  status?: number
  invite?: GroupInvite
}

async function groupPage(c: PageContext, service: GroupService, options: GroupPageOptions = {}): Promise<Response> {
  const { phone, scope, operator } = await phoneInScope(c)
  const group = await service.detail(operator, phone.id, c.params.groupId!)
  const invite = options.invite ?? (c.url.searchParams.get("invite") === "show" ? await service.invite(operator, phone.id, group.id) : null)
  const base = groupPath(phone.id, group.id)
  const me = group.participants.find((p) => p.phoneNumber === phone.phoneNumber)
  const isAdmin = me?.isAdmin === true || me?.isSuperAdmin === true
  const csrf = c.session.csrfToken
  return htmlResponse(
    <Layout title={group.name || group.id} section="Phones" scope={scope} csrfToken={csrf} path="/dashboard/phones">
      <p>
        <a href={href(groupPath(phone.id), scope)}>← Groups of {phone.phoneNumber}</a>
      </p>
      <Notice text={options.notice ?? null} />
      <GroupFacts group={group} isAdmin={isAdmin} />
      <section aria-labelledby="members">
        <h2 id="members">{`Members (${group.participants.length})`}</h2>
        <MembersTable participants={group.participants} self={phone.phoneNumber} />
      </section>
      <section aria-labelledby="invite">
        <h2 id="invite">Invite link</h2>
        {invite ? (
          <p class="secret">
            <code id="invite-url">{invite.url}</code>
            <button type="button" class="secondary" data-copy-target="invite-url">
              Copy link
            </button>
          </p>
        ) : (
          <p class="muted">Anyone with the link can join (or ask to, when admins approve members).</p>
        )}
        <div class="actions">
          {invite ? null : (
            <form method="get" action={base} class="inline">
              {scope.account ? <input type="hidden" name="account" value={scope.account.id} /> : null}
              <input type="hidden" name="env" value={scope.env} />
              <input type="hidden" name="invite" value="show" />
              <button type="submit" class="secondary">
                Show invite link
              </button>
            </form>
          )}
          {isAdmin ? (
            <ConfirmAction label="Revoke link" confirmLabel="Revoke and make a new link" action={href(`${base}/invite/revoke`, scope)} csrfToken={csrf}>
              <p>The current link stops working at once; people who joined stay in the group.</p>
            </ConfirmAction>
          ) : null}
        </div>
      </section>
      <section aria-labelledby="settings">
        <h2 id="settings">Settings</h2>
        {isAdmin ? null : <p class="muted">This phone is not an admin of this group: WhatsApp lets only admins change it.</p>}
        <ErrorList errors={options.errors} />
        <SettingsForm group={group} action={href(`${base}/settings`, scope)} csrfToken={csrf} isAdmin={isAdmin} />
      </section>
      <section aria-labelledby="leave">
        <h2 id="leave">Leave</h2>
        <ConfirmAction label="Leave group" confirmLabel="Leave this group" action={href(`${base}/leave`, scope)} csrfToken={csrf}>
          <p>{`${phone.phoneNumber} leaves the group; an admin must add it again to bring it back.`}</p>
        </ConfirmAction>
      </section>
    </Layout>,
    options.status ?? 200,
  )
}

function GroupFacts(props: { group: GroupDetail; isAdmin: boolean }) {
  const { group } = props
  const pending = group.pendingRequests.length
  return (
    <section aria-labelledby="group-facts">
      <h2 id="group-facts">About this group</h2>
      <dl class="facts stack-narrow">
        <dt>Id</dt>
        <dd>
          <code>{group.id}</code>
        </dd>
        <dt>Description</dt>
        <dd class="prewrap">{group.description ? group.description : <span class="muted">none</span>}</dd>
        <dt>Owner</dt>
        <dd>{group.owner ?? <span class="muted">unknown</span>}</dd>
        <dt>Created</dt>
        <dd>
          <Time ms={group.createdAt === null ? null : Date.parse(group.createdAt)} empty="unknown" />
        </dd>
        <dt>This phone</dt>
        <dd>{props.isAdmin ? "admin" : "member"}</dd>
        <dt>Join requests</dt>
        <dd>{pending === 0 ? <span class="muted">none</span> : String(pending)}</dd>
      </dl>
    </section>
  )
}

/** The settings form's fields that differ from the group's: only those are changed (each is one request to WhatsApp). */
function changesOf(c: PageContext, group: GroupDetail): GroupChangesCommand {
  const f = c.form
  const s = group.settings
  const out: GroupChangesCommand = {}
  const subject = f.get("subject").trim()
  const description = f.get("description").replace(/\r\n/g, "\n")
  if (subject !== group.name) out.subject = subject
  if (description !== (group.description ?? "")) out.description = description
  for (const name of ["announce", "locked", "approvalMode"] as const) if ((f.get(name) === "1") !== s[name]) out[name] = f.get(name) === "1"
  if (f.get("memberAddMode") !== s.memberAddMode) out.memberAddMode = f.get("memberAddMode") as GroupMemberAddMode
  if (Number(f.get("ephemeralSeconds")) !== s.ephemeralSeconds) out.ephemeralSeconds = Number(f.get("ephemeralSeconds"))
  return out
}

/** A phone's groups and each group's page, with settings, invite revocation and leaving (CSRF-checked). */
export const groupRoutes = (dash: Dashboard) => {
  const service = createGroupService({ ctx: dash.deps.ctx, links: dash.deps.presence.links, lookups: dash.deps.presence.lookups })
  const groupAction = (act: (c: PageContext, operator: Principal, phone: PhoneRow) => Promise<Response>) =>
    action(
      dash,
      async (c) => {
        const { phone, operator } = await phoneInScope(c)
        try {
          return await act(c, operator, phone)
        } catch (err) {
          return formFailure(err, (failure) => groupPage(c, service, failure), { words: GROUP_WORDS, passOn: "not_found" })
        }
      },
      errorPage,
    )
  return (app: DashboardApp) =>
    app
      .get("/dashboard/phones/:phoneId/groups", page(dash, (c) => groupsPage(c), errorPage))
      .get("/dashboard/phones/:phoneId/groups/:groupId", page(dash, (c) => groupPage(c, service), errorPage))
      .post(
        "/dashboard/phones/:phoneId/groups/:groupId/settings",
        groupAction(async (c, operator, phone) => {
          const group = await service.detail(operator, phone.id, c.params.groupId!)
          const changes = changesOf(c, group)
          if (Object.keys(changes).length === 0) return groupPage(c, service, { notice: "Nothing changed." })
          await service.update(operator, phone.id, group.id, changes)
          return groupPage(c, service, { notice: "Settings saved." })
        }),
      )
      .post(
        "/dashboard/phones/:phoneId/groups/:groupId/invite/revoke",
        groupAction(async (c, operator, phone) => {
          const invite = await service.revokeInvite(operator, phone.id, c.params.groupId!)
          return groupPage(c, service, { notice: "The old link no longer works; this is the new one.", invite })
        }),
      )
      .post(
        "/dashboard/phones/:phoneId/groups/:groupId/leave",
        groupAction(async (c, operator, phone) => {
          const group = await service.detail(operator, phone.id, c.params.groupId!)
          await service.leave(operator, phone.id, group.id)
          return groupsPage(c, `${phone.phoneNumber} left ${group.name || group.id}.`)
        }),
      )
}
