package io.cqlrows.core;

import java.util.Arrays;
import java.util.Optional;

/**
 * The {@code <metadata>} of a ROWS result (native_protocol_v5.spec section 4.2.5.2), resolved: when
 * the result carried {@code No_metadata}, {@link #columns()} are the prepared columns the caller
 * supplied. Immutable.
 */
public final class RowsMetadata {
  /** {@code Global_tables_spec}: one keyspace and table for all columns. */
  public static final int FLAG_GLOBAL_TABLES_SPEC = 0x0001;

  /** {@code Has_more_pages}: a {@code paging_state} follows. */
  public static final int FLAG_HAS_MORE_PAGES = 0x0002;

  /** {@code No_metadata}: no column specs; the client knows them from PREPARE. */
  public static final int FLAG_NO_METADATA = 0x0004;

  /**
   * {@code Metadata_changed}: a {@code new_metadata_id} follows (v5, or v4 with {@link
   * ProtocolFeatures#SCYLLA_USE_METADATA_ID}).
   */
  public static final int FLAG_METADATA_CHANGED = 0x0008;

  private final int flags;
  private final int columnCount;

  /** Null when there is no next page. */
  private final PagingState pagingState;

  private final byte[] newMetadataId;
  private final ResultColumns columns;

  RowsMetadata(
      int flags,
      int columnCount,
      PagingState pagingState,
      byte[] newMetadataId,
      ResultColumns columns) {
    this.flags = flags;
    this.columnCount = columnCount;
    this.pagingState = pagingState;
    this.newMetadataId = newMetadataId;
    this.columns = columns;
  }

  /** The same metadata with other columns (the reader's raw No_metadata columns). */
  RowsMetadata withColumns(ResultColumns other) {
    return new RowsMetadata(flags, columnCount, pagingState, newMetadataId, other);
  }

  /** The raw {@code <flags>} int. */
  public int flags() {
    return flags;
  }

  /** {@code columns_count} as sent. */
  public int columnCount() {
    return columnCount;
  }

  /**
   * Whether there is a next page to ask for: {@code Has_more_pages} was set with a {@code
   * paging_state}, so {@link #pagingState()} is present. A result that sets the flag with a null
   * {@code paging_state} has nothing to continue from: no next page ({@link #flags()} keeps the
   * flag as sent).
   */
  public boolean hasMorePages() {
    return pagingState != null;
  }

  /** Whether the result carried {@code No_metadata} (its columns came from the caller). */
  public boolean noMetadata() {
    return (flags & FLAG_NO_METADATA) != 0;
  }

  /** Whether {@code Metadata_changed} was set; see {@link #newMetadataId()}. */
  public boolean metadataChanged() {
    return (flags & FLAG_METADATA_CHANGED) != 0;
  }

  /**
   * The paging state to ask for the next page with; empty after the last page (see {@link
   * #hasMorePages()}). {@code QueryParameters.nextPage} in cqlrows-netty puts it into the next
   * request's parameters.
   */
  public Optional<PagingState> pagingState() {
    return Optional.ofNullable(pagingState);
  }

  /** A copy of {@code new_metadata_id}, or {@code null} if absent. */
  public byte[] newMetadataId() {
    return newMetadataId == null ? null : newMetadataId.clone();
  }

  /**
   * The column specs: those of the metadata, or the prepared columns the caller supplied, or (raw
   * No_metadata, see {@link ResultReader#rawCellsWithoutMetadata}) made-up ones, none for a result
   * without rows. Specs only: the deserializers compiled for them stay in the {@link ResultReader}
   * that read the result, which reuses them for later results with these columns.
   */
  public ResultColumns columns() {
    return columns;
  }

  @Override
  public String toString() {
    return "RowsMetadata{flags=0x"
        + Integer.toHexString(flags)
        + ", columns="
        + columns
        + (pagingState != null ? ", paging_state=" + pagingState : "")
        + (newMetadataId != null ? ", new_metadata_id=" + Arrays.toString(newMetadataId) : "")
        + '}';
  }
}
