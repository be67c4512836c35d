import { ALIAS_INDEXES, chatOfRevokedMessage, REVOKABLE_CHAT_ID, foldChatOfMappedContact, foldKnownLidChats, resolvedChatStatements, revokedPreviewsOfKnownChats } from "../chat-sql-aliases"
import { contactOfInboundMessage, type ChatSqlDialect } from "../chat-sql"

/*
 * SQLite migration 31, as PostgreSQL migration 19: one chat per contact reached by number and by
 * LID, revoked last messages shown as deleted, and the index the history retention deletes by
 * (src/store/chat-sql-aliases.ts). The insert triggers of migration 28 are replaced by ones that
 * resolve the chat id; what the install holds is folded and cleaned once.
 */

const SQLITE: ChatSqlDialect = {
  greatest: "max",
  no: "0",
  yes: "1",
  hasKey: (json, key) => `json_extract(${json}, '$.${key}') IS NOT NULL`,
}

const resolved = resolvedChatStatements(SQLITE)

const revokeTrigger = (table: keyof typeof REVOKABLE_CHAT_ID) => `CREATE TRIGGER ${table}_chat_revoked AFTER UPDATE OF revoked_at_ms ON ${table}
  WHEN OLD.revoked_at_ms IS NULL AND NEW.revoked_at_ms IS NOT NULL BEGIN
  ${chatOfRevokedMessage(table)};
END;`

const mappedContactTrigger = (event: string) => `CREATE TRIGGER contacts_chat_fold_${event.split(" ")[0]!.toLowerCase()} AFTER ${event} ON contacts
  WHEN NEW.lid IS NOT NULL AND NEW.phone_number IS NOT NULL BEGIN
  ${foldChatOfMappedContact(SQLITE).join(";\n  ")};
END;`

export const CHAT_ALIASES_SQL = `${ALIAS_INDEXES};
${foldKnownLidChats(SQLITE).join(";\n")};
${revokedPreviewsOfKnownChats()};
DROP TRIGGER messages_chat_touch;
DROP TRIGGER inbound_chat_touch;
DROP TRIGGER inbound_chat_read;
DROP TRIGGER chat_messages_chat_touch;
CREATE TRIGGER messages_chat_touch AFTER INSERT ON messages BEGIN
  ${resolved.sent};
END;
CREATE TRIGGER inbound_chat_touch AFTER INSERT ON inbound_messages BEGIN
  ${resolved.inbound};
  ${contactOfInboundMessage()};
END;
CREATE TRIGGER inbound_chat_read AFTER UPDATE OF read_at_ms ON inbound_messages
  WHEN OLD.read_at_ms IS NULL AND NEW.read_at_ms IS NOT NULL BEGIN
  ${resolved.read};
END;
CREATE TRIGGER chat_messages_chat_touch AFTER INSERT ON chat_messages BEGIN
  ${resolved.chatMessage};
END;
${revokeTrigger("messages")}
${revokeTrigger("inbound_messages")}
${revokeTrigger("chat_messages")}
${mappedContactTrigger("INSERT")}
${mappedContactTrigger("UPDATE OF phone_number, lid")}
`
