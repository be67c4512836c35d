/*
 * The dashboard's share of `bun run bench`: signs in with the admin token, then times the HTML
 * of every page, one request at a time, on the database the list case seeded (1,000,000
 * messages). The target: every page under 50 ms.
 */

/** How often each page is fetched; the first fetch (cold statement caches) is not counted. */
const SAMPLES = Number(process.env.BENCH_DASHBOARD_SAMPLES ?? 20)
export const DASHBOARD_PAGE_TARGET_MS = 50

export interface PageTiming {
  path: string
  p50Ms: number
  maxMs: number
}

/** Signs in to a running wagate's dashboard and returns the session cookie. */
async function signIn(base: string, adminToken: string): Promise<string> {
  const res = await fetch(`${base}/dashboard/sign-in`, {
    method: "POST",
    headers: { Origin: base, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: adminToken }),
    redirect: "manual",
  })
  const cookie = res.headers.get("set-cookie")?.split(";")[0]
  if (res.status !== 303 || !cookie) throw new Error(`dashboard sign-in failed: ${res.status}`)
  return cookie
}

/** Times each page's HTML (the whole response, read to the end). */
export async function timeDashboardPages(base: string, adminToken: string, ids: { accountId: string; phoneId: string; messageId: string }): Promise<PageTiming[]> {
  const cookie = await signIn(base, adminToken)
  const scope = `account=${ids.accountId}&env=test`
  const paths = [
    `/dashboard?${scope}`,
    `/dashboard/phones?${scope}`,
    `/dashboard/phones/${ids.phoneId}?${scope}`,
    `/dashboard/keys?${scope}`,
    `/dashboard/webhooks?${scope}`,
    `/dashboard/messages?${scope}`,
    `/dashboard/messages?${scope}&status=failed`,
    `/dashboard/messages?${scope}&phone=${ids.phoneId}&before=500000`,
    `/dashboard/messages?${scope}&to=%2B15005550000`,
    `/dashboard/messages?${scope}&direction=inbound`,
    `/dashboard/messages/${ids.messageId}?${scope}`,
    `/dashboard/sandbox?${scope}`,
    `/dashboard/usage?${scope}`,
    `/dashboard/accounts?${scope}`,
  ]
  const timings: PageTiming[] = []
  for (const path of paths) {
    const samples: number[] = []
    for (let i = 0; i <= SAMPLES; i++) {
      const t0 = performance.now()
      const res = await fetch(`${base}${path}`, { headers: { Cookie: cookie } })
      await res.text()
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`)
      if (i > 0) samples.push(performance.now() - t0)
    }
    samples.sort((a, b) => a - b)
    timings.push({ path, p50Ms: samples[Math.floor(samples.length / 2)]!, maxMs: samples.at(-1)! })
  }
  return timings
}
