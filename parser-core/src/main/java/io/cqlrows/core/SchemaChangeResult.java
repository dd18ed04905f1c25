package io.cqlrows.core;

import java.util.List;

/**
 * A SCHEMA_CHANGE result (kind 0x0005).
 *
 * @param changeType {@code CREATED}, {@code UPDATED} or {@code DROPPED}
 * @param target {@code KEYSPACE}, {@code TABLE}, {@code TYPE}, {@code FUNCTION} or {@code
 *     AGGREGATE}
 * @param keyspace the keyspace
 * @param name the table, type, function or aggregate name; empty for a keyspace change
 * @param argumentTypes argument types of a function or aggregate; empty otherwise
 */
public record SchemaChangeResult(
    String changeType, String target, String keyspace, String name, List<String> argumentTypes)
    implements CqlResult {
  /** Schema_change. */
  public static final int KIND = 0x0005;

  /** Copies the argument types. */
  public SchemaChangeResult {
    argumentTypes = List.copyOf(argumentTypes);
  }

  @Override
  public int kind() {
    return KIND;
  }
}
