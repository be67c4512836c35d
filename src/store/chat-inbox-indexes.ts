/*
 * SQLite migration 32 and PostgreSQL migration 20: the indexes of the dashboard's inbox order
 * (src/store/chat-list-sql.ts). The inbox lists a phone's chats with the archive filter, pinned
 * ones first and, with "Unread first", chats with unread messages next; without these indexes
 * every page sorted all of the phone's chats (5,000 chats: 8 ms on SQLite, 22 ms on PostgreSQL
 * for a page of 50, docs/dashboard.md § "Chats"). With them a page reads its rows in order and
 * stops. The expression `(unread_count > 0)` is written as the query writes it, so both
 * databases match it.
 */
export const CHAT_INBOX_INDEXES_SQL = `
CREATE INDEX chats_inbox ON chats (phone_id, env, archived, pinned, last_activity_ms, chat_id);
CREATE INDEX chats_inbox_unread ON chats (phone_id, env, archived, pinned, (unread_count > 0), last_activity_ms, chat_id);
`
