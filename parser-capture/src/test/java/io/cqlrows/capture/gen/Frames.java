package io.cqlrows.capture.gen;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes protocol v4 envelopes (native_protocol_v4.spec: the 9-byte header of section 2, the
 * request bodies of 4.1, the response bodies of 4.2), uncompressed, flags 0, into a {@link Bytes}.
 * Written independently of the module's own encoders, whose decoding this generator checks.
 * Stateless.
 */
final class Frames {
  static final int REQUEST = 0x04;
  static final int RESPONSE = 0x84;

  static final int ERROR = 0x00;
  static final int STARTUP = 0x01;
  static final int READY = 0x02;
  static final int OPTIONS = 0x05;
  static final int SUPPORTED = 0x06;
  static final int QUERY = 0x07;
  static final int RESULT = 0x08;
  static final int PREPARE = 0x09;
  static final int EXECUTE = 0x0A;
  static final int BATCH = 0x0D;

  /** Consistency levels. */
  static final int LOCAL_QUORUM = 0x0006;

  static final int LOCAL_ONE = 0x000A;

  /** Query flags. */
  private static final int VALUES = 0x01;

  private static final int SKIP_METADATA = 0x02;
  private static final int PAGE_SIZE = 0x04;
  private static final int WITH_PAGING_STATE = 0x08;

  /** Rows flags. */
  private static final int GLOBAL_TABLES_SPEC = 0x0001;

  private static final int HAS_MORE_PAGES = 0x0002;
  private static final int NO_METADATA = 0x0004;

  /** [option] ids. */
  private static final int BLOB = 0x0003;

  private static final int INT = 0x0009;
  private static final int VARCHAR = 0x000D;

  private Frames() {}

  /** Writes a header with length 0 and returns where it starts, for {@link #end}. */
  static int begin(Bytes b, int version, int stream, int opcode) {
    int start = b.length();
    b.u8(version).u8(0).u16(stream).u8(opcode).i32(0);
    return start;
  }

  /** Sets the body length of the envelope begun at {@code start}; returns 9 + body length. */
  static int end(Bytes b, int start) {
    int body = b.length() - start - 9;
    b.putInt(start + 5, body);
    return 9 + body;
  }

  static int options(Bytes b, int stream) {
    return end(b, begin(b, REQUEST, stream, OPTIONS));
  }

  static int startup(Bytes b, int stream) {
    int start = begin(b, REQUEST, stream, STARTUP);
    b.stringMap(Map.of("CQL_VERSION", "3.0.0"));
    return end(b, start);
  }

  static int supported(Bytes b, int stream) {
    int start = begin(b, RESPONSE, stream, SUPPORTED);
    Map<String, List<String>> m = new LinkedHashMap<>();
    m.put("CQL_VERSION", List.of("3.4.7"));
    m.put("COMPRESSION", List.of("snappy", "lz4"));
    m.put("PROTOCOL_VERSIONS", List.of("3/v3", "4/v4", "5/v5"));
    b.stringMultimap(m);
    return end(b, start);
  }

  static int ready(Bytes b, int stream) {
    return end(b, begin(b, RESPONSE, stream, READY));
  }

  /** PREPARE: {@code <query: long string>} (v4 has no flags). */
  static int prepare(Bytes b, int stream, Statement s) {
    int start = begin(b, REQUEST, stream, PREPARE);
    b.longString(s.text);
    return end(b, start);
  }

  /**
   * QUERY ({@code <query: long string><query_parameters>}) or EXECUTE ({@code <id: short
   * bytes><query_parameters>}) of a SELECT (one int value, page size 5000, the paging state if any)
   * or an INSERT (three values: id, name, a payload of {@code payload} bytes of {@code pattern}).
   *
   * @param pagingState the paging state of a page after the first, else null
   */
  static int queryOrExecute(
      Bytes b, int stream, Statement s, int id, byte[] pagingState, int payload, byte[] pattern) {
    int start = begin(b, REQUEST, stream, s.prepared ? EXECUTE : QUERY);
    if (s.prepared) {
      b.shortBytes(s.id);
    } else {
      b.longString(s.text);
    }
    // <consistency><flags>[<n><value_1>...<value_n>][<result_page_size>][<paging_state>]
    if (s.kind == Statement.Kind.SELECT) {
      int flags = VALUES | PAGE_SIZE | (s.skipMetadata ? SKIP_METADATA : 0);
      b.u16(LOCAL_ONE).u8(flags | (pagingState != null ? WITH_PAGING_STATE : 0));
      b.u16(1).i32(4).i32(id);
      b.i32(5000);
      if (pagingState != null) {
        b.i32(pagingState.length).raw(pagingState);
      }
    } else {
      b.u16(LOCAL_QUORUM).u8(VALUES);
      b.u16(3).i32(4).i32(id);
      utf8Cell(b, "n" + id);
      b.bytesFrom(pattern, id & 0xffff, payload);
    }
    return end(b, start);
  }

  /**
   * BATCH: {@code <type><n><query_1>...<query_n><consistency><flags>}, type 0 (logged), each query
   * {@code <kind><string_or_id><n>} with 0 values, flags 0.
   */
  static int batch(Bytes b, int stream, Statement s) {
    int start = begin(b, REQUEST, stream, BATCH);
    b.u8(0).u16(s.members.size());
    for (Statement.Member m : s.members) {
      if (m.prepared() != null) {
        b.u8(1).shortBytes(m.prepared().id);
      } else {
        b.u8(0).longString(m.text());
      }
      b.u16(0);
    }
    b.u16(LOCAL_QUORUM).u8(0);
    return end(b, start);
  }

  /** RESULT Void: {@code [int] 0x0001}. */
  static int voidResult(Bytes b, int stream) {
    int start = begin(b, RESPONSE, stream, RESULT);
    b.i32(0x0001);
    return end(b, start);
  }

  /**
   * RESULT Prepared: {@code <id><metadata><result_metadata>}; the bind markers' metadata (id, or
   * id, name, payload for an INSERT; partition key: the first marker), then the Rows metadata of a
   * SELECT or No_metadata with no column for an INSERT.
   */
  static int prepared(Bytes b, int stream, Statement s) {
    int start = begin(b, RESPONSE, stream, RESULT);
    b.i32(0x0004).shortBytes(s.id);
    boolean select = s.kind == Statement.Kind.SELECT;
    // <flags><columns_count><pk_count>[<pk_index_1>...]<global_table_spec><col_spec_i>...
    b.i32(GLOBAL_TABLES_SPEC).i32(select ? 1 : 3).i32(1).u16(0);
    b.string(s.keyspace).string(s.table);
    columns(b, select ? 1 : 3);
    if (select) {
      b.i32(GLOBAL_TABLES_SPEC).i32(3).string(s.keyspace).string(s.table);
      columns(b, 3);
    } else {
      b.i32(NO_METADATA).i32(0);
    }
    return end(b, start);
  }

  /** A varchar value: {@code [bytes]} of UTF-8. */
  private static void utf8Cell(Bytes b, String s) {
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    b.i32(utf8.length).raw(utf8);
  }

  private static void columns(Bytes b, int n) {
    b.string("id").u16(INT);
    if (n > 1) {
      b.string("name").u16(VARCHAR).string("payload").u16(BLOB);
    }
  }

  /**
   * RESULT Rows: {@code <metadata><rows_count><rows_content>}, the metadata Global_tables_spec with
   * 3 columns (No_metadata too after skip_metadata), each row {@code id}, {@code name} (null in
   * every 17th row) and a payload of {@code payloads[r]} bytes of {@code pattern}.
   *
   * @param pagingState the paging state when there are more pages, else null
   */
  static int rows(
      Bytes b,
      int stream,
      Statement s,
      int firstId,
      int[] payloads,
      int count,
      byte[] pagingState,
      byte[] pattern) {
    int start = begin(b, RESPONSE, stream, RESULT);
    int flags = GLOBAL_TABLES_SPEC;
    flags |= pagingState != null ? HAS_MORE_PAGES : 0;
    flags |= s.skipMetadata ? NO_METADATA : 0;
    b.i32(0x0002).i32(flags).i32(3);
    if (pagingState != null) {
      b.i32(pagingState.length).raw(pagingState);
    }
    if (!s.skipMetadata) {
      b.string(s.keyspace).string(s.table);
      columns(b, 3);
    }
    b.i32(count);
    for (int r = 0; r < count; r++) {
      int id = firstId + r;
      b.i32(4).i32(id);
      if (id % 17 == 0) {
        b.i32(-1);
      } else {
        utf8Cell(b, "name-" + id);
      }
      b.bytesFrom(pattern, (id * 7919) & 0xffff, payloads[r]);
    }
    return end(b, start);
  }

  /**
   * ERROR: {@code <code: int><message: string>} and the code's extra fields: Unavailable {@code
   * <cl: short><required: int><alive: int>}, Read_timeout {@code <cl: short><received:
   * int><blockfor: int><data_present: byte>}, Invalid none.
   */
  static int error(Bytes b, int stream, int code) {
    int start = begin(b, RESPONSE, stream, ERROR);
    b.i32(code);
    switch (code) {
      case SyntheticCapture.UNAVAILABLE:
        b.string("Cannot achieve consistency level LOCAL_QUORUM").u16(LOCAL_QUORUM).i32(2).i32(1);
        break;
      case SyntheticCapture.READ_TIMEOUT:
        b.string("Operation timed out - received only 0 responses.");
        b.u16(LOCAL_ONE).i32(0).i32(1).u8(0);
        break;
      default:
        b.string("Invalid query: unconfigured table");
        break;
    }
    return end(b, start);
  }
}
