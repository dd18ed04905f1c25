package io.cqlrows.client;

import io.cqlrows.core.PreparedResult;
import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.RowsMetadata;
import io.cqlrows.core.RowsResult;

/**
 * A statement prepared on a {@link CqlClient}: its id, and the result metadata its executions are
 * decoded with, which changes when a ROWS result reports {@code Metadata_changed} (v5, or v4 with
 * {@link io.cqlrows.core.ProtocolFeatures#SCYLLA_USE_METADATA_ID}; native_protocol_v5.spec sections
 * 4.1.6 and 4.2.5.2): the client then stores the {@code new_metadata_id} and the columns that came
 * with it, and later EXECUTEs send that id and decode {@code No_metadata} results with those
 * columns.
 *
 * <p><b>Threading.</b> Updated on the connection's event loop, readable from any thread: the
 * metadata id and its columns are swapped together, as one immutable snapshot.
 */
public final class PreparedStatement {
  /** A {@code result_metadata_id} and the columns it stands for. */
  @SuppressWarnings("ArrayRecordComponent") // a holder of bytes, never compared
  record ResultMetadata(byte[] resultMetadataId, ResultColumns resultColumns) {}

  private final String query;
  private final PreparedResult prepared;
  private final byte[] id;
  private volatile ResultMetadata current;

  PreparedStatement(String query, PreparedResult prepared) {
    this.query = query;
    this.prepared = prepared;
    this.id = prepared.id();
    this.current = new ResultMetadata(prepared.resultMetadataId(), prepared.resultColumns());
  }

  /** The CQL text, or {@code null} if the statement was prepared elsewhere. */
  public String query() {
    return query;
  }

  /** The PREPARED result as the server sent it. */
  public PreparedResult preparedResult() {
    return prepared;
  }

  /** A copy of the statement id. */
  public byte[] id() {
    return id.clone();
  }

  /**
   * A copy of the current {@code result_metadata_id} (v5, or v4 with {@link
   * io.cqlrows.core.ProtocolFeatures#SCYLLA_USE_METADATA_ID}), or {@code null}.
   */
  public byte[] resultMetadataId() {
    byte[] metadataId = current.resultMetadataId();
    return metadataId == null ? null : metadataId.clone();
  }

  /** The current result columns: executions with {@code Skip_metadata} are decoded with them. */
  public ResultColumns resultColumns() {
    return current.resultColumns();
  }

  /** The id without copying; not to be modified. */
  byte[] idUnsafe() {
    return id;
  }

  /** The current metadata id and columns, read together. */
  ResultMetadata current() {
    return current;
  }

  /** Adopts the new metadata of a ROWS result that reports {@code Metadata_changed}. */
  void onRows(RowsResult rows) {
    RowsMetadata metadata = rows.metadata();
    byte[] newId = metadata.newMetadataId();
    if (metadata.metadataChanged() && newId != null) {
      current = new ResultMetadata(newId, metadata.columns());
    }
  }
}
