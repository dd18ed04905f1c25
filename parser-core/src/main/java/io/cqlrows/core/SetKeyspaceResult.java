package io.cqlrows.core;

/**
 * A SET_KEYSPACE result (kind 0x0003), the answer to {@code USE}.
 *
 * @param keyspace the keyspace now in use
 */
public record SetKeyspaceResult(String keyspace) implements CqlResult {
  /** Set_keyspace. */
  public static final int KIND = 0x0003;

  @Override
  public int kind() {
    return KIND;
  }
}
