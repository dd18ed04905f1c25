package io.cqlrows.netty.request;

import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.internal.Compressors;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Encodes request envelopes for one connection (sections 2 and 4.1 of native_protocol_v4.spec and
 * v5.spec; the section numbers below are those of both): the 9-byte header and the body of OPTIONS,
 * STARTUP, QUERY, PREPARE and EXECUTE.
 *
 * <pre>
 * version(1, bit 7 clear) flags(1) stream(2) opcode(1) length(4) | body
 * QUERY    [long string] query, query_parameters
 * PREPARE  [long string] query; v5: [int] flags (0)
 * EXECUTE  [short bytes] id; v5 (or v4 with SCYLLA_USE_METADATA_ID): [short bytes]
 *          result_metadata_id; query_parameters
 * STARTUP  [string map] options           OPTIONS  (empty)
 * </pre>
 *
 * <p><b>Compression.</b> On v4 with {@link Compression#LZ4} every body after STARTUP is compressed
 * (flag 0x01: a big-endian uncompressed length and a raw LZ4 block), as the Java driver does even
 * when that makes it longer. OPTIONS and STARTUP are never compressed: they may precede the
 * negotiation. On v5 bodies are never compressed here; the connection's segments carry the
 * compression ({@code CqlPipeline} packs envelopes into segments after READY), and v5 envelopes go
 * out unframed only until then.
 *
 * <p><b>Ownership.</b> Every method returns a new envelope, which the caller owns: it releases the
 * envelope, or writes it to a channel, which then releases it. Arguments are borrowed and read
 * during the call.
 *
 * <p><b>Threading.</b> Immutable and thread-safe.
 */
public final class Requests {
  /** The envelope header: version, flags, stream, opcode, length. */
  public static final int HEADER_LENGTH = 9;

  /** The CQL version every Cassandra since 2.0 accepts in STARTUP. */
  public static final String CQL_VERSION = "3.0.0";

  private final int protocolVersion;
  private final boolean lz4Bodies;
  private final ProtocolFeatures features;

  /**
   * Encoders for one connection without protocol extensions (a Cassandra connection).
   *
   * @see #Requests(int, Compression, ProtocolFeatures)
   */
  public Requests(int protocolVersion, Compression compression) {
    this(protocolVersion, compression, ProtocolFeatures.NONE);
  }

  /**
   * Encoders for one connection.
   *
   * @param protocolVersion 4 or 5
   * @param compression what STARTUP negotiates: {@link Compression#NONE}, {@link Compression#LZ4},
   *     or on v4 {@link Compression#SNAPPY}, whose requests are sent uncompressed (the compression
   *     flag is per frame: the server's responses are compressed, and this library has no Snappy
   *     compressor)
   * @param features the extensions STARTUP names ({@link ProtocolFeatures#NONE} for none): with
   *     {@link ProtocolFeatures#SCYLLA_USE_METADATA_ID} a v4 EXECUTE carries the {@code
   *     result_metadata_id}
   */
  public Requests(int protocolVersion, Compression compression, ProtocolFeatures features) {
    if (protocolVersion != 4 && protocolVersion != 5) {
      throw new IllegalArgumentException(
          "protocolVersion: " + protocolVersion + " (expected: 4 or 5)");
    }
    if (compression == Compression.SNAPPY && protocolVersion >= 5) {
      throw new IllegalArgumentException("compression: SNAPPY (v5 compresses with LZ4 only)");
    }
    this.protocolVersion = protocolVersion;
    this.lz4Bodies = protocolVersion < 5 && compression == Compression.LZ4;
    this.features = Objects.requireNonNull(features, "features");
  }

  /** The protocol version written in every header. */
  public int protocolVersion() {
    return protocolVersion;
  }

  /** The protocol extensions these encoders apply. */
  public ProtocolFeatures features() {
    return features;
  }

  /**
   * The STARTUP options: {@code CQL_VERSION} and, for LZ4, {@code COMPRESSION=lz4} (for Snappy
   * {@code COMPRESSION=snappy}).
   */
  public static Map<String, String> startupOptions(Compression compression) {
    return startupOptions(compression, ProtocolFeatures.NONE);
  }

  /**
   * The STARTUP options: {@code CQL_VERSION}, for LZ4 {@code COMPRESSION=lz4} (for Snappy {@code
   * snappy}), then the extensions' own ({@link ProtocolFeatures#startupOptions()}; none for {@link
   * ProtocolFeatures#NONE}, so a Cassandra connection sends exactly the first two).
   */
  public static Map<String, String> startupOptions(
      Compression compression, ProtocolFeatures features) {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("CQL_VERSION", CQL_VERSION);
    if (compression == Compression.LZ4) {
      options.put("COMPRESSION", "lz4");
    } else if (compression == Compression.SNAPPY) {
      options.put("COMPRESSION", "snappy");
    }
    options.putAll(features.startupOptions());
    return options;
  }

  /** OPTIONS (§4.1.3): an empty body, never compressed. */
  public ByteBuf options(ByteBufAllocator alloc, int streamId) {
    return envelope(alloc, streamId, Opcode.OPTIONS, false, body -> {});
  }

  /**
   * STARTUP (§4.1.1), never compressed.
   *
   * @param options written in iteration order, e.g. {@link #startupOptions}
   */
  public ByteBuf startup(ByteBufAllocator alloc, int streamId, Map<String, String> options) {
    Objects.requireNonNull(options, "options");
    return envelope(
        alloc, streamId, Opcode.STARTUP, false, body -> WireWriter.stringMap(body, options));
  }

  /**
   * QUERY (§4.1.4).
   *
   * @param query the CQL text
   * @param parameters consistency, values, paging; its values are read during this call
   */
  public ByteBuf query(
      ByteBufAllocator alloc, int streamId, String query, QueryParameters parameters) {
    Objects.requireNonNull(query, "query");
    Objects.requireNonNull(parameters, "parameters");
    return traced(
        envelope(
            alloc,
            streamId,
            Opcode.QUERY,
            lz4Bodies,
            body -> {
              WireWriter.longString(body, query);
              parameters.writeTo(body, protocolVersion);
            }),
        parameters);
  }

  /**
   * QUERY (§4.1.4) without values, at {@link Consistency#LOCAL_ONE}, with the server's default page
   * size.
   *
   * @param query the CQL text
   */
  public ByteBuf query(ByteBufAllocator alloc, int streamId, String query) {
    return query(alloc, streamId, query, QueryParameters.of(Consistency.LOCAL_ONE));
  }

  /** PREPARE (§4.1.5): the query, and on v5 its flags ({@code [int]} 0: no keyspace). */
  public ByteBuf prepare(ByteBufAllocator alloc, int streamId, String query) {
    Objects.requireNonNull(query, "query");
    return envelope(
        alloc,
        streamId,
        Opcode.PREPARE,
        lz4Bodies,
        body -> {
          WireWriter.longString(body, query);
          if (protocolVersion >= 5) {
            body.writeInt(0);
          }
        });
  }

  /**
   * EXECUTE (§4.1.6).
   *
   * @param id the prepared statement id from the PREPARED result
   * @param resultMetadataId v5, or v4 with {@link ProtocolFeatures#SCYLLA_USE_METADATA_ID}: the
   *     current {@code result_metadata_id} of the statement (from PREPARED, or the latest {@code
   *     new_metadata_id}); otherwise ignored, and may be null
   * @param parameters consistency, values, paging, {@code Skip_metadata}; its values are read
   *     during this call
   */
  public ByteBuf execute(
      ByteBufAllocator alloc,
      int streamId,
      byte[] id,
      byte[] resultMetadataId,
      QueryParameters parameters) {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(parameters, "parameters");
    boolean withMetadataId = features.hasResultMetadataId(protocolVersion);
    if (withMetadataId && resultMetadataId == null) {
      throw new IllegalArgumentException(
          "resultMetadataId: null (expected: an id on v"
              + protocolVersion
              + (protocolVersion < 5 ? " with SCYLLA_USE_METADATA_ID)" : ")"));
    }
    return traced(
        envelope(
            alloc,
            streamId,
            Opcode.EXECUTE,
            lz4Bodies,
            body -> {
              WireWriter.shortBytes(body, "id", id);
              if (withMetadataId) {
                WireWriter.shortBytes(body, "result_metadata_id", resultMetadataId);
              }
              parameters.writeTo(body, protocolVersion);
            }),
        parameters);
  }

  /** {@code envelope} with the tracing flag set when {@code parameters} ask for tracing. */
  private static ByteBuf traced(ByteBuf envelope, QueryParameters parameters) {
    if (parameters.tracing()) {
      int at = envelope.readerIndex() + 1;
      envelope.setByte(at, envelope.getByte(at) | Frame.FLAG_TRACING);
    }
    return envelope;
  }

  /**
   * AUTH_RESPONSE (native_protocol_v5.spec section 4.1.2): the token for the authenticator that
   * AUTHENTICATE named, never compressed.
   *
   * @param token the SASL response; for {@code PasswordAuthenticator}, {@link #plainToken}.
   *     Borrowed: copied into the envelope
   */
  public ByteBuf authResponse(ByteBufAllocator alloc, int streamId, byte[] token) {
    Objects.requireNonNull(token, "token");
    return envelope(
        alloc,
        streamId,
        Opcode.AUTH_RESPONSE,
        false,
        body -> {
          body.writeInt(token.length);
          body.writeBytes(token);
        });
  }

  /**
   * The SASL PLAIN token of {@code PasswordAuthenticator}: {@code NUL username NUL password}, in
   * UTF-8. The caller should overwrite it once it is sent.
   */
  public static byte[] plainToken(String username, char[] password) {
    byte[] user = username.getBytes(StandardCharsets.UTF_8);
    ByteBuffer pass = StandardCharsets.UTF_8.encode(CharBuffer.wrap(password));
    byte[] token = new byte[2 + user.length + pass.remaining()];
    System.arraycopy(user, 0, token, 1, user.length);
    pass.get(token, 2 + user.length, pass.remaining());
    if (pass.hasArray()) {
      Arrays.fill(pass.array(), pass.arrayOffset(), pass.arrayOffset() + pass.limit(), (byte) 0);
    }
    return token;
  }

  /**
   * Sets the stream id of an encoded envelope in place (a driver encodes on the caller's thread and
   * allocates the stream on the event loop).
   *
   * @param envelope an envelope from this class, header at its reader index. Borrowed.
   */
  public static void setStreamId(ByteBuf envelope, int streamId) {
    checkStreamId(streamId);
    envelope.setShort(envelope.readerIndex() + 2, streamId);
  }

  private ByteBuf envelope(
      ByteBufAllocator alloc,
      int streamId,
      Opcode opcode,
      boolean compress,
      Consumer<ByteBuf> bodyWriter) {
    checkStreamId(streamId);
    ByteBuf out = alloc.buffer();
    boolean ok = false;
    try {
      out.writeByte(protocolVersion);
      out.writeByte(compress ? Frame.FLAG_COMPRESSION : 0);
      out.writeShort(streamId);
      out.writeByte(opcode.code());
      out.writeInt(0); // length, set below
      if (compress) {
        writeCompressed(alloc, out, bodyWriter);
      } else {
        bodyWriter.accept(out);
      }
      out.setInt(5, out.readableBytes() - HEADER_LENGTH);
      ok = true;
      return out;
    } finally {
      if (!ok) {
        out.release();
      }
    }
  }

  private static void writeCompressed(
      ByteBufAllocator alloc, ByteBuf out, Consumer<ByteBuf> bodyWriter) {
    ByteBuf plain = alloc.buffer();
    try {
      bodyWriter.accept(plain);
      out.writeInt(plain.readableBytes());
      Compressors.lz4Block(plain, out);
    } finally {
      plain.release();
    }
  }

  private static void checkStreamId(int streamId) {
    if (streamId < 0 || streamId > Short.MAX_VALUE) {
      throw new IllegalArgumentException("streamId: " + streamId + " (expected: 0-32767)");
    }
  }
}
