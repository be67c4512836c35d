import type { AppError } from "../../../lib/errors"
import { statusOf } from "../../errors"
import type { PageContext } from "../context"
import { htmlResponse } from "../respond"
import { href } from "../scope"
import { Layout } from "../views/layout"
import { ErrorList } from "../views/parts"

/** The page an AppError becomes inside the dashboard (a 404 for an unknown phone, say). */
export function errorPage(c: PageContext, err: AppError): Response {
  const status = statusOf(err.kind)
  const title = status === 404 ? "Not found" : "That did not work"
  return htmlResponse(
    <Layout title={title} section={null} scope={c.scope} csrfToken={c.session.csrfToken} path="/dashboard">
      <ErrorList errors={err.publicMessages} />
      <p>
        <a href={href("/dashboard", c.scope)}>Back to the overview</a>
      </p>
    </Layout>,
    status,
  )
}

/** The page of a dashboard address that does not exist. */
export function notFoundPage(c: PageContext): Response {
  return htmlResponse(
    <Layout title="Not found" section={null} scope={c.scope} csrfToken={c.session.csrfToken} path="/dashboard">
      <p>There is no dashboard page at this address.</p>
      <p>
        <a href={href("/dashboard", c.scope)}>Back to the overview</a>
      </p>
    </Layout>,
    404,
  )
}
