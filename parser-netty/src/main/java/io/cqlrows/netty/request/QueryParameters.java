package io.cqlrows.netty.request;

import io.cqlrows.core.CqlResult;
import io.cqlrows.core.PagingState;
import io.cqlrows.core.RowsResult;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code <query_parameters>} of QUERY and EXECUTE (section 4.1.4 of native_protocol_v4.spec and
 * v5.spec):
 *
 * <pre>
 * consistency[short] flags(v4: byte, v5: [int]) [n[short] value_1..value_n] [result_page_size[int]]
 *     [paging_state[bytes]] [serial_consistency[short]] [timestamp[long]]
 * </pre>
 *
 * <p>Positional values only (no {@code With names for values}); no keyspace or now_in_seconds (v5
 * flags 0x80 and 0x100).
 *
 * <pre>{@code
 * QueryParameters p = QueryParameters.of(Consistency.LOCAL_ONE)
 *     .withValues(Unpooled.wrappedBuffer(id))   // a [value] per bind marker, serialized
 *     .withPageSize(5000);
 * // the response to a request sent with p:
 * Optional<QueryParameters> next = p.nextPage(response.result()); // empty after the last page
 * }</pre>
 *
 * <p><b>Ownership.</b> Values are <em>viewed</em>, never copied, retained or released: a {@link
 * ByteBuf} or {@code byte[]} handed in is Borrowed until the request that uses these parameters has
 * been encoded, and must not be released or modified before then. A {@link PagingState} is
 * immutable.
 *
 * <p><b>Threading.</b> Immutable: every {@code with...} returns a new instance. Safe to share once
 * the borrowed values are no longer modified.
 */
public final class QueryParameters {
  /** Flag 0x01: a {@code [short]} n and n {@code [value]}s follow. */
  public static final int FLAG_VALUES = 0x01;

  /** Flag 0x02: {@code Skip_metadata}, ROWS results come back with {@code No_metadata}. */
  public static final int FLAG_SKIP_METADATA = 0x02;

  /** Flag 0x04: {@code result_page_size} follows. */
  public static final int FLAG_PAGE_SIZE = 0x04;

  /** Flag 0x08: {@code paging_state} follows. */
  public static final int FLAG_WITH_PAGING_STATE = 0x08;

  /** Flag 0x10: {@code serial_consistency} follows. */
  public static final int FLAG_WITH_SERIAL_CONSISTENCY = 0x10;

  /** Flag 0x20: a default {@code timestamp} follows. */
  public static final int FLAG_WITH_DEFAULT_TIMESTAMP = 0x20;

  /**
   * A value that is "not set" (length -2, native_protocol_v4.spec section 3): compare by identity.
   */
  public static final ByteBuffer UNSET = ByteBuffer.allocate(0).asReadOnlyBuffer();

  private static final long NO_TIMESTAMP = Long.MIN_VALUE;

  private final Consistency consistency;

  /** Positional values; a null element is a NULL value. Unmodifiable. */
  private final List<ByteBuffer> values;

  /** Page size in rows, or 0 for none. */
  private final int pageSize;

  /** The paging state, or null for the first page. */
  private final PagingState pagingState;

  private final boolean skipMetadata;

  /** Serial consistency, or null. */
  private final Consistency serialConsistency;

  /** Default timestamp in microseconds, or {@link #NO_TIMESTAMP}. */
  private final long defaultTimestamp;

  /** Whether the request asks the server to trace it. */
  private final boolean tracing;

  private QueryParameters(
      Consistency consistency,
      List<ByteBuffer> values,
      int pageSize,
      PagingState pagingState,
      boolean skipMetadata,
      Consistency serialConsistency,
      long defaultTimestamp,
      boolean tracing) {
    this.consistency = Objects.requireNonNull(consistency, "consistency");
    this.values = values;
    this.pageSize = pageSize;
    this.pagingState = pagingState;
    this.skipMetadata = skipMetadata;
    this.serialConsistency = serialConsistency;
    this.defaultTimestamp = defaultTimestamp;
    this.tracing = tracing;
  }

  /** Parameters with this consistency and nothing else: no values, no paging. */
  public static QueryParameters of(Consistency consistency) {
    return new QueryParameters(consistency, List.of(), 0, null, false, null, NO_TIMESTAMP, false);
  }

  /**
   * With these positional values, each a serialized CQL value ({@code [value]}).
   *
   * @param values {@code null} elements are NULL; the others are read from reader index to writer
   *     index. Borrowed (see the class Javadoc). A value that is not set ({@link #UNSET}) needs
   *     {@link #withValues(List)}.
   */
  public QueryParameters withValues(ByteBuf... values) {
    List<ByteBuffer> list = new ArrayList<>(values.length);
    for (ByteBuf v : values) {
      list.add(v == null ? null : v.nioBuffer(v.readerIndex(), v.readableBytes()));
    }
    return withValueList(list);
  }

  /**
   * With these positional values, each a serialized CQL value ({@code [value]}).
   *
   * @param values {@code null} elements are NULL. Borrowed (see the class Javadoc). A value that is
   *     not set ({@link #UNSET}) needs {@link #withValues(List)}.
   */
  public QueryParameters withValues(byte[]... values) {
    List<ByteBuffer> list = new ArrayList<>(values.length);
    for (byte[] v : values) {
      list.add(v == null ? null : ByteBuffer.wrap(v));
    }
    return withValueList(list);
  }

  /**
   * With these positional values, each a serialized CQL value ({@code [value]}).
   *
   * @param values {@code null} elements are NULL, {@link #UNSET} is not set; the others are read
   *     from position to limit. Borrowed (see the class Javadoc).
   */
  public QueryParameters withValues(List<ByteBuffer> values) {
    return withValueList(new ArrayList<>(values));
  }

  private QueryParameters withValueList(List<ByteBuffer> list) {
    if (list.size() > 0xFFFF) {
      throw new IllegalArgumentException("values: " + list.size() + " (expected: <= 65535)");
    }
    return new QueryParameters(
        consistency,
        Collections.unmodifiableList(list),
        pageSize,
        pagingState,
        skipMetadata,
        serialConsistency,
        defaultTimestamp,
        tracing);
  }

  /** With a page size in rows; 0 or less for none (the server's default: everything at once). */
  public QueryParameters withPageSize(int pageSize) {
    return new QueryParameters(
        consistency,
        values,
        Math.max(0, pageSize),
        pagingState,
        skipMetadata,
        serialConsistency,
        defaultTimestamp,
        tracing);
  }

  /**
   * With the paging state to continue from, or {@code null} for the first page. {@link #nextPage}
   * takes it from the previous page's result for you.
   *
   * @param pagingState {@link io.cqlrows.core.RowsMetadata#pagingState()} of a page of the same
   *     statement with the same values (see {@link PagingState}), or {@code null}
   */
  public QueryParameters withPagingState(PagingState pagingState) {
    return new QueryParameters(
        consistency,
        values,
        pageSize,
        pagingState,
        skipMetadata,
        serialConsistency,
        defaultTimestamp,
        tracing);
  }

  /**
   * The parameters that ask for the page after {@code previous}: these, with its paging state. Send
   * them with the same query or prepared statement as the request these parameters made {@code
   * previous} with. Loop until it is empty to read every page.
   *
   * @param previous the result of a request sent with these parameters ({@code
   *     RowsResponse.result()})
   * @return empty when there is no next page: {@code previous} is the last page ({@link
   *     io.cqlrows.core.RowsMetadata#hasMorePages()} is false), or not a ROWS result
   */
  public Optional<QueryParameters> nextPage(CqlResult previous) {
    Objects.requireNonNull(previous, "previous");
    if (!(previous instanceof RowsResult rows)) {
      return Optional.empty();
    }
    return rows.metadata().pagingState().map(this::withPagingState);
  }

  /** With or without {@code Skip_metadata} (flag 0x02; meaningful for EXECUTE). */
  public QueryParameters withSkipMetadata(boolean skipMetadata) {
    return new QueryParameters(
        consistency,
        values,
        pageSize,
        pagingState,
        skipMetadata,
        serialConsistency,
        defaultTimestamp,
        tracing);
  }

  /** With a serial consistency ({@link Consistency#SERIAL} or {@code LOCAL_SERIAL}), or null. */
  public QueryParameters withSerialConsistency(Consistency serialConsistency) {
    return new QueryParameters(
        consistency,
        values,
        pageSize,
        pagingState,
        skipMetadata,
        serialConsistency,
        defaultTimestamp,
        tracing);
  }

  /**
   * With a default timestamp for the writes of the request, in microseconds since the epoch.
   *
   * @throws IllegalArgumentException if negative (the spec forbids it)
   */
  public QueryParameters withDefaultTimestamp(long micros) {
    if (micros < 0) {
      throw new IllegalArgumentException("timestamp: " + micros + " (expected: >= 0)");
    }
    return new QueryParameters(
        consistency,
        values,
        pageSize,
        pagingState,
        skipMetadata,
        serialConsistency,
        micros,
        tracing);
  }

  /**
   * With or without tracing: the request is sent with the envelope's tracing flag (0x02, section
   * 2.2 of the spec), the server records its trace in {@code system_traces}, and the response
   * carries the trace's session id ({@code RowsResponse.tracingId()}). The next pages keep it.
   */
  public QueryParameters withTracing(boolean tracing) {
    return new QueryParameters(
        consistency,
        values,
        pageSize,
        pagingState,
        skipMetadata,
        serialConsistency,
        defaultTimestamp,
        tracing);
  }

  /** Whether the request asks the server to trace it. */
  public boolean tracing() {
    return tracing;
  }

  /** The consistency level. */
  public Consistency consistency() {
    return consistency;
  }

  /** The positional values (unmodifiable; null elements are NULL). */
  public List<ByteBuffer> values() {
    return values;
  }

  /** The page size, or 0 for none. */
  public int pageSize() {
    return pageSize;
  }

  /** The paging state to continue from; empty for the first page. */
  public Optional<PagingState> pagingState() {
    return Optional.ofNullable(pagingState);
  }

  /** Whether {@code Skip_metadata} is set. */
  public boolean skipMetadata() {
    return skipMetadata;
  }

  /** The flags these parameters are written with ({@code FLAG_*}). */
  public int flags() {
    int flags = values.isEmpty() ? 0 : FLAG_VALUES;
    flags |= skipMetadata ? FLAG_SKIP_METADATA : 0;
    flags |= pageSize > 0 ? FLAG_PAGE_SIZE : 0;
    flags |= pagingState != null ? FLAG_WITH_PAGING_STATE : 0;
    flags |= serialConsistency != null ? FLAG_WITH_SERIAL_CONSISTENCY : 0;
    flags |= defaultTimestamp != NO_TIMESTAMP ? FLAG_WITH_DEFAULT_TIMESTAMP : 0;
    return flags;
  }

  /**
   * Writes {@code <query_parameters>} at the writer index of {@code out}.
   *
   * @param protocolVersion 4 or 5: v4 writes the flags as a byte, v5 as an {@code [int]}
   */
  void writeTo(ByteBuf out, int protocolVersion) {
    int flags = flags();
    out.writeShort(consistency.code());
    if (protocolVersion >= 5) {
      out.writeInt(flags);
    } else {
      out.writeByte(flags);
    }
    if (!values.isEmpty()) {
      out.writeShort(values.size());
      for (ByteBuffer v : values) {
        WireWriter.value(out, v);
      }
    }
    if (pageSize > 0) {
      out.writeInt(pageSize);
    }
    if (pagingState != null) {
      WireWriter.value(out, ByteBuffer.wrap(pagingState.bytes()));
    }
    if (serialConsistency != null) {
      out.writeShort(serialConsistency.code());
    }
    if (defaultTimestamp != NO_TIMESTAMP) {
      out.writeLong(defaultTimestamp);
    }
  }
}
