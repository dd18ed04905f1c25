package io.cqlrows.core;

import io.cqlrows.core.CqlParseException.Reason;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads the metadata of a RESULT body (native_protocol_v5.spec section 4.2.5): the rows {@code
 * <metadata>} of a ROWS result with its column specs, and the PREPARED and SCHEMA_CHANGE results.
 * One per {@link ResultReader}, applying its protocol version, limits and extensions.
 *
 * <p>The column-spec bytes of the last result that carried metadata are kept with the {@link
 * ResultColumns} they parsed to: when a result's specs are the same bytes, as on every page of one
 * query, they are skipped and the same instance is returned, so the reader's compiled deserializers
 * are found by identity. Not thread-safe.
 */
final class MetadataReader {
  private final int protocolVersion;
  private final ParseLimits limits;
  private final ProtocolFeatures features;

  /** The column-spec bytes of the last result that carried metadata, and what they parsed to. */
  private byte[] lastSpecBytes;

  private int lastSpecKey;
  private ResultColumns lastSpecColumns;

  MetadataReader(int protocolVersion, ParseLimits limits, ProtocolFeatures features) {
    this.protocolVersion = protocolVersion;
    this.limits = limits;
    this.features = features;
  }

  /**
   * Rows {@code <metadata>} in the order of native_protocol_v5.spec section 4.2.5.2, which is the
   * order Cassandra's encoder writes ({@code cql3/ResultSet.java}): paging_state, then
   * new_metadata_id.
   *
   * @param prepared the columns of a {@code No_metadata} result, or {@code null}
   * @param rawWithoutPrepared whether a {@code No_metadata} result without {@code prepared} is
   *     accepted ({@link ResultReader#rawCellsWithoutMetadata}); its metadata then has {@code null}
   *     columns, for the caller to make up once {@code rows_count} vouches for them
   */
  RowsMetadata readRowsMetadata(BodyReader in, ResultColumns prepared, boolean rawWithoutPrepared) {
    int flags = in.readInt("flags");
    int countAt = in.position;
    int columnCount = in.readInt("columns_count");
    checkColumnCount(in, columnCount, countAt);
    PagingState pagingState = null;
    if ((flags & RowsMetadata.FLAG_HAS_MORE_PAGES) != 0) {
      byte[] state = in.readBytes("paging_state");
      pagingState = state == null ? null : PagingState.wrap(state);
    }
    byte[] newMetadataId = null;
    if ((flags & RowsMetadata.FLAG_METADATA_CHANGED) != 0) {
      newMetadataId = in.readShortBytes("new_metadata_id");
    }
    ResultColumns columns;
    if ((flags & RowsMetadata.FLAG_NO_METADATA) != 0) {
      columns = noMetadataColumns(in, prepared, rawWithoutPrepared, columnCount, countAt);
    } else {
      columns = readColumnSpecs(in, flags, columnCount);
    }
    return new RowsMetadata(flags, columnCount, pagingState, newMetadataId, columns);
  }

  private static ResultColumns noMetadataColumns(
      BodyReader in, ResultColumns prepared, boolean rawWithoutPrepared, int count, int at) {
    if (prepared == null) {
      if (!rawWithoutPrepared) {
        throw in.error(
            Reason.METADATA_MISMATCH,
            "columns_count",
            at,
            "No_metadata result but no prepared columns were given");
      }
      return null; // made up by the caller, once rows_count is known
    }
    if (prepared.size() != count) {
      throw in.error(
          Reason.METADATA_MISMATCH,
          "columns_count",
          at,
          count + " columns in the result, " + prepared.size() + " in the prepared metadata");
    }
    return prepared;
  }

  private void checkColumnCount(BodyReader in, int columnCount, int at) {
    if (columnCount < 0) {
      throw in.error(Reason.INVALID_COUNT, "columns_count", at, columnCount + " (expected: >= 0)");
    }
    if (columnCount > limits.maxColumns()) {
      throw in.error(
          Reason.LIMIT_EXCEEDED,
          "columns_count",
          at,
          columnCount + " columns, more than " + limits.maxColumns() + " (ParseLimits.maxColumns)");
    }
  }

  /**
   * {@code [Global_tables_spec] col_spec*}. When the bytes equal the previous result's, the
   * previous {@link ResultColumns} are reused without parsing.
   */
  private ResultColumns readColumnSpecs(BodyReader in, int flags, int columnCount) {
    int key = columnCount * 2 + (flags & RowsMetadata.FLAG_GLOBAL_TABLES_SPEC);
    int from = in.position;
    if (lastSpecBytes != null && lastSpecKey == key && regionEquals(in, lastSpecBytes)) {
      in.position += lastSpecBytes.length;
      return lastSpecColumns;
    }
    List<ColumnSpec> specs = readSpecs(in, flags, columnCount);
    ResultColumns columns = ResultColumns.of(specs);
    byte[] raw = new byte[in.position - from];
    in.buf.getBytes(from, raw);
    lastSpecBytes = raw;
    lastSpecKey = key;
    lastSpecColumns = columns;
    return columns;
  }

  private List<ColumnSpec> readSpecs(BodyReader in, int flags, int columnCount) {
    boolean global = (flags & RowsMetadata.FLAG_GLOBAL_TABLES_SPEC) != 0;
    String keyspace = null;
    String table = null;
    if (global) {
      keyspace = in.readString("global keyspace");
      table = in.readString("global table");
    }
    // every col_spec needs at least a 2-byte name length and a 2-byte option id
    if ((long) columnCount * 4 > in.remaining()) {
      throw in.truncated("col_spec", (long) columnCount * 4);
    }
    List<ColumnSpec> specs = new ArrayList<>(columnCount);
    for (int i = 0; i < columnCount; i++) {
      String ks = global ? keyspace : in.readString("col_spec keyspace");
      String tb = global ? table : in.readString("col_spec table");
      String name = in.readString("col_spec name");
      try {
        specs.add(new ColumnSpec(ks, tb, name, CqlTypeReader.read(in, limits)));
      } catch (CqlParseException e) {
        throw e.withContext(in.buf, in.start, -1, i, name, null);
      }
    }
    return specs;
  }

  private static boolean regionEquals(BodyReader in, byte[] expected) {
    if (expected.length > in.remaining()) {
      return false;
    }
    ByteBuf buf = in.buf;
    if (buf.hasArray()) {
      int from = buf.arrayOffset() + in.position;
      return Arrays.equals(buf.array(), from, from + expected.length, expected, 0, expected.length);
    }
    for (int i = 0; i < expected.length; i++) {
      if (buf.getByte(in.position + i) != expected[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * PREPARED (native_protocol_v5.spec section 4.2.5.4): id, [result_metadata_id] (v5, or earlier
   * with {@link ProtocolFeatures#SCYLLA_USE_METADATA_ID}), prepared metadata, result metadata.
   */
  PreparedResult readPrepared(BodyReader in) {
    byte[] id = in.readShortBytes("id");
    byte[] resultMetadataId =
        features.hasResultMetadataId(protocolVersion)
            ? in.readShortBytes("result_metadata_id")
            : null;
    int flags = in.readInt("prepared flags");
    int countAt = in.position;
    int columnCount = in.readInt("prepared columns_count");
    checkColumnCount(in, columnCount, countAt);
    int[] pk = new int[0];
    if (protocolVersion >= 4) {
      int pkAt = in.position;
      int pkCount = in.readInt("pk_count");
      if (pkCount < 0 || (long) pkCount * 2 > in.remaining()) {
        throw in.error(
            pkCount < 0 ? Reason.INVALID_COUNT : Reason.TRUNCATED,
            "pk_count",
            pkAt,
            pkCount + " partition key indexes, " + in.remaining() + " bytes left");
      }
      pk = new int[pkCount];
      for (int i = 0; i < pkCount; i++) {
        pk[i] = in.readUnsignedShort("pk_index");
      }
    }
    List<ColumnSpec> variables = readSpecs(in, flags, columnCount);
    RowsMetadata result = readRowsMetadata(in, ResultColumns.of(List.of()), false);
    return new PreparedResult(
        id, resultMetadataId, flags, features.isLwt(flags), variables, pk, result);
  }

  /** SCHEMA_CHANGE (native_protocol_v5.spec section 4.2.5.5). */
  static SchemaChangeResult readSchemaChange(BodyReader in) {
    String change = in.readString("change_type");
    String target = in.readString("target");
    String keyspace = in.readString("keyspace");
    String name = "";
    List<String> args = List.of();
    if (!"KEYSPACE".equals(target)) {
      name = in.readString("name");
      if ("FUNCTION".equals(target) || "AGGREGATE".equals(target)) {
        args = in.readStringList("argument types");
      }
    }
    return new SchemaChangeResult(change, target, keyspace, name, args);
  }
}
