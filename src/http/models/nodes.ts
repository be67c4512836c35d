import { Type } from "@sinclair/typebox"
import { named, OneOf } from "../../lib/schema"
import { Timestamp } from "./common"
import { ConnectionStatus } from "./phones"

/*
 * The nodes as `GET /admin/v1/nodes` shows them (docs/admin.md § "Nodes"); the shape is built by
 * src/domain/node-overview.ts, which the CLI and the dashboard use too.
 */

const Age = (description: string) => Type.Integer({ minimum: 0, description })
const NullableAge = (description: string) => Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description })

export const NodeLease = named(
  "NodeLease",
  Type.Object({
    phoneId: Type.String(),
    phoneNumber: Type.Union([Type.String(), Type.Null()], { description: "Null when the phone was removed while the list was read." }),
    connectionStatus: Type.Union([ConnectionStatus, Type.Null()]),
    token: Type.Integer({ minimum: 0, description: "The lease's fencing token: it grows by one at every claim of the phone." }),
    acquiredAt: Timestamp,
    ageMs: Age("Since the node acquired the lease."),
    expiresAt: Timestamp,
  }),
)

export const NodeEntry = named(
  "Node",
  Type.Object({
    nodeId: Type.String({ description: "The node's WAGATE_NODE_ID." }),
    state: OneOf(["live", "stopping", "silent"] as const, {
      description: "live: heartbeating; stopping: released its phones at shutdown; silent: no heartbeat for a lease (dead, paused or cut off).",
    }),
    phones: Type.Integer({ minimum: 0, description: "Leases it holds now." }),
    maxPhones: Type.Integer({ minimum: 1, description: "Its WAGATE_NODE_MAX_PHONES." }),
    url: Type.Union([Type.String(), Type.Null()], {
      description: "Its WAGATE_NODE_URL: where the other nodes forward the requests that need a phone it holds; null when it set none (they answer 409 naming it).",
    }),
    startedAt: Timestamp,
    heartbeatAt: Timestamp,
    heartbeatAgeMs: Age("Since its last heartbeat."),
    upForMs: Age("Since this process of the node registered."),
    oldestLeaseAgeMs: NullableAge("Age of its oldest held lease; null when it holds none."),
    newestLeaseAgeMs: NullableAge("Age of its newest held lease; null when it holds none."),
    leases: Type.Optional(Type.Array(NodeLease, { description: "Only with ?phones=true: the phones it holds, by phone id." })),
  }),
)

export const NodeOverview = named(
  "NodeOverview",
  Type.Object({
    store: OneOf(["sqlite", "postgres"] as const),
    leaseMs: Type.Integer({ minimum: 1, description: "How long a lease runs without renewal." }),
    explanation: Type.Union([Type.String(), Type.Null()], {
      description: "On SQLite, why no node is listed (the one process owns every phone and registers no node row); null on PostgreSQL.",
    }),
    unownedPhones: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description: "Phones no node holds now (no owner, released or expired); null on SQLite.",
    }),
    nodes: Type.Array(NodeEntry),
  }),
)

export const ListNodesQuery = Type.Object(
  {
    phones: Type.Optional(OneOf(["true", "false"] as const, { errorMessage: "phones must be true or false" })),
  },
  { additionalProperties: false },
)
