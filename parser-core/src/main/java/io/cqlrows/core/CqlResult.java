package io.cqlrows.core;

/**
 * A decoded RESULT message (native_protocol_v5.spec section 4.2.5): what {@link ResultReader#read}
 * returns. Rows themselves go to the {@link io.cqlrows.core.RowSink}; the result only summarises
 * them.
 */
public sealed interface CqlResult
    permits RowsResult, VoidResult, SetKeyspaceResult, PreparedResult, SchemaChangeResult {

  /** The RESULT kind as sent: 1 Void, 2 Rows, 3 Set_keyspace, 4 Prepared, 5 Schema_change. */
  int kind();
}
