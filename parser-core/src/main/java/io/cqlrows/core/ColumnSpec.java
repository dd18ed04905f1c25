package io.cqlrows.core;

import io.cqlrows.core.type.CqlType;
import java.util.Objects;

/**
 * One column of result metadata: a {@code col_spec} (native_protocol_v5.spec section 4.2.5.2).
 *
 * @param keyspace the keyspace (from the column spec or the Global_tables_spec)
 * @param table the table
 * @param name the column name as sent (internal form: {@code Id}, {@code with space})
 * @param type the column type
 */
public record ColumnSpec(String keyspace, String table, String name, CqlType type) {
  /** Checks the parts are present. */
  public ColumnSpec {
    Objects.requireNonNull(keyspace, "keyspace");
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
  }
}
