package io.cqlrows.core.value;

/**
 * Marks a nested element whose wire length was {@code -2} ("not set", the {@code [value]} of
 * native_protocol_v5.spec section 3). It appears in decoded collections, UDTs and tuples in place
 * of the element; it is never merged with {@code null} (length {@code -1}). Cassandra never writes
 * it in results; it is kept distinct so that a server bug or a proxy rewrite is visible rather than
 * silently read as NULL.
 */
public enum NotSet {
  /** The single marker. */
  INSTANCE;

  @Override
  public String toString() {
    return "<not set>";
  }
}
