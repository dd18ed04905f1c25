package io.cqlrows.core.type;

import java.util.Set;

/** CQL spelling helpers shared by the type records. */
final class TypeNames {
  /** CQL reserved keywords that must be quoted when used as identifiers. */
  private static final Set<String> RESERVED =
      Set.of(
          "add",
          "allow",
          "alter",
          "and",
          "apply",
          "asc",
          "authorize",
          "batch",
          "begin",
          "by",
          "columnfamily",
          "create",
          "delete",
          "desc",
          "describe",
          "drop",
          "entries",
          "execute",
          "from",
          "full",
          "grant",
          "if",
          "in",
          "index",
          "infinity",
          "insert",
          "into",
          "is",
          "keyspace",
          "limit",
          "materialized",
          "mbean",
          "mbeans",
          "modify",
          "nan",
          "norecursive",
          "not",
          "null",
          "of",
          "on",
          "or",
          "order",
          "primary",
          "rename",
          "replace",
          "revoke",
          "schema",
          "select",
          "set",
          "table",
          "to",
          "token",
          "truncate",
          "unlogged",
          "unset",
          "update",
          "use",
          "using",
          "view",
          "where",
          "with");

  private TypeNames() {}

  static String frozen(boolean frozen, String cql) {
    return frozen ? "frozen<" + cql + ">" : cql;
  }

  /** Always double-quotes, doubling embedded quotes. */
  static String quote(String id) {
    return '"' + id.replace("\"", "\"\"") + '"';
  }

  /** Double-quotes an identifier unless it is lowercase alphanumeric and not reserved. */
  static String quoteIfNeeded(String id) {
    if (id.isEmpty() || RESERVED.contains(id)) {
      return quote(id);
    }
    char first = id.charAt(0);
    if (first < 'a' || first > 'z') {
      return quote(id);
    }
    for (int i = 1; i < id.length(); i++) {
      char c = id.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
      if (!ok) {
        return quote(id);
      }
    }
    return id;
  }
}
