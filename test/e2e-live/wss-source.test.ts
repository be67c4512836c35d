import { describeWssTransport } from "./wss-transport"

/* The transport tests (see wss-transport.ts) against `bun src/main.ts serve`. */
describeWssTransport("from source", async () => undefined, 0)
