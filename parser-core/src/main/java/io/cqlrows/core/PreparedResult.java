package io.cqlrows.core;

import java.util.List;

/**
 * A PREPARED result (kind 0x0004; native_protocol_v5.spec section 4.2.5.4): the statement id, the
 * bind variables and the result columns, which the caller keeps and hands back to {@link
 * ResultReader#read(io.netty.buffer.ByteBuf, io.cqlrows.core.RowSink, ResultColumns)} when
 * executions come back with {@code No_metadata}. Immutable.
 */
public final class PreparedResult implements CqlResult {
  /** Prepared. */
  public static final int KIND = 0x0004;

  private final byte[] id;
  private final byte[] resultMetadataId;
  private final int preparedFlags;
  private final boolean lwt;
  private final List<ColumnSpec> variables;
  private final int[] partitionKeyIndexes;
  private final RowsMetadata resultMetadata;

  PreparedResult(
      byte[] id,
      byte[] resultMetadataId,
      int preparedFlags,
      boolean lwt,
      List<ColumnSpec> variables,
      int[] partitionKeyIndexes,
      RowsMetadata resultMetadata) {
    this.id = id;
    this.resultMetadataId = resultMetadataId;
    this.preparedFlags = preparedFlags;
    this.lwt = lwt;
    this.variables = List.copyOf(variables);
    this.partitionKeyIndexes = partitionKeyIndexes;
    this.resultMetadata = resultMetadata;
  }

  @Override
  public int kind() {
    return KIND;
  }

  /** A copy of the statement id. */
  public byte[] id() {
    return id.clone();
  }

  /**
   * A copy of {@code result_metadata_id}: sent on v5, or on v4 with {@link
   * ProtocolFeatures#SCYLLA_USE_METADATA_ID}; {@code null} otherwise.
   */
  public byte[] resultMetadataId() {
    return resultMetadataId == null ? null : resultMetadataId.clone();
  }

  /**
   * The {@code <flags>} of the prepared (bind-variable) metadata as sent: {@code
   * Global_tables_spec} (0x0001) and, under {@link ProtocolFeatures#SCYLLA_LWT_ADD_METADATA_MARK},
   * the LWT bit.
   */
  public int preparedFlags() {
    return preparedFlags;
  }

  /**
   * Whether the statement is a lightweight transaction ({@code INSERT ... IF NOT EXISTS}, {@code
   * UPDATE ... IF ...}) as the server marked it under {@link
   * ProtocolFeatures#SCYLLA_LWT_ADD_METADATA_MARK}: {@code (preparedFlags & mask) == mask}. Always
   * false without the extension (Cassandra), which does not mean the statement is not one.
   */
  public boolean isLwt() {
    return lwt;
  }

  /** The bind variables, in order. */
  public List<ColumnSpec> variables() {
    return variables;
  }

  /** Bind-variable index of each partition key column, in key order (v4+; may be empty). */
  public int[] partitionKeyIndexes() {
    return partitionKeyIndexes.clone();
  }

  /** The result metadata as sent (often {@code No_metadata} with no columns for non-SELECTs). */
  public RowsMetadata resultMetadata() {
    return resultMetadata;
  }

  /** The result columns, to pass back for {@code No_metadata} results of this statement. */
  public ResultColumns resultColumns() {
    return resultMetadata.columns();
  }
}
