package io.cqlrows.core;

import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.core.type.CustomType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the body of a RESULT message (native_protocol_v5.spec section 4.2.5): the kind, then for
 * ROWS the metadata, {@code rows_count} and every cell into a {@link RowSink}; the other kinds are
 * recognised and summarised, never misread as rows.
 *
 * <pre>{@code
 * ResultReader reader = new ResultReader(5, ParseLimits.defaults());   // one per connection
 * RowsCollector rows = new RowsCollector();
 * CqlResult result = reader.read(body, rows);                         // body: the RESULT body
 * for (Row row : rows.rows()) { float[] v = row.getFloatVector("embedding"); ... }
 * }</pre>
 *
 * <p>A {@link LazyPageSink} receives each ROWS result whole, as a {@link LazyPage} that is checked
 * and indexed here and decoded cell by cell when read; the page retains the body (see there).
 *
 * <p><b>Compiled once.</b> The deserializers of a set of columns are built on first use and reused:
 * for results that carry metadata, the reader compares the column-spec bytes with the previous
 * page's and skips re-parsing them when equal; for {@code No_metadata} results, pass the same
 * {@link ResultColumns} (from the PREPARED result) every time.
 *
 * <p><b>Ownership.</b> The body is borrowed: read from its reader index to its writer index, never
 * released or modified (indices included), and retained only by the {@link LazyPage} a {@link
 * LazyPageSink} receives, which releases it with itself. Bytes after a complete body are ignored,
 * as the spec asks of clients.
 *
 * <p><b>Malformed UTF-8.</b> Cassandra validates text when it is written, so it only ever sends
 * valid UTF-8. A {@code text} (or {@code varchar}) cell that is not valid UTF-8, or an {@code
 * ascii} cell with a byte above 0x7F, is {@link Reason#INVALID_VALUE}, with the offset of the first
 * bad byte, wherever the value is: a top-level cell, a list, set or map element, a UDT field, a
 * tuple component or a vector element. {@link ParseLimits#replaceMalformedText()} decodes such
 * values with U+FFFD instead. Cells of columns the sink does not want ({@link RowSink#wantsColumn})
 * are skipped undecoded, so they are not checked. Names ({@code [string]}: keyspaces, tables,
 * columns, UDT names and field names in {@code [option]}) are lenient: a malformed UTF-8 sequence
 * there becomes U+FFFD, without an error. The hex-encoded UDT names inside a custom class name are
 * strict: bytes that are not UTF-8 there are {@link Reason#INVALID_TYPE_NAME}.
 *
 * <p><b>Threading.</b> Not thread-safe: one instance per connection (or per thread). The {@link
 * ResultColumns} and metadata it returns are immutable and may be shared.
 */
public final class ResultReader {
  private static final int CACHE_SIZE = 32;

  private final int protocolVersion;
  private final ParseLimits limits;
  private final ProtocolFeatures features;
  private final MetadataReader metadataReader;
  private boolean rawCellsWithoutMetadata;

  /** Deserializers per column set, most recently used last. */
  private final Map<ResultColumns, ValueDeserializer[]> compiled =
      new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<ResultColumns, ValueDeserializer[]> e) {
          return size() > CACHE_SIZE;
        }
      };

  private ResultColumns lastColumns;
  private ValueDeserializer[] lastDeserializers;

  /** The columns last made up for a raw No_metadata result. */
  private ResultColumns lastRawColumns;

  /**
   * A reader for one connection.
   *
   * @param protocolVersion the negotiated native protocol version (3, 4, 5 or 6)
   * @param limits limits on untrusted input
   * @param features the protocol extensions negotiated in STARTUP ({@link ProtocolFeatures#NONE}
   *     for Cassandra); {@link ProtocolFeatures#SCYLLA_USE_METADATA_ID} makes v4 PREPARED results
   *     carry a {@code result_metadata_id}, {@link ProtocolFeatures#SCYLLA_LWT_ADD_METADATA_MARK}
   *     sets {@link PreparedResult#isLwt()}
   */
  public ResultReader(int protocolVersion, ParseLimits limits, ProtocolFeatures features) {
    if (protocolVersion < 3) {
      throw new IllegalArgumentException(
          "protocolVersion: " + protocolVersion + " (expected: >= 3)");
    }
    this.protocolVersion = protocolVersion;
    this.limits = java.util.Objects.requireNonNull(limits, "limits");
    this.features = java.util.Objects.requireNonNull(features, "features");
    this.metadataReader = new MetadataReader(protocolVersion, limits, features);
  }

  /** A reader without protocol extensions (a Cassandra connection). */
  public ResultReader(int protocolVersion, ParseLimits limits) {
    this(protocolVersion, limits, ProtocolFeatures.NONE);
  }

  /** A reader with {@link ParseLimits#defaults()} and no protocol extensions. */
  public ResultReader(int protocolVersion) {
    this(protocolVersion, ParseLimits.defaults());
  }

  /**
   * What to do with a {@code No_metadata} ROWS result when no prepared columns are given: by
   * default it is an error ({@link Reason#METADATA_MISMATCH}); when enabled, the columns are named
   * {@code column0}, {@code column1}... of an opaque custom type {@code 'unknown'} and every cell
   * is delivered as raw bytes (a replay tool's fallback).
   *
   * <p>Such a result carries no column specs, so its {@code columns_count} is only believed as far
   * as its rows need it: the count is checked against the bytes of the rows before any column is
   * made up, and a result without rows gets no columns at all ({@link RowsMetadata#columns()} is
   * empty, {@link RowsMetadata#columnCount()} is still the count as sent). A few bytes can thus
   * never make the reader build thousands of columns.
   *
   * @return this reader
   */
  public ResultReader rawCellsWithoutMetadata(boolean enabled) {
    this.rawCellsWithoutMetadata = enabled;
    return this;
  }

  /** The protocol version this reader parses. */
  public int protocolVersion() {
    return protocolVersion;
  }

  /** The limits this reader enforces. */
  public ParseLimits limits() {
    return limits;
  }

  /** The protocol extensions this reader applies. */
  public ProtocolFeatures features() {
    return features;
  }

  /**
   * A new reader with this one's version, limits and settings, applying {@code features}: for a
   * connection whose extensions are negotiated after its reader was made. Compiled columns are not
   * carried over.
   */
  public ResultReader withFeatures(ProtocolFeatures features) {
    return new ResultReader(protocolVersion, limits, features)
        .rawCellsWithoutMetadata(rawCellsWithoutMetadata);
  }

  /**
   * Reads a RESULT body whose ROWS (if any) carry their own metadata.
   *
   * @param body the RESULT body after the envelope prelude. Borrowed: not released or modified.
   * @param sink receives the rows of a ROWS result
   * @throws CqlParseException if the body is malformed; offsets are relative to the reader index
   */
  public CqlResult read(ByteBuf body, RowSink sink) {
    return read(body, sink, null);
  }

  /**
   * Reads a RESULT body; a {@code No_metadata} ROWS result is decoded with {@code preparedColumns}.
   *
   * @param body the RESULT body after the envelope prelude. Borrowed: not released or modified.
   * @param sink receives the rows of a ROWS result
   * @param preparedColumns the result columns of the prepared statement that was executed, or
   *     {@code null}
   * @throws CqlParseException if the body is malformed or the columns do not fit it
   */
  public CqlResult read(ByteBuf body, RowSink sink, ResultColumns preparedColumns) {
    if (!body.hasArray() && body.nioBufferCount() > 1 && body.isReadable()) {
      if (sink instanceof LazyPageSink) {
        return readCopy(body, sink, preparedColumns);
      }
      return readPieces(body, sink, preparedColumns);
    }
    return readBody(body, sink, preparedColumns);
  }

  /**
   * A body over several buffers (a composite, or a slice of one: a v5 envelope gathered from its
   * segments, say), read buffer by buffer instead of through the composite's component lookup: each
   * cell from its own buffer (from its backing array if it has one), and only rows that straddle
   * two buffers copied. Same events, values and errors as {@link #readBody}, which {@link
   * ResultStream} guarantees for any split of a body.
   */
  private CqlResult readPieces(ByteBuf body, RowSink sink, ResultColumns prepared) {
    int length = body.readableBytes();
    ByteBuffer[] parts = body.nioBuffers(body.readerIndex(), length);
    if (parts.length == 1) {
      return readBody(Unpooled.wrappedBuffer(parts[0].order(ByteOrder.BIG_ENDIAN)), sink, prepared);
    }
    try (ResultStream stream = stream(sink, prepared, length)) {
      for (ByteBuffer part : parts) {
        stream.feed(Unpooled.wrappedBuffer(part.order(ByteOrder.BIG_ENDIAN)));
      }
      return stream.result();
    }
  }

  /**
   * A body over several buffers for a {@link LazyPageSink}: copied once into one heap buffer, so
   * that its page reads cells from one array instead of through a composite's component lookup.
   * Errors are as on the body itself: offsets are relative to its start either way.
   */
  private CqlResult readCopy(ByteBuf body, RowSink sink, ResultColumns prepared) {
    int length = body.readableBytes();
    ByteBuf copy = Unpooled.buffer(length, length).writeBytes(body, body.readerIndex(), length);
    try {
      return readBody(copy, sink, prepared);
    } finally {
      copy.release(); // a page made from it holds its own reference
    }
  }

  /**
   * Starts parsing a RESULT body that arrives in pieces: feed them to the returned stream, and each
   * row reaches {@code sink} as soon as its bytes are in. Values, events and errors are those of
   * {@link #read(ByteBuf, RowSink, ResultColumns)} on the whole body.
   *
   * @param sink receives the rows of a ROWS result
   * @param preparedColumns the prepared statement's result columns, or {@code null}
   * @param bodyLength the length of the whole body (from the envelope header)
   * @return the stream; the caller must {@link ResultStream#close()} it
   */
  public ResultStream stream(RowSink sink, ResultColumns preparedColumns, int bodyLength) {
    return new ResultStream(this, sink, preparedColumns, bodyLength);
  }

  private CqlResult readBody(ByteBuf body, RowSink sink, ResultColumns preparedColumns) {
    int start = body.readerIndex();
    BodyReader in = new BodyReader(body, start, start, body.writerIndex());
    try {
      int at = in.position;
      int kind = in.readInt("kind");
      switch (kind) {
        case VoidResult.KIND:
          return new VoidResult();
        case RowsResult.KIND:
          return readRows(in, sink, preparedColumns);
        case SetKeyspaceResult.KIND:
          return new SetKeyspaceResult(in.readString("keyspace"));
        case PreparedResult.KIND:
          return metadataReader.readPrepared(in);
        case SchemaChangeResult.KIND:
          return MetadataReader.readSchemaChange(in);
        default:
          throw in.error(
              Reason.UNKNOWN_RESULT_KIND,
              "kind",
              at,
              "0x" + Integer.toHexString(kind) + " is not a RESULT kind");
      }
    } catch (CqlParseException e) {
      throw e.withContext(body, start, -1, -1, null, null);
    }
  }

  private RowsResult readRows(BodyReader in, RowSink sink, ResultColumns prepared) {
    RowsParser rows = readRowsHeader(in, sink, prepared, in.remaining());
    if (sink instanceof LazyPageSink lazy) {
      LazyPage page = LazyPage.index(rows, in.buf, in.start, in.position, in.end, lazy.copies());
      lazy.add(page);
      sink.onResultEnd(rows.rowCount());
      return rows.result();
    }
    in.position = rows.parse(in.buf, in.start, in.position, in.end, true);
    RowsResult result = rows.result();
    sink.onResultEnd(result.rowCount());
    return result;
  }

  /**
   * Reads a ROWS result's metadata and {@code rows_count} (the kind has been read), then starts the
   * result in the sink; nothing reaches the sink if this throws.
   *
   * @param bytesLeft how many bytes the body holds from {@code in.position} on, those not yet
   *     received included (see {@link ResultStream})
   * @return the row loop, positioned before the first row
   */
  RowsParser readRowsHeader(BodyReader in, RowSink sink, ResultColumns prepared, long bytesLeft) {
    int from = in.position;
    RowsMetadata metadata = metadataReader.readRowsMetadata(in, prepared, rawCellsWithoutMetadata);
    int countAt = in.position;
    int rowCount = in.readInt("rows_count");
    int columnCount = metadata.columnCount();
    checkRowCount(in, rowCount, columnCount, countAt, bytesLeft - (in.position - from));
    if (metadata.columns() == null) {
      // raw No_metadata: columns are made up only now that the rows' bytes vouch for them
      metadata = metadata.withColumns(rawColumns(rowCount == 0 ? 0 : columnCount));
    }
    ValueDeserializer[] deserializers = deserializersFor(metadata.columns());
    sink.onResultStart(metadata, rowCount);
    sink.onRowsContentLength((int) Math.min(Integer.MAX_VALUE, bytesLeft - (in.position - from)));
    return new RowsParser(metadata, deserializers, sink, rowCount);
  }

  private static void checkRowCount(
      BodyReader in, int rowCount, int columnCount, int at, long bytesLeft) {
    if (rowCount < 0) {
      throw in.error(Reason.INVALID_COUNT, "rows_count", at, rowCount + " (expected: >= 0)");
    }
    if (columnCount == 0 && rowCount > 0) {
      throw in.error(Reason.INVALID_COUNT, "rows_count", at, rowCount + " rows without columns");
    }
    // every cell takes at least its 4-byte length
    long need = (long) rowCount * columnCount * 4;
    if (need > bytesLeft) {
      throw in.error(
          Reason.TRUNCATED,
          "rows_count",
          at,
          rowCount
              + " rows x "
              + columnCount
              + " columns need at least "
              + need
              + " bytes, have "
              + bytesLeft);
    }
  }

  /** The made-up columns of a raw No_metadata result; the last set is reused. */
  private ResultColumns rawColumns(int count) {
    if (lastRawColumns == null || lastRawColumns.size() != count) {
      List<ColumnSpec> specs = new ArrayList<>(count);
      CustomType unknown = new CustomType("unknown");
      for (int i = 0; i < count; i++) {
        specs.add(new ColumnSpec("", "", "column" + i, unknown));
      }
      lastRawColumns = ResultColumns.of(specs);
    }
    return lastRawColumns;
  }

  /** The deserializers of a column set: compiled on first use, then taken from the cache. */
  @SuppressWarnings("ReferenceEquality") // the very columns of the last call
  ValueDeserializer[] deserializersFor(ResultColumns columns) {
    if (columns == lastColumns) {
      return lastDeserializers;
    }
    ValueDeserializer[] d = compiled.get(columns);
    if (d == null) {
      d = DeserializerFactory.forColumns(columns.specs(), limits);
      compiled.put(columns, d);
    }
    lastColumns = columns;
    lastDeserializers = d;
    return d;
  }
}
