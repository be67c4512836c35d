import { Elysia, t } from "elysia"

/**
 * The baseline of the benchmark: a bare Elysia app with one POST route that validates a TypeBox
 * body, answering a small JSON envelope. wagate's send is measured as a ratio of this.
 */
const port = Number(process.argv[2] ?? 3900)
new Elysia()
  .post("/send", ({ body }) => ({ success: true, data: { to: body.to, status: "sent" } }), {
    body: t.Object({
      fromPhoneId: t.String(),
      to: t.String({ pattern: "^\\+[1-9][0-9]{7,14}$" }),
      content: t.Optional(t.String({ maxLength: 4096 })),
      idempotencyKey: t.Optional(t.String({ maxLength: 64 })),
    }),
  })
  .listen({ port, hostname: "127.0.0.1" })
console.log(`bare listening on ${port}`)
