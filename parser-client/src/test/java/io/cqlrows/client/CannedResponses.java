package io.cqlrows.client;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.cqlrows.netty.frame.CqlServerError;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.request.DecodedRequest;
import io.cqlrows.testing.CqlBytes;
import io.netty.buffer.ByteBufUtil;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@link FakeCqlServer} answers, by request (bodies built with {@link CqlBytes}):
 *
 * <ul>
 *   <li>{@code SELECT ...}: ROWS {@code (stream int, query varchar)}, one row: the request's stream
 *       id and text.
 *   <li>{@code HOLD ...}: nothing until {@code RELEASE}, which is answered first, then every held
 *       request, in one flush; or until {@link #releaseHeld} (without a {@code RELEASE}).
 *   <li>{@code FAIL ...}: ERROR Invalid (0x2200). {@code NEVER}: no answer. {@code CLOSE}: the
 *       server closes the connection.
 *   <li>{@code ECHO}: ROWS {@code (v blob)}, a row per bound value. {@code BIG n}: one blob of n
 *       bytes.
 *   <li>{@code PAGE}: one row with {@code Has_more_pages} and paging state {@code 0xCAFE}; with
 *       that paging state, the last row without.
 *   <li>{@code PAGES n}: ROWS {@code (id int)}, ids 0 to n - 1 in pages of the request's page size
 *       (all at once without one); while ids remain, {@code Has_more_pages} with the next id as the
 *       paging state (4 bytes), from which the request with that paging state goes on.
 *   <li>{@code VECTORS n}: ROWS {@code (id int, v vector<float, 128>)}, n rows in one result,
 *       element j of row i {@link #vectorElement}{@code (i, j)}: 524 bytes a row that LZ4 cannot
 *       shrink.
 *   <li>{@code ALTER}: Void; the statement's result gets a third column and a new metadata id.
 *   <li>PREPARE: id {@code 0x0102}, metadata id {@code 0x0A} (or {@code 0x0B} after ALTER), one int
 *       variable, result {@code (id int, name varchar[, extra varchar])}. EXECUTE: one row {@code
 *       (the bound int, "executed"[, "extra"])}: with {@code No_metadata} when asked to skip it,
 *       and with {@code Metadata_changed} (v5, or v4 with SCYLLA_USE_METADATA_ID) when the
 *       request's metadata id is stale.
 *   <li>ScyllaDB extensions, once {@link #negotiate} saw them in STARTUP: {@code SELECT ... IF ...}
 *       prepared with the LWT bit 0x80000000 in its prepared flags; {@code TABLETS}: rows with a
 *       {@code tablets-routing-v1} custom payload ({@link #TABLET_FIRST}, {@link #TABLET_LAST}, two
 *       replicas); {@code RATELIMIT}: the rate-limit error 0xF000 (a write, rejected by the
 *       coordinator), or Config_error without the extension.
 * </ul>
 *
 * <p>One instance per connection; not thread-safe.
 */
final class CannedResponses {
  /** One response: its stream, opcode, extra header flags and body (prelude included). */
  @SuppressWarnings("ArrayRecordComponent") // a holder of bytes, never compared
  record Response(int streamId, Opcode opcode, int flags, byte[] body) {
    Response(int streamId, Opcode opcode, byte[] body) {
      this(streamId, opcode, 0, body);
    }
  }

  static final String PREPARED_ID = "0102";
  static final long TABLET_FIRST = -4611686018427387904L;
  static final long TABLET_LAST = -2305843009213693952L;
  static final String REPLICA_1 = "6a2f9f4e-4a5b-4b36-9a3e-0c7d1f2e3a4b";
  static final String REPLICA_2 = "0d1c2b3a-4958-4677-8695-a4b3c2d1e0f9";
  static final int RATE_LIMIT_ERROR = 0xF000;
  private static final int LWT_FLAG = 0x80000000;
  private static final int KIND_VOID = 1;
  private static final int KIND_ROWS = 2;
  private static final int KIND_PREPARED = 4;
  private static final int INT = 0x0009;
  private static final int VARCHAR = 0x000D;
  private static final int BLOB = 0x0003;
  static final int DIMENSION = 128;
  private static final String FLOAT_VECTOR =
      "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , "
          + DIMENSION
          + ")";
  private static final int GLOBAL_TABLES_SPEC = 0x0001;
  private static final int HAS_MORE_PAGES = 0x0002;
  private static final int NO_METADATA = 0x0004;
  private static final int METADATA_CHANGED = 0x0008;

  private final List<DecodedRequest> held = new ArrayList<>();
  private boolean altered;
  private boolean metadataIds;
  private boolean lwtMark;
  private boolean tablets;
  private boolean rateLimitError;

  CannedResponses(int version) {
    this.metadataIds = version >= 5;
  }

  /** Applies the ScyllaDB extensions a STARTUP names (by key, as the server reads them). */
  void negotiate(java.util.Map<String, String> startup) {
    metadataIds |= startup.containsKey("SCYLLA_USE_METADATA_ID");
    lwtMark = startup.containsKey("SCYLLA_LWT_ADD_METADATA_MARK");
    tablets = startup.containsKey("TABLETS_ROUTING_V1");
    rateLimitError = startup.containsKey("SCYLLA_RATE_LIMIT_ERROR");
  }

  /** Whether PREPARED and EXECUTE carry result_metadata_id on this connection. */
  boolean metadataIds() {
    return metadataIds;
  }

  /** An ERROR response. */
  static Response error(int streamId, int code, String message) {
    return new Response(
        streamId, Opcode.ERROR, CqlBytes.create().int32(code).string(message).toArray());
  }

  /** The responses to one request, in order; empty for none. */
  List<Response> answer(DecodedRequest r) {
    switch (r.opcode()) {
      case PREPARE:
        return List.of(prepared(r));
      case EXECUTE:
        return List.of(executed(r));
      case QUERY:
        return query(r);
      default:
        return List.of(error(r.streamId(), 0x000A, "unexpected " + r.opcode()));
    }
  }

  private List<Response> query(DecodedRequest r) {
    String q = r.query();
    if (q.startsWith("HOLD")) {
      held.add(r);
      return List.of();
    }
    if (q.equals("NEVER")) {
      return List.of();
    }
    if (q.startsWith("FAIL")) {
      return List.of(error(r.streamId(), CqlServerError.INVALID, "cannot run: " + q));
    }
    if (q.equals("RATELIMIT")) {
      return List.of(rateLimited(r.streamId()));
    }
    if (q.equals("TABLETS")) {
      Response rows = queryResult(r);
      if (!tablets) {
        return List.of(rows);
      }
      byte[] payload =
          CqlBytes.create()
              .int16(1)
              .string("tablets-routing-v1")
              .bytes(ByteBufUtil.hexDump(tabletRouting()))
              .toArray();
      byte[] body = new byte[payload.length + rows.body().length];
      System.arraycopy(payload, 0, body, 0, payload.length);
      System.arraycopy(rows.body(), 0, body, payload.length, rows.body().length);
      return List.of(new Response(r.streamId(), Opcode.RESULT, 0x04, body));
    }
    List<Response> out = new ArrayList<>();
    out.add(queryResult(r));
    if (q.equals("RELEASE")) {
      out.addAll(releaseHeld());
    }
    return out;
  }

  /** The answers of every held request, in the order they came; none is held afterwards. */
  List<Response> releaseHeld() {
    List<Response> out = new ArrayList<>();
    held.forEach(h -> out.add(queryResult(h)));
    held.clear();
    return out;
  }

  private Response queryResult(DecodedRequest r) {
    String q = r.query();
    if (q.equals("ALTER")) {
      altered = true;
      return rows(r, CqlBytes.create().int32(KIND_VOID));
    }
    if (q.equals("ECHO")) {
      CqlBytes b = rowsHeader(GLOBAL_TABLES_SPEC, 1).columnSpec("v", BLOB).int32(r.values().size());
      for (String v : r.values()) {
        if ("NULL".equals(v)) {
          b.nullCell();
        } else {
          b.bytes(v);
        }
      }
      return rows(r, b);
    }
    if (q.startsWith("BIG ")) {
      byte[] big = new byte[Integer.parseInt(q.substring(4))];
      for (int i = 0; i < big.length; i++) {
        big[i] = (byte) (i * 31);
      }
      return rows(
          r,
          rowsHeader(GLOBAL_TABLES_SPEC, 1)
              .columnSpec("v", BLOB)
              .int32(1)
              .bytes(ByteBufUtil.hexDump(big)));
    }
    if (q.startsWith("PAGES ")) {
      return pages(r, Integer.parseInt(q.substring(6)));
    }
    if (q.startsWith("VECTORS ")) {
      return vectors(r, Integer.parseInt(q.substring(8)));
    }
    if (q.equals("PAGE")) {
      boolean first = r.pagingState() == null;
      CqlBytes b =
          CqlBytes.create()
              .int32(KIND_ROWS)
              .int32(GLOBAL_TABLES_SPEC | (first ? HAS_MORE_PAGES : 0))
              .int32(1);
      if (first) {
        b.bytes("cafe");
      }
      b.string("ks")
          .string("t")
          .columnSpec("page", INT)
          .int32(1)
          .bytes(first ? "00000001" : "00000002");
      return rows(r, b);
    }
    CqlBytes b =
        rowsHeader(GLOBAL_TABLES_SPEC, 2)
            .columnSpec("stream", INT)
            .columnSpec("query", VARCHAR)
            .int32(1);
    b.bytes(String.format("%08x", r.streamId())).bytes(hex(q));
    return rows(r, b);
  }

  /**
   * {@code PAGES total}: the page the request's paging state (the next id) and page size ask for.
   */
  private static Response pages(DecodedRequest r, int total) {
    int from = r.pagingState() == null ? 0 : Integer.parseInt(r.pagingState(), 16);
    int to = r.pageSize() > 0 ? Math.min(total, from + r.pageSize()) : total;
    boolean more = to < total;
    CqlBytes b =
        CqlBytes.create()
            .int32(KIND_ROWS)
            .int32(GLOBAL_TABLES_SPEC | (more ? HAS_MORE_PAGES : 0))
            .int32(1);
    if (more) {
      b.bytes(String.format("%08x", to));
    }
    b.string("ks").string("t").columnSpec("id", INT).int32(to - from);
    for (int id = from; id < to; id++) {
      b.bytes(String.format("%08x", id));
    }
    return rows(r, b);
  }

  /** {@code VECTORS n}: n rows of an id and a vector of {@link #vectorElement}s. */
  private static Response vectors(DecodedRequest r, int n) {
    CqlBytes b =
        rowsHeader(GLOBAL_TABLES_SPEC, 2)
            .columnSpec("id", INT)
            .customColumnSpec("v", FLOAT_VECTOR)
            .int32(n);
    ByteBuffer cell = ByteBuffer.allocate(4 * DIMENSION);
    for (int id = 0; id < n; id++) {
      cell.clear();
      for (int j = 0; j < DIMENSION; j++) {
        cell.putFloat(vectorElement(id, j));
      }
      b.bytes(String.format("%08x", id)).int32(cell.capacity()).raw(cell.array());
    }
    return rows(r, b);
  }

  /** Element {@code j} of the vector of row {@code id} of {@code VECTORS}: a hash in [0, 1). */
  static float vectorElement(int id, int j) {
    int h = id * 0x9E3779B9 + j * 0x85EBCA6B;
    h ^= h >>> 15;
    h *= 0x2C1B3C6D;
    h ^= h >>> 12;
    return (h >>> 8) / (float) (1 << 24);
  }

  /**
   * ScyllaDB's rate-limit error (exceptions.hh, server.cc): code, message, op_type 1 (write),
   * rejected_by_coordinator 1; Config_error when the extension is off.
   */
  private Response rateLimited(int stream) {
    if (!rateLimitError) {
      return error(stream, 0x2300, "Per-partition rate limit reached");
    }
    return new Response(
        stream,
        Opcode.ERROR,
        CqlBytes.create()
            .int32(RATE_LIMIT_ERROR)
            .string("Per-partition rate limit reached")
            .int8(1)
            .int8(1)
            .toArray());
  }

  /** {@code tuple<bigint, bigint, list<frozen<tuple<uuid, int>>>>}, as server.cc writes it. */
  static byte[] tabletRouting() {
    CqlBytes list = CqlBytes.create().int32(2);
    for (String[] replica : new String[][] {{REPLICA_1, "00000001"}, {REPLICA_2, "00000000"}}) {
      byte[] tuple =
          CqlBytes.create().bytes(replica[0].replace("-", "")).bytes(replica[1]).toArray();
      list.bytes(ByteBufUtil.hexDump(tuple));
    }
    return CqlBytes.create()
        .bytes(String.format("%016x", TABLET_FIRST))
        .bytes(String.format("%016x", TABLET_LAST))
        .bytes(ByteBufUtil.hexDump(list.toArray()))
        .toArray();
  }

  private Response prepared(DecodedRequest r) {
    CqlBytes b = CqlBytes.create().int32(KIND_PREPARED).int16(2).hex(PREPARED_ID);
    if (metadataIds) {
      b.int16(1).hex(metadataId());
    }
    // prepared metadata: Global_tables_spec (and the LWT bit), one variable, pk_count 1 (index 0)
    boolean lwt = lwtMark && r.query().contains(" IF ");
    b.int32(GLOBAL_TABLES_SPEC | (lwt ? LWT_FLAG : 0))
        .int32(1)
        .int32(1)
        .int16(0)
        .string("ks")
        .string("t")
        .columnSpec("id", INT);
    resultColumns(b, GLOBAL_TABLES_SPEC);
    return new Response(r.streamId(), Opcode.RESULT, b.toArray());
  }

  private Response executed(DecodedRequest r) {
    boolean stale = metadataIds && !metadataId().equals(r.resultMetadataId());
    boolean skip = (r.flags() & 0x02) != 0;
    CqlBytes b = CqlBytes.create().int32(KIND_ROWS);
    if (stale) {
      b.int32(GLOBAL_TABLES_SPEC | METADATA_CHANGED)
          .int32(columnCount())
          .int16(1)
          .hex(metadataId());
      specs(b.string("ks").string("t"));
    } else if (skip) {
      b.int32(NO_METADATA).int32(columnCount());
    } else {
      resultColumns(b, GLOBAL_TABLES_SPEC);
    }
    b.int32(1).bytes(r.values().get(0)).bytes(hex("executed"));
    if (altered) {
      b.bytes(hex("extra"));
    }
    return new Response(r.streamId(), Opcode.RESULT, b.toArray());
  }

  /** Rows metadata of the prepared statement's result, with Global_tables_spec. */
  private void resultColumns(CqlBytes b, int flags) {
    specs(b.int32(flags).int32(columnCount()).string("ks").string("t"));
  }

  private void specs(CqlBytes b) {
    b.columnSpec("id", INT).columnSpec("name", VARCHAR);
    if (altered) {
      b.columnSpec("extra", VARCHAR);
    }
  }

  private int columnCount() {
    return altered ? 3 : 2;
  }

  private String metadataId() {
    return altered ? "0b" : "0a";
  }

  private static CqlBytes rowsHeader(int flags, int columns) {
    return CqlBytes.create().int32(KIND_ROWS).int32(flags).int32(columns).string("ks").string("t");
  }

  private static String hex(String text) {
    return ByteBufUtil.hexDump(text.getBytes(UTF_8));
  }

  private static Response rows(DecodedRequest r, CqlBytes body) {
    return new Response(r.streamId(), Opcode.RESULT, body.toArray());
  }
}
