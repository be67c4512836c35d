import { ALIAS_INDEXES, chatOfRevokedMessage, REVOKABLE_CHAT_ID, foldChatOfMappedContact, foldKnownLidChats, resolvedChatStatements, revokedPreviewsOfKnownChats } from "../chat-sql-aliases"
import { contactOfInboundMessage, type ChatSqlDialect } from "../chat-sql"

/*
 * PostgreSQL migration 19, as SQLite migration 31 (src/store/sqlite/migration-31-chat-aliases.ts):
 * the trigger functions of migration 16 are replaced by ones that resolve a `…@lid` chat id to
 * the number, and new ones fold a LID's chat into the number's once the mapping is learned and
 * show a revoked last message as deleted. Like migration 16's, they stand aside during an import.
 */

const PG: ChatSqlDialect = {
  greatest: "GREATEST",
  no: "false",
  yes: "true",
  hasKey: (json, key) => `(${json})::jsonb -> '${key}' IS NOT NULL`,
}

const resolved = resolvedChatStatements(PG)

function triggerFunction(name: string, statements: readonly string[]): string {
  return `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF current_setting('wagate.importing', true) = 'on' THEN RETURN NULL; END IF;
  ${statements.join(";\n  ")};
  RETURN NULL;
END $fn$;`
}

// One function per table: each names its chat by its own columns.
const revokeTrigger = (table: keyof typeof REVOKABLE_CHAT_ID) => `${triggerFunction(`chats_revoked_${table}`, [chatOfRevokedMessage(table)])}
CREATE TRIGGER ${table}_chat_revoked AFTER UPDATE OF revoked_at_ms ON ${table} FOR EACH ROW
  WHEN (OLD.revoked_at_ms IS NULL AND NEW.revoked_at_ms IS NOT NULL) EXECUTE FUNCTION chats_revoked_${table}();`

export const CHAT_ALIASES_SQL = `${ALIAS_INDEXES};
${foldKnownLidChats(PG).join(";\n")};
${revokedPreviewsOfKnownChats()};
${triggerFunction("chats_touch_sent", [resolved.sent])}
${triggerFunction("chats_touch_inbound", [resolved.inbound, contactOfInboundMessage()])}
${triggerFunction("chats_read_inbound", [resolved.read])}
${triggerFunction("chats_touch_chat_message", [resolved.chatMessage])}
${revokeTrigger("messages")}
${revokeTrigger("inbound_messages")}
${revokeTrigger("chat_messages")}
${triggerFunction("chats_fold_mapped_contact", foldChatOfMappedContact(PG))}
CREATE TRIGGER contacts_chat_fold AFTER INSERT OR UPDATE OF phone_number, lid ON contacts FOR EACH ROW
  WHEN (NEW.lid IS NOT NULL AND NEW.phone_number IS NOT NULL) EXECUTE FUNCTION chats_fold_mapped_contact();
`
