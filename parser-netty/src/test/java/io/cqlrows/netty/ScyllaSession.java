package io.cqlrows.netty;

import io.cqlrows.netty.frame.Compression;
import io.cqlrows.testing.CqlBytes;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.compression.Snappy;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import net.jpountz.lz4.LZ4Factory;

/**
 * A whole ScyllaDB protocol-v4 session, both directions written byte by byte, as ScyllaDB's
 * transport/server.cc and cql3/result_set.cc lay the bytes out with its extensions on
 * (docs/dev/protocol-extensions.md), and as its drivers send requests:
 *
 * <ol>
 *   <li>stream 0: OPTIONS; SUPPORTED with the sharding options and the four extensions and their
 *       parameters ({@code LWT_OPTIMIZATION_META_BIT_MASK=2147483648}, {@code ERROR_CODE=61440})
 *   <li>stream 0: STARTUP naming them (and {@code COMPRESSION}); READY, compressed when compression
 *       is on (ScyllaDB compresses READY too)
 *   <li>stream 1: QUERY {@link #USERS_QUERY}; ROWS with metadata
 *   <li>stream 2: PREPARE {@link #SELECT}; PREPARED with a 16-byte {@code result_metadata_id} after
 *       the id (SCYLLA_USE_METADATA_ID)
 *   <li>stream 3: PREPARE {@link #UPDATE_IF}; PREPARED with the LWT bit 0x80000000 in the prepared
 *       flags and an {@code [applied]} result column
 *   <li>stream 4: EXECUTE of SELECT with {@code Skip_metadata} and the metadata id; ROWS {@code
 *       No_metadata} with a {@code tablets-routing-v1} custom payload
 *   <li>stream 5: EXECUTE of the LWT; ROWS {@code No_metadata}, {@code [applied]} true
 *   <li>stream 6: EXECUTE of SELECT after the table gained a column; ROWS with {@code
 *       Metadata_changed}, the new metadata id and the four columns
 *   <li>stream 7: EXECUTE of SELECT with the new metadata id; ROWS {@code No_metadata} with four
 *       cells
 *   <li>stream 8: QUERY {@link #INSERT}; the rate-limit ERROR 0xF000 (a write, rejected by a
 *       replica)
 * </ol>
 *
 * <p>With compression every body after STARTUP is compressed in both directions (v4 frame
 * compression, flag 0x01): LZ4 as {@code [int] uncompressed length} plus a raw block, Snappy as a
 * raw Snappy stream.
 */
public final class ScyllaSession {
  public static final String USERS_QUERY = "SELECT id, name FROM app.users";
  public static final String SELECT = "SELECT id, name, embedding FROM app.users WHERE id = ?";
  public static final String UPDATE_IF = "UPDATE app.users SET name = ? WHERE id = ? IF EXISTS";
  public static final String INSERT = "INSERT INTO app.users (id, name) VALUES (9, 'x')";

  public static final byte[] SELECT_ID = hex("3d7a1f5e9c2b4e8a0f1d2c3b4a596877");
  public static final byte[] UPDATE_ID = hex("a1b2c3d4e5f60718293a4b5c6d7e8f90");

  /** The first half of a SHA-256 of the result metadata (cql3/result_set.cc). */
  public static final byte[] SELECT_METADATA_ID = hex("5f0c8e1a2b3c4d5e6f708192a3b4c5d6");

  public static final byte[] UPDATE_METADATA_ID = hex("0badc0de0badc0de0badc0de0badc0de");
  public static final byte[] ALTERED_METADATA_ID = hex("e3b0c44298fc1c149afbf4c8996fb924");

  public static final long TABLET_FIRST = 3074457345618258602L;
  public static final long TABLET_LAST = 6148914691236517204L;
  public static final UUID HOST_1 = UUID.fromString("2c7e1d62-9f1b-4b8e-a7d4-5d0a6c3b9e11");
  public static final UUID HOST_2 = UUID.fromString("f1e2d3c4-b5a6-4798-8a9b-0c1d2e3f4a5b");

  private static final int RESPONSE = 0x84;
  private static final int REQUEST = 0x04;
  private static final int FLAG_COMPRESSED = 0x01;
  private static final int FLAG_CUSTOM_PAYLOAD = 0x04;
  private static final int OPTIONS = 0x05;
  private static final int STARTUP = 0x01;
  private static final int READY = 0x02;
  private static final int SUPPORTED = 0x06;
  private static final int QUERY = 0x07;
  private static final int RESULT = 0x08;
  private static final int PREPARE = 0x09;
  private static final int EXECUTE = 0x0A;
  private static final int ERROR = 0x00;
  private static final int INT = 0x0009;
  private static final int VARCHAR = 0x000D;
  private static final int BOOLEAN = 0x0004;
  private static final String VECTOR3 =
      "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType,3)";

  /** The two byte streams. */
  @SuppressWarnings("ArrayRecordComponent") // a holder of bytes, never compared
  public record Bytes(byte[] clientToServer, byte[] serverToClient) {}

  private final Compression compression;
  private final ByteArrayOutputStream c2s = new ByteArrayOutputStream();
  private final ByteArrayOutputStream s2c = new ByteArrayOutputStream();

  /** Bodies are compressed from STARTUP's answer on. */
  private boolean compressing;

  private ScyllaSession(Compression compression) {
    this.compression = compression;
  }

  /** The session, with frame bodies after STARTUP compressed as {@code compression} says. */
  public static Bytes write(Compression compression) {
    ScyllaSession s = new ScyllaSession(compression);
    s.session();
    return new Bytes(s.c2s.toByteArray(), s.s2c.toByteArray());
  }

  private void session() {
    request(0, OPTIONS, new byte[0]);
    response(0, SUPPORTED, 0, supported());

    Map<String, String> startup = new LinkedHashMap<>();
    startup.put("CQL_VERSION", "3.0.0");
    if (compression != Compression.NONE) {
      startup.put("COMPRESSION", compression == Compression.LZ4 ? "lz4" : "snappy");
    }
    startup.put("SCYLLA_LWT_ADD_METADATA_MARK", "LWT_OPTIMIZATION_META_BIT_MASK=2147483648");
    startup.put("SCYLLA_RATE_LIMIT_ERROR", "");
    startup.put("TABLETS_ROUTING_V1", "");
    startup.put("SCYLLA_USE_METADATA_ID", "");
    CqlBytes map = CqlBytes.create().int16(startup.size());
    startup.forEach((k, v) -> map.string(k).string(v));
    request(0, STARTUP, map.toArray());
    compressing = compression != Compression.NONE;
    response(0, READY, 0, new byte[0]);

    request(1, QUERY, query(USERS_QUERY, false));
    response(
        1,
        RESULT,
        0,
        CqlBytes.create()
            .int32(2)
            .int32(0x0001)
            .int32(2)
            .string("app")
            .string("users")
            .columnSpec("id", INT)
            .columnSpec("name", VARCHAR)
            .int32(2)
            .bytes("00000001")
            .bytes(utf8("ada"))
            .bytes("00000002")
            .bytes(utf8("grace"))
            .toArray());

    request(2, PREPARE, longString(SELECT));
    CqlBytes select =
        CqlBytes.create()
            .int32(4)
            .int16(16)
            .raw(SELECT_ID)
            .int16(16)
            .raw(SELECT_METADATA_ID)
            .int32(0x0001)
            .int32(1)
            .int32(1)
            .int16(0)
            .string("app")
            .string("users")
            .columnSpec("id", INT);
    selectColumns(select.int32(0x0001).int32(3), false);
    response(2, RESULT, 0, select.toArray());

    request(3, PREPARE, longString(UPDATE_IF));
    response(
        3,
        RESULT,
        0,
        CqlBytes.create()
            .int32(4)
            .int16(16)
            .raw(UPDATE_ID)
            .int16(16)
            .raw(UPDATE_METADATA_ID)
            .int32(0x80000001)
            .int32(2)
            .int32(1)
            .int16(1)
            .string("app")
            .string("users")
            .columnSpec("name", VARCHAR)
            .columnSpec("id", INT)
            .int32(0x0001)
            .int32(1)
            .string("app")
            .string("users")
            .columnSpec("[applied]", BOOLEAN)
            .toArray());

    request(4, EXECUTE, execute(SELECT_ID, SELECT_METADATA_ID, "00000001"));
    byte[] rows =
        CqlBytes.create()
            .int32(2)
            .int32(0x0004)
            .int32(3)
            .int32(1)
            .bytes("00000001")
            .bytes(utf8("ada"))
            .bytes("3f800000 40000000 40400000")
            .toArray();
    response(4, RESULT, FLAG_CUSTOM_PAYLOAD, concat(tabletsPayload(), rows));

    request(5, EXECUTE, execute(UPDATE_ID, UPDATE_METADATA_ID, utf8("ada l."), "00000001"));
    response(
        5,
        RESULT,
        0,
        CqlBytes.create().int32(2).int32(0x0004).int32(1).int32(1).bytes("01").toArray());

    request(6, EXECUTE, execute(SELECT_ID, SELECT_METADATA_ID, "00000002"));
    CqlBytes changed =
        CqlBytes.create()
            .int32(2)
            .int32(0x0001 | 0x0008)
            .int32(4)
            .int16(16)
            .raw(ALTERED_METADATA_ID);
    selectColumns(changed, true);
    response(
        6,
        RESULT,
        0,
        changed
            .int32(1)
            .bytes("00000002")
            .bytes(utf8("grace"))
            .bytes("40800000 40a00000 40c00000")
            .bytes(utf8("grace@example.org"))
            .toArray());

    request(7, EXECUTE, execute(SELECT_ID, ALTERED_METADATA_ID, "00000001"));
    response(
        7,
        RESULT,
        0,
        CqlBytes.create()
            .int32(2)
            .int32(0x0004)
            .int32(4)
            .int32(1)
            .bytes("00000001")
            .bytes(utf8("ada"))
            .bytes("3f800000 40000000 40400000")
            .nullCell()
            .toArray());

    request(8, QUERY, query(INSERT, false));
    response(
        8,
        ERROR,
        0,
        CqlBytes.create()
            .int32(0xF000)
            .string("Per-partition rate limit reached for app.users")
            .int8(1)
            .int8(0)
            .toArray());
  }

  /** {@code [string multimap]} as server.cc writes SUPPORTED (a std::multimap: sorted keys). */
  private static byte[] supported() {
    Map<String, List<String>> options = new java.util.TreeMap<>();
    options.put("COMPRESSION", List.of("lz4", "snappy"));
    options.put("CQL_VERSION", List.of("3.3.1"));
    options.put(
        "SCYLLA_LWT_ADD_METADATA_MARK", List.of("LWT_OPTIMIZATION_META_BIT_MASK=2147483648"));
    options.put("SCYLLA_NR_SHARDS", List.of("2"));
    options.put("SCYLLA_PARTITIONER", List.of("org.apache.cassandra.dht.Murmur3Partitioner"));
    options.put("SCYLLA_RATE_LIMIT_ERROR", List.of("ERROR_CODE=61440"));
    options.put("SCYLLA_SHARD", List.of("1"));
    options.put("SCYLLA_SHARDING_ALGORITHM", List.of("biased-token-round-robin"));
    options.put("SCYLLA_SHARDING_IGNORE_MSB", List.of("12"));
    options.put("SCYLLA_SHARD_AWARE_PORT", List.of("19042"));
    options.put("SCYLLA_USE_METADATA_ID", List.of(""));
    options.put("TABLETS_ROUTING_V1", List.of(""));
    CqlBytes b = CqlBytes.create().int16(options.size());
    options.forEach(
        (k, values) -> {
          b.string(k).int16(values.size());
          values.forEach(b::string);
        });
    return b.toArray();
  }

  /** Result column specs of SELECT (Global_tables_spec), with {@code email} once altered. */
  private static void selectColumns(CqlBytes b, boolean altered) {
    b.string("app")
        .string("users")
        .columnSpec("id", INT)
        .columnSpec("name", VARCHAR)
        .customColumnSpec("embedding", VECTOR3);
    if (altered) {
      b.columnSpec("email", VARCHAR);
    }
  }

  /**
   * The {@code [bytes map]} custom payload: {@code tablets-routing-v1} -> {@link #tabletsValue}.
   */
  public static byte[] tabletsPayload() {
    byte[] value = tabletsValue();
    return CqlBytes.create()
        .int16(1)
        .string("tablets-routing-v1")
        .int32(value.length)
        .raw(value)
        .toArray();
  }

  /** {@code tuple<bigint, bigint, list<frozen<tuple<uuid, int>>>>}: the range and two replicas. */
  public static byte[] tabletsValue() {
    CqlBytes list = CqlBytes.create().int32(2);
    for (Object[] r : new Object[][] {{HOST_1, 0}, {HOST_2, 1}}) {
      UUID host = (UUID) r[0];
      byte[] replica =
          CqlBytes.create()
              .int32(16)
              .int64(host.getMostSignificantBits())
              .int64(host.getLeastSignificantBits())
              .int32(4)
              .int32((Integer) r[1])
              .toArray();
      list.int32(replica.length).raw(replica);
    }
    byte[] replicas = list.toArray();
    return CqlBytes.create()
        .int32(8)
        .int64(TABLET_FIRST)
        .int32(8)
        .int64(TABLET_LAST)
        .int32(replicas.length)
        .raw(replicas)
        .toArray();
  }

  /** QUERY body: the text, LOCAL_QUORUM, flags 0x04 (page size) with 5000, v4 flags byte. */
  private static byte[] query(String cql, boolean values) {
    return CqlBytes.create()
        .raw(longString(cql))
        .int16(0x0006)
        .int8(values ? 0x05 : 0x04)
        .int32(5000)
        .toArray();
  }

  /**
   * EXECUTE body under SCYLLA_USE_METADATA_ID: {@code [short bytes]} id, {@code [short bytes]}
   * result_metadata_id, then the parameters: LOCAL_QUORUM, flags Values | Skip_metadata | Page
   * size, the values, 5000.
   */
  private static byte[] execute(byte[] id, byte[] metadataId, String... values) {
    CqlBytes b =
        CqlBytes.create()
            .int16(id.length)
            .raw(id)
            .int16(metadataId.length)
            .raw(metadataId)
            .int16(0x0006)
            .int8(0x01 | 0x02 | 0x04)
            .int16(values.length);
    for (String v : values) {
      b.bytes(v);
    }
    return b.int32(5000).toArray();
  }

  private void request(int stream, int opcode, byte[] body) {
    boolean compressed = compressing && opcode != STARTUP && opcode != OPTIONS;
    frame(
        c2s,
        REQUEST,
        compressed ? FLAG_COMPRESSED : 0,
        stream,
        opcode,
        compressed ? compress(body) : body);
  }

  private void response(int stream, int opcode, int flags, byte[] body) {
    frame(
        s2c,
        RESPONSE,
        flags | (compressing ? FLAG_COMPRESSED : 0),
        stream,
        opcode,
        compressing ? compress(body) : body);
  }

  private static void frame(
      ByteArrayOutputStream out, int version, int flags, int stream, int opcode, byte[] body) {
    ByteBuffer header = ByteBuffer.allocate(9);
    header
        .put((byte) version)
        .put((byte) flags)
        .putShort((short) stream)
        .put((byte) opcode)
        .putInt(body.length);
    out.writeBytes(header.array());
    out.writeBytes(body);
  }

  /** server.cc compress_lz4 / compress_snappy: LZ4 with its length prefix, raw Snappy. */
  private byte[] compress(byte[] body) {
    if (compression == Compression.LZ4) {
      byte[] block = LZ4Factory.fastestInstance().fastCompressor().compress(body);
      return concat(ByteBuffer.allocate(4).putInt(body.length).array(), block);
    }
    ByteBuf out = Unpooled.buffer();
    try {
      new Snappy().encode(Unpooled.wrappedBuffer(body), out, body.length);
      return ByteBufUtil.getBytes(out);
    } finally {
      out.release();
    }
  }

  private static byte[] longString(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return CqlBytes.create().int32(b.length).raw(b).toArray();
  }

  private static String utf8(String s) {
    return ByteBufUtil.hexDump(s.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = new byte[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static byte[] hex(String hex) {
    return ByteBufUtil.decodeHexDump(hex);
  }
}
