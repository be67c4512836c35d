/*
 * PostgreSQL migration 11: polls, their votes, and votes kept encrypted until their poll's secret
 * is known, as SQLite migration 23 (the comment there says why votes are keyed by the poll's
 * WhatsApp id). A vote that reaches another node after a failover finds what the first stored.
 */
export const POLLS_SQL = `
CREATE TABLE polls (
  message_id text COLLATE "C" PRIMARY KEY,
  phone_id text COLLATE "C" NOT NULL,
  wa_message_id text COLLATE "C" NOT NULL,
  question text COLLATE "C" NOT NULL,
  options text COLLATE "C" NOT NULL,
  option_hashes text COLLATE "C" NOT NULL,
  multiple_answers boolean NOT NULL,
  created_at_ms int8 NOT NULL
);
CREATE INDEX polls_wa ON polls (phone_id, wa_message_id);
CREATE TABLE poll_votes (
  phone_id text COLLATE "C" NOT NULL,
  poll_wa_message_id text COLLATE "C" NOT NULL,
  voter text COLLATE "C" NOT NULL,
  option_hashes text COLLATE "C" NOT NULL,
  voted_at_ms int8 NOT NULL,
  PRIMARY KEY (phone_id, poll_wa_message_id, voter)
);
CREATE TABLE poll_pending_votes (
  phone_id text COLLATE "C" NOT NULL,
  poll_wa_message_id text COLLATE "C" NOT NULL,
  vote_wa_message_id text COLLATE "C" NOT NULL,
  descriptor text COLLATE "C" NOT NULL,
  received_at_ms int8 NOT NULL,
  PRIMARY KEY (phone_id, poll_wa_message_id, vote_wa_message_id)
);
`
